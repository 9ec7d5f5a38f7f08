package record

// lru is a map that forgets its least recently used entry past size, as
// the groupcache LRU the real correlator keeps its three caches in: a
// component that records events about a hundred thousand pods keeps the
// state of the last 4,096 only.
//
// Every kubelet has a recorder with three of these, so an entry is kept
// small: the entries live in one slice, linked by index from most to least
// recently used (no list element and boxed entry per key, as
// container/list would allocate), and the map only finds a key's index.
// When full, the least recently used entry's slot takes the new key.
type lru[V any] struct {
	size    int
	items   map[digest]int32
	entries []lruEntry[V]
	// front is the most recently used entry, back the least; -1: none.
	front, back int32
}

type lruEntry[V any] struct {
	key        digest
	value      V
	prev, next int32 // towards front, towards back; -1 at the ends
}

func newLRU[V any](size int) *lru[V] {
	return &lru[V]{size: size, items: map[digest]int32{}, front: -1, back: -1}
}

// get returns the value of key and marks it used.
func (c *lru[V]) get(key digest) (V, bool) {
	if i, ok := c.items[key]; ok {
		c.toFront(i)
		return c.entries[i].value, true
	}
	var zero V
	return zero, false
}

// add sets key to value, forgetting the oldest entry when full.
func (c *lru[V]) add(key digest, value V) {
	if c.size <= 0 {
		return
	}
	if i, ok := c.items[key]; ok {
		c.entries[i].value = value
		c.toFront(i)
		return
	}
	var i int32
	if len(c.entries) < c.size {
		i = int32(len(c.entries))
		c.entries = append(c.entries, lruEntry[V]{prev: -1, next: -1})
	} else {
		// Full: the least recently used entry's slot is reused.
		i = c.back
		c.unlink(i)
		delete(c.items, c.entries[i].key)
	}
	c.entries[i].key, c.entries[i].value = key, value
	c.items[key] = i
	c.pushFront(i)
}

// len is how many entries it holds.
func (c *lru[V]) len() int { return len(c.items) }

func (c *lru[V]) toFront(i int32) {
	if c.front == i {
		return
	}
	c.unlink(i)
	c.pushFront(i)
}

func (c *lru[V]) unlink(i int32) {
	e := &c.entries[i]
	if e.prev >= 0 {
		c.entries[e.prev].next = e.next
	} else {
		c.front = e.next
	}
	if e.next >= 0 {
		c.entries[e.next].prev = e.prev
	} else {
		c.back = e.prev
	}
	e.prev, e.next = -1, -1
}

func (c *lru[V]) pushFront(i int32) {
	e := &c.entries[i]
	e.prev, e.next = -1, c.front
	if c.front >= 0 {
		c.entries[c.front].prev = i
	}
	c.front = i
	if c.back < 0 {
		c.back = i
	}
}
