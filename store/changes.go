package store

import (
	"context"
	"sync"
)

// ChangeLog is a store that remembers, for each resource's key prefix
// (/registry/<group>/<resource>/), the revision of the last write under it.
// Step mode asks it whether anything a list of a resource could return has
// changed since an informer last listed it, instead of listing again to
// find out (a watch tells Kubernetes' informers; step mode has none).
type ChangeLog struct {
	Interface

	mu   sync.Mutex
	last map[string]int64
}

// WithChangeLog returns st, remembering the revision of every write
// through it by resource prefix. Writes that bypass it are not seen: wrap
// the one store every writer uses.
func WithChangeLog(st Interface) *ChangeLog {
	return &ChangeLog{Interface: st, last: map[string]int64{}}
}

// Last is the revision of the last write through the log under prefix, a
// resource prefix as ResourcePrefix returns (0 when none was seen).
func (c *ChangeLog) Last(prefix string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last[prefix]
}

func (c *ChangeLog) note(key string, rev int64) {
	p := ResourcePrefix(key)
	c.mu.Lock()
	if rev > c.last[p] {
		c.last[p] = rev
	}
	c.mu.Unlock()
}

func (c *ChangeLog) Create(ctx context.Context, key string, value []byte, opts CreateOptions) (KeyValue, error) {
	kv, err := c.Interface.Create(ctx, key, value, opts)
	if err == nil {
		c.note(key, kv.ModRevision)
	}
	return kv, err
}

func (c *ChangeLog) Update(ctx context.Context, key string, value []byte, pre Preconditions) (KeyValue, error) {
	kv, err := c.Interface.Update(ctx, key, value, pre)
	if err == nil {
		c.note(key, kv.ModRevision)
	}
	return kv, err
}

func (c *ChangeLog) Delete(ctx context.Context, key string, pre Preconditions) (KeyValue, error) {
	kv, err := c.Interface.Delete(ctx, key, pre)
	if err == nil {
		c.note(key, kv.ModRevision)
	}
	return kv, err
}

// ResourcePrefix is the part of key that names its resource:
// "/registry/core/pods/" of "/registry/core/pods/default/web-1" (the first
// three segments); a shorter key is its own prefix.
func ResourcePrefix(key string) string {
	n := 0
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			n++
			if n == 4 {
				return key[:i+1]
			}
		}
	}
	return key
}
