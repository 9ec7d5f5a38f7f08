package record

import "container/list"

// lru is a map that forgets its least recently used entry past size, as
// the groupcache LRU the real correlator keeps its three caches in: a
// component that records events about a hundred thousand pods keeps the
// state of the last 4,096 only.
type lru[V any] struct {
	size  int
	order *list.List // front: most recently used; values are *lruEntry[V]
	items map[digest]*list.Element
}

type lruEntry[V any] struct {
	key   digest
	value V
}

func newLRU[V any](size int) *lru[V] {
	return &lru[V]{size: size, order: list.New(), items: map[digest]*list.Element{}}
}

// get returns the value of key and marks it used.
func (c *lru[V]) get(key digest) (V, bool) {
	if e, ok := c.items[key]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*lruEntry[V]).value, true
	}
	var zero V
	return zero, false
}

// add sets key to value, forgetting the oldest entry when full.
func (c *lru[V]) add(key digest, value V) {
	if e, ok := c.items[key]; ok {
		c.order.MoveToFront(e)
		e.Value.(*lruEntry[V]).value = value
		return
	}
	c.items[key] = c.order.PushFront(&lruEntry[V]{key: key, value: value})
	if c.order.Len() > c.size {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.items, oldest.Value.(*lruEntry[V]).key)
	}
}
