package fieldmap

// Pair is one line of a mapping between form A and form B of a kind: it
// copies its field one way or the other.
type Pair interface {
	AToB()
	BToA()
}

// AToB copies every pair's field from A to B.
func AToB(pairs []Pair) {
	for _, p := range pairs {
		p.AToB()
	}
}

// BToA copies every pair's field from B to A.
func BToA(pairs []Pair) {
	for _, p := range pairs {
		p.BToA()
	}
}

// Same pairs two fields of the same Go type, copied as they are (a
// pointer, map or slice is shared: convert a deep copy for a result that
// shares nothing).
type Same[T any] struct{ A, B *T }

// AToB implements Pair.
func (p Same[T]) AToB() { *p.B = *p.A }

// BToA implements Pair.
func (p Same[T]) BToA() { *p.A = *p.B }

// Convert pairs two fields of different types, with the conversion each
// way written on the same line.
type Convert[X, Y any] struct {
	A   *X
	B   *Y
	ToB func(X) Y
	ToA func(Y) X
}

// AToB implements Pair.
func (p Convert[X, Y]) AToB() { *p.B = p.ToB(*p.A) }

// BToA implements Pair.
func (p Convert[X, Y]) BToA() { *p.A = p.ToA(*p.B) }

// Slices pairs two slices whose elements are converted by the pairs
// Elements gives for one element of each; an empty slice becomes nil.
type Slices[X, Y any] struct {
	A        *[]X
	B        *[]Y
	Elements func(*X, *Y) []Pair
}

// AToB implements Pair.
func (p Slices[X, Y]) AToB() {
	*p.B = nil
	if len(*p.A) > 0 {
		*p.B = make([]Y, len(*p.A))
	}
	for i := range *p.A {
		AToB(p.Elements(&(*p.A)[i], &(*p.B)[i]))
	}
}

// BToA implements Pair.
func (p Slices[X, Y]) BToA() {
	*p.A = nil
	if len(*p.B) > 0 {
		*p.A = make([]X, len(*p.B))
	}
	for i := range *p.B {
		BToA(p.Elements(&(*p.A)[i], &(*p.B)[i]))
	}
}
