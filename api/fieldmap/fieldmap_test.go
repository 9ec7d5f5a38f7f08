package fieldmap

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

type formA struct {
	Name  string
	Count int
	Items []itemA
}

type formB struct {
	Name  string
	Count string
	Items []itemB
}

type itemA struct{ Size int }

type itemB struct{ Size string }

func itemPairs(a *itemA, b *itemB) []Pair {
	return []Pair{Convert[int, string]{&a.Size, &b.Size, strconv.Itoa, atoi}}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func pairs(a *formA, b *formB) []Pair {
	return []Pair{
		Same[string]{&a.Name, &b.Name},
		Convert[int, string]{&a.Count, &b.Count, strconv.Itoa, atoi},
		Slices[itemA, itemB]{&a.Items, &b.Items, itemPairs},
	}
}

// One list of pairs converts both ways, each pair by its own rule.
func TestOneMappingBothWays(t *testing.T) {
	a := formA{Name: "web", Count: 3, Items: []itemA{{1}, {2}}}
	var b formB
	AToB(pairs(&a, &b))
	assert.Equal(t, formB{Name: "web", Count: "3", Items: []itemB{{"1"}, {"2"}}}, b)

	var back formA
	BToA(pairs(&back, &b))
	assert.Equal(t, a, back)
}

// A converted slice is new (changing it leaves the other form alone), and
// an empty one becomes nil.
func TestSlicesAreNew(t *testing.T) {
	a := formA{Items: []itemA{{1}}}
	var b formB
	AToB(pairs(&a, &b))
	b.Items[0].Size = "9"
	assert.Equal(t, 1, a.Items[0].Size)

	AToB(pairs(&formA{Items: []itemA{}}, &b))
	assert.Nil(t, b.Items)
}
