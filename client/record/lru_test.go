package record

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func key(i int) digest { return digestOf(strconv.Itoa(i)) }

// The least recently used entry is forgotten; a get or an add makes an
// entry the most recently used.
func TestLRUForgetsTheLeastRecentlyUsed(t *testing.T) {
	c := newLRU[int](3)
	for i := range 3 {
		c.add(key(i), i)
	}
	_, _ = c.get(key(0)) // 1 is now the oldest
	c.add(key(2), 20)    // updated, and used
	c.add(key(3), 3)     // forgets 1
	_, ok := c.get(key(1))
	assert.False(t, ok)
	for k, want := range map[int]int{0: 0, 2: 20, 3: 3} {
		v, ok := c.get(key(k))
		require.True(t, ok, "%d", k)
		assert.Equal(t, want, v)
	}
	assert.Equal(t, 3, c.len())
}

// Against a plain model (a slice from most to least recently used), for a
// long random run of gets and adds.
func TestLRUAgreesWithAModel(t *testing.T) {
	const size = 8
	c := newLRU[int](size)
	var model []int // keys, most recently used first
	values := map[int]int{}
	touch := func(k int) {
		model = slices.DeleteFunc(model, func(x int) bool { return x == k })
		model = slices.Insert(model, 0, k)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for step := range 20000 {
		k := r.IntN(20)
		if r.IntN(2) == 0 {
			v, ok := c.get(key(k))
			want := slices.Contains(model, k)
			require.Equal(t, want, ok, "step %d: get %d", step, k)
			if ok {
				require.Equal(t, values[k], v)
				touch(k)
			}
			continue
		}
		c.add(key(k), step)
		values[k] = step
		touch(k)
		if len(model) > size {
			model = model[:size]
		}
		require.Equal(t, len(model), c.len())
	}
	// The order, from the links.
	var got []digest
	for i := c.front; i >= 0; i = c.entries[i].next {
		got = append(got, c.entries[i].key)
	}
	var want []digest
	for _, k := range model {
		want = append(want, key(k))
	}
	assert.Equal(t, want, got)
}
