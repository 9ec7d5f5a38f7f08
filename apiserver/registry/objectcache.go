package registry

import (
	"sync"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/store"
)

// objectCache is the watch cache's store of decoded objects: for each key,
// the latest object the shared stream delivered (the very pointer handed
// to every watcher, and through api/handoff to in-process informers) or a
// list decoded, with its modRevision. A list reads its page from the store
// as before (keys, revisions, continue and resourceVersion semantics all
// the store's) and takes an object from here instead of decoding the
// stored bytes whenever the key's modRevision is the one cached: a stored
// value never changes at a given modRevision, so the object is the one
// decoding would give, and a stale entry is never served, only not used.
// Kubernetes' cacher goes further and serves whole lists from its store
// (ConsistentListFromCache, 1.31), which needs etcd's progress
// notifications to know it is current; bbolt reads are cheap (memory
// mapped), decoding is not (85 % of a Table page of pods), so only the
// decoding is cached. Objects are shared and immutable: a list's caller
// reads them and never changes them (the Table printer, ListCached).
type objectCache struct {
	mu sync.RWMutex
	// live: the stream runs and keeps entries current; otherwise nothing
	// is kept.
	live bool
	// applied is the revision of the last event applied (the stream's
	// start at first): a list read before it may hold objects older than
	// entries already replaced or deleted, so it adds nothing.
	applied int64
	objs    map[string]cachedObject
}

type cachedObject struct {
	obj api.Object
	rev int64
}

// reset empties the cache; live makes it live from a stream started at
// revision from, else it keeps nothing.
func (c *objectCache) reset(live bool, from int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.objs, c.applied, c.live = nil, from, live
	if live {
		c.objs = map[string]cachedObject{}
	}
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
	c.objs[key] = cachedObject{obj: obj, rev: rev}
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

// decoded is an object a list decoded, at modRevision rev.
type decoded struct {
	key string
	obj api.Object
	rev int64
}

// add remembers objects a list read at store revision read decoded,
// unless the stream already applied a later change (the list may then be
// older than the cache) or holds something newer for the key.
func (c *objectCache) add(objs []decoded, read int64) {
	if len(objs) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || c.applied > read {
		return
	}
	for _, d := range objs {
		if cur, ok := c.objs[d.key]; ok && cur.rev >= d.rev {
			continue
		}
		c.objs[d.key] = cachedObject{obj: d.obj, rev: d.rev}
	}
}
