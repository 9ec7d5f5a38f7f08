package registry

import (
	"context"
	"strings"
	"sync"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/store"
)

// DecodedCache keeps the decoded objects GetShared read, each with the
// revision it was decoded at. It stands in for the listers of
// kube-apiserver's admission plugins (NamespaceLifecycle reads namespaces
// from an informer, not from etcd): a create in a namespace reads the
// namespace on every request, and decoding it again each time was a few
// per cent of a custom resource create's CPU. Unlike an informer it is
// never stale: every read still asks the store for the key's current
// revision, and only the decoding is saved. A cache serves one Store (one
// resource at one version).
type DecodedCache struct {
	mu   sync.Mutex
	objs map[string]decodedEntry
}

type decodedEntry struct {
	rev int64
	obj api.Object
}

// GetShared reads ns/name like Get, but returns the object c decoded
// before when the stored revision has not changed since. The object is
// shared between callers and must not be changed (client-go's rule for
// objects from a lister).
func (s *Store) GetShared(ctx context.Context, c *DecodedCache, ns, name string) (api.Object, error) {
	key := s.key(ns, name)
	kv, err := s.storage.Get(ctx, key)
	if err != nil {
		if store.IsNotFound(err) {
			c.forget(key)
		}
		return nil, s.storeError(err, name)
	}
	if obj, ok := c.lookup(key, kv.ModRevision); ok {
		return obj, nil
	}
	obj, err := s.decodeKV(kv)
	if err != nil {
		return nil, err
	}
	c.remember(key, kv.ModRevision, obj)
	return obj, nil
}

func (c *DecodedCache) lookup(key string, rev int64) (api.Object, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.objs[key]
	if !ok || e.rev != rev {
		return nil, false
	}
	return e.obj, true
}

func (c *DecodedCache) remember(key string, rev int64, obj api.Object) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.objs == nil {
		c.objs = map[string]decodedEntry{}
	}
	c.objs[key] = decodedEntry{rev: rev, obj: obj}
}

// forget drops a key the store no longer has, so that the cache holds
// no more than the objects that exist.
func (c *DecodedCache) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.objs, key)
}

// ListShared lists every object of ns ("" for all namespaces, or a
// cluster-scoped resource) like List without options, decoding only the
// objects whose stored revision c has not seen: the admission plugins'
// listers (Priority reads every PriorityClass, LimitRanger a namespace's
// LimitRanges, on every pod create). The objects are shared, read-only.
func (s *Store) ListShared(ctx context.Context, c *DecodedCache, ns string) (*ListResult, error) {
	seen := map[string]bool{}
	out, err := s.listDecoded(ctx, ns, ListOptions{},
		func(kv store.KeyValue) api.Object {
			seen[kv.Key] = true
			obj, _ := c.lookup(kv.Key, kv.ModRevision)
			return obj
		},
		func(kv store.KeyValue, obj api.Object) { c.remember(kv.Key, kv.ModRevision, obj) })
	if err != nil {
		return nil, err
	}
	c.forgetUnder(s.prefix(ns), seen)
	return out, nil
}

// forgetUnder drops the keys under prefix that a full list no longer
// found.
func (c *DecodedCache) forgetUnder(prefix string, seen map[string]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.objs {
		if strings.HasPrefix(k, prefix) && !seen[k] {
			delete(c.objs, k)
		}
	}
}
