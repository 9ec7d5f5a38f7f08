package fieldmap

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

type formA struct {
	Name  string
	Count int
}

type formB struct {
	Name  string
	Count string
}

func pairs(a *formA, b *formB) []Pair {
	return []Pair{
		Same[string]{&a.Name, &b.Name},
		Convert[int, string]{&a.Count, &b.Count, strconv.Itoa, func(s string) int { n, _ := strconv.Atoi(s); return n }},
	}
}

// One list of pairs converts both ways, each pair by its own rule.
func TestOneMappingBothWays(t *testing.T) {
	a := formA{Name: "web", Count: 3}
	var b formB
	AToB(pairs(&a, &b))
	assert.Equal(t, formB{Name: "web", Count: "3"}, b)

	var back formA
	BToA(pairs(&back, &b))
	assert.Equal(t, a, back)
}
