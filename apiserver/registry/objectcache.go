package registry

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/store"
)

// objectCache is a Store's one cache of decoded objects: for each key, an
// object with the modRevision it was decoded at. Readers that only read
// (the Table printer's lists, ListCached; the admission plugins' reads of
// namespaces, PriorityClasses and LimitRanges, GetShared and ListShared)
// still read the key or the page from the store as before (keys,
// revisions, continue and resourceVersion semantics all the store's), and
// take the object from here instead of decoding the stored bytes whenever
// the key's modRevision is the one cached: a stored value never changes at
// a given modRevision, so the object is the one decoding would give, and a
// stale entry is never served, only not used. Decoding is what costs
// (85 % of a Table page of pods; a few per cent of a custom resource
// create when NamespaceLifecycle decoded the namespace each time); bbolt
// reads are cheap (memory mapped).
//
// While the watch cache's stream runs (live), the cache is the watch
// cache's: every event puts the very object handed to every watcher (and
// through api/handoff to in-process informers) in place of the key's
// entry, or drops a deleted key, so keeping them costs only the map's
// entries. While it does not, the cache is the reads' own: what they
// decoded, dropped when a read finds the key gone. Kubernetes serves both
// callers from informers' and the cacher's stores (its cacher serves whole
// lists, ConsistentListFromCache, 1.31, which needs etcd's progress
// notifications to know it is current); here only the decoding is saved.
//
// Objects are shared and immutable: every caller reads them and never
// changes them (client-go's rule for objects from a lister).
type objectCache struct {
	mu sync.RWMutex
	// live: the stream runs and keeps entries current.
	live bool
	// applied is the revision of the last event applied (the stream's
	// start at first): a read from before it may hold objects older than
	// entries already replaced or deleted, so it adds nothing.
	applied int64
	objs    map[string]cachedObject
}

type cachedObject struct {
	obj api.Object
	rev int64
}

// reset empties the cache; live makes it live from a stream started at
// revision from (what reads kept may hold keys deleted since, which no
// event would remove).
func (c *objectCache) reset(live bool, from int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.objs, c.applied, c.live = nil, from, live
}

// apply records a stream event: obj is the key's object from now on, or
// the key is gone.
func (c *objectCache) apply(key string, typ store.EventType, obj api.Object, rev int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live {
		return
	}
	c.applied = max(c.applied, rev)
	if cur, ok := c.objs[key]; ok && cur.rev >= rev {
		return
	}
	if typ == store.Deleted || obj == nil {
		delete(c.objs, key)
		return
	}
	c.put(key, obj, rev)
}

// get is the cached object of key at modRevision rev, or nil.
func (c *objectCache) get(key string, rev int64) api.Object {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if cur, ok := c.objs[key]; ok && cur.rev == rev {
		return cur.obj
	}
	return nil
}

// decoded is an object a read decoded, at modRevision rev.
type decoded struct {
	key string
	obj api.Object
	rev int64
}

// add remembers objects a read decoded. read is a store revision the read
// saw at least: when the stream already applied a later change, the read
// may be older than the cache (its key deleted since), and adds nothing.
// An entry never goes back to an older revision.
func (c *objectCache) add(read int64, objs ...decoded) {
	if len(objs) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live && c.applied > read {
		return
	}
	for _, d := range objs {
		if cur, ok := c.objs[d.key]; ok && cur.rev >= d.rev {
			continue
		}
		c.put(d.key, d.obj, d.rev)
	}
}

func (c *objectCache) put(key string, obj api.Object, rev int64) {
	if c.objs == nil {
		c.objs = map[string]cachedObject{}
	}
	c.objs[key] = cachedObject{obj: obj, rev: rev}
}

// forget drops a key a read found gone, so that the reads' cache holds
// no more than the objects that exist (a live cache hears of it from the
// stream).
func (c *objectCache) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live {
		delete(c.objs, key)
	}
}

// pruning reports whether a list of everything under a prefix should say
// which keys it found (forgetUnder): only the reads' cache needs it.
func (c *objectCache) pruning() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return !c.live
}

// forgetUnder drops the keys under prefix that a list of everything under
// it no longer found.
func (c *objectCache) forgetUnder(prefix string, seen map[string]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live {
		return
	}
	for k := range c.objs {
		if strings.HasPrefix(k, prefix) && !seen[k] {
			delete(c.objs, k)
		}
	}
}

// GetShared reads ns/name like Get, but returns the cached object when
// the stored revision is the one cached. Unlike an informer's lister it
// is never stale: every read still asks the store for the key's current
// revision, and only the decoding is saved. The object is shared between
// callers and must not be changed.
func (s *Store) GetShared(ctx context.Context, ns, name string) (api.Object, error) {
	key, cache := s.key(ns, name), &s.cacher.objects
	read := s.storage.Revision()
	kv, err := s.storage.Get(ctx, key)
	if err != nil {
		if store.IsNotFound(err) {
			cache.forget(key)
		}
		return nil, s.storeError(err, name)
	}
	if obj := cache.get(key, kv.ModRevision); obj != nil {
		return obj, nil
	}
	obj, err := s.decodeKV(kv)
	if err != nil {
		return nil, err
	}
	cache.add(read, decoded{key: key, obj: obj, rev: kv.ModRevision})
	return obj, nil
}

// ListShared is List for callers that only read the objects: the page is
// the store's, exactly as List reads it, but each object is the cached
// one when the cache holds the key at the same modRevision, decoded (and
// remembered) otherwise. The objects are shared (with watchers and
// in-process informers too while the watch cache runs): the caller must
// not change them.
func (s *Store) ListShared(ctx context.Context, ns string, opts ListOptions) (*ListResult, error) {
	cache := &s.cacher.objects
	var seen map[string]bool
	if opts.Limit == 0 && opts.Continue == "" && cache.pruning() {
		seen = map[string]bool{}
	}
	var fresh []decoded
	out, err := s.listDecoded(ctx, ns, opts,
		func(kv store.KeyValue) api.Object {
			if seen != nil {
				seen[kv.Key] = true
			}
			return cache.get(kv.Key, kv.ModRevision)
		},
		func(kv store.KeyValue, obj api.Object) {
			fresh = append(fresh, decoded{key: kv.Key, obj: obj, rev: kv.ModRevision})
		})
	if err != nil {
		return nil, err
	}
	if opts.Continue != "" || opts.ResourceVersionMatch == ResourceVersionMatchExact {
		// Read at a past revision: objects since changed or deleted
		// would only stay in the cache unused.
		return out, nil
	}
	read, _ := strconv.ParseInt(out.ResourceVersion, 10, 64)
	cache.add(read, fresh...)
	if seen != nil {
		cache.forgetUnder(s.prefix(ns), seen)
	}
	return out, nil
}

// ListCached is ListShared for the Table printer: it first starts the
// watch cache when it is not running (and keeps it running without
// watchers), as kube-apiserver's always runs, so that the objects are the
// watchers' and stay current between lists.
func (s *Store) ListCached(ctx context.Context, ns string, opts ListOptions) (*ListResult, error) {
	s.cacher.keepRunning()
	return s.ListShared(ctx, ns, opts)
}
