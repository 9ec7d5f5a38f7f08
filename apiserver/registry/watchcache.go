package registry

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/store"
)

// The watch cache of one Store. With a watch per client, every event would
// be decoded once per watcher: a thousand kubelets each watching "pods on
// my node" would decode every pod change a thousand times. The cacher
// instead keeps one store watch over all namespaces, decodes each event
// once, and hands it only to the watchers it can concern: watchers that
// select on an exact field value (spec.nodeName=node-7, metadata.name=web)
// are indexed by that value. This is Kubernetes' Cacher with its "indexed
// triggers" (k8s.io/apiserver/pkg/storage/cacher), much simplified: it keeps
// a window of recent decoded events so that a watch starting a little in
// the past can join the shared stream, and the latest decoded object of
// every key it has seen (objects), which lists use instead of decoding the
// stored bytes again (see objectCache).

// cacheWindow is how many decoded events the cacher keeps for joiners.
// A watcher may hold cacheBuffer undelivered events (indexedBuffer when it
// selects an exact field value, and so sees few) before it is ended with
// "expired" and its client lists again: controllers that watch everything
// get room for bursts. These are bounds, not allocations: a watcher's
// queue grows only as events actually wait (see cacheWatcher), so five
// thousand kubelets that keep up hold almost nothing. They are bounds on
// memory too: each waiting event holds its version of the object and its
// JSON (~6 KB for a pod), so a larger bound lets a slow watcher hold
// hundreds of MB (a bound of 65,536, tried at 100,000 pods, did). A
// watcher ended as too slow relists with a watch-list, served from the
// cache (client/cache).
const (
	cacheWindow   = 4096
	cacheBuffer   = 8192
	indexedBuffer = 256
)

// cachedEvent is a store event decoded once for every watcher.
type cachedEvent struct {
	typ store.EventType
	rev int64
	ns  string
	obj api.Object
	// json is the object's JSON (stored bytes with the resourceVersion
	// spliced in), made once for every watcher that asks.
	json   *eventJSON
	fields fields.Set
	labels labels.Set
	// pfields and plabels are those of the object before a MODIFIED
	// event (an update can make an object stop matching). The object
	// itself is not kept: the window would hold it as long as the event.
	pfields fields.Set
	plabels labels.Set
}

// cacheWatcher is one watch served from the shared stream. The cacher
// never blocks on a watcher. While the client keeps up, an event goes
// straight into out, a channel of a few slots, as into any buffered
// channel; when out is full the event waits in the watcher's queue, which
// the watcher's own goroutine (serve) hands on to out in order. The queue
// grows only while events wait and is bounded by limit: a watcher with
// limit events unread (in out, in the queue, or in serve's hands) is
// ended with "expired", the same rule and the same count as a channel
// buffer of limit slots would give, without allocating the slots up
// front. (Kubernetes' cacheWatcher also has a small input channel and a
// goroutine; it ends a watcher that blocks the dispatch past a timeout,
// kubesim one that fills its bound, which does not depend on timing.)
type cacheWatcher struct {
	filter watchFilter
	from   int64
	// indexField and indexValue: the exact field value it is indexed
	// under (indexField "" when it is not).
	indexField, indexValue string
	done                   bool // under cacher.mu: ended, nothing more is queued
	// limit is how many unread events it may hold.
	limit int
	out   chan WatchEvent // what the client reads; outBuffer slots
	wake  chan struct{}   // one slot: "the queue changed"

	mu sync.Mutex // queue, head, sending, closed; sends to out by push
	// queue[head:] are the events waiting for room in out, oldest first.
	queue   []WatchEvent
	head    int
	sending bool // serve holds one event, waiting for room in out
	closed  bool // the queue ends after its last event (an ERROR, if any)
	// listing: a watch-list's list is being read (cacher.watchList);
	// the changes queue up and nothing is sent until its initial events
	// are in front of them.
	listing bool
}

// outBuffer is how many events a watcher's channel holds: the client of a
// watcher that keeps up reads them from there, as from any buffered
// channel, and the queue stays empty.
const outBuffer = 8

// pendingLocked is how many events the client has not read yet.
func (cw *cacheWatcher) pendingLocked() int {
	n := len(cw.out) + len(cw.queue) - cw.head
	if cw.sending {
		n++
	}
	return n
}

// push hands ev on: straight into out when nothing waits before it and
// out has room, else into the queue for serve. end (ev is then an ERROR,
// or nothing) ends the queue.
func (cw *cacheWatcher) push(ev WatchEvent, end bool) {
	cw.mu.Lock()
	if ev.Type != "" && !end && !cw.listing && cw.head == len(cw.queue) && !cw.sending {
		select {
		case cw.out <- ev:
			cw.mu.Unlock()
			return
		default:
		}
	}
	if len(cw.queue) == cap(cw.queue) && cw.head > 0 {
		// Full, with room at the front: move the waiting events down
		// rather than grow, so the array stays near what waits.
		n := copy(cw.queue, cw.queue[cw.head:])
		clear(cw.queue[n:])
		cw.queue, cw.head = cw.queue[:n], 0
	}
	if ev.Type != "" {
		cw.queue = append(cw.queue, ev)
	}
	cw.closed = cw.closed || end
	cw.mu.Unlock()
	select {
	case cw.wake <- struct{}{}:
	default: // already woken
	}
}

// next takes the oldest waiting event for sending. It reports ok false
// when there is none, and end true when none will come.
func (cw *cacheWatcher) next() (ev WatchEvent, ok, end bool) {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	if cw.listing {
		return WatchEvent{}, false, false
	}
	if cw.head == len(cw.queue) {
		return WatchEvent{}, false, cw.closed
	}
	ev = cw.queue[cw.head]
	cw.queue[cw.head] = WatchEvent{} // the queue no longer keeps the object
	cw.head++
	if cw.head == len(cw.queue) {
		// Drained: keep a small array for the next wait, let a big
		// one (a burst, the initial events) go.
		if cap(cw.queue) > smallQueue {
			cw.queue = nil
		}
		cw.queue, cw.head = cw.queue[:0], 0
	}
	cw.sending = true
	return ev, true, false
}

func (cw *cacheWatcher) sent() {
	cw.mu.Lock()
	cw.sending = false
	cw.mu.Unlock()
}

// smallQueue is the largest queue array a drained watcher keeps.
const smallQueue = 16

type cacher struct {
	s *Store
	// buffer and indexedBuffer are cacheBuffer and indexedBuffer unless
	// Config.WatchBuffer says otherwise.
	buffer, indexedBuffer int
	// windowSize is cacheWindow (smaller in tests).
	windowSize int
	mu         sync.Mutex
	started    bool
	// stream is the shared store watch while started; gen counts streams
	// so that a stream stopped for lack of watchers cannot touch its
	// successor's state.
	stream   store.Watcher
	gen      int
	startRev int64
	// last is the revision of the last event the stream dispatched (its
	// start before the first): a watcher added now sees every change
	// after it.
	last   int64
	window []cachedEvent
	all    map[*cacheWatcher]struct{}
	// byField indexes watchers by their exact-match field selector:
	// field name → value → watchers.
	byField map[string]map[string]map[*cacheWatcher]struct{}
	plain   map[*cacheWatcher]struct{}
	// listing admits concurrentInitialLists watch-list reads at a time.
	listing chan struct{}
	// resumed counts the times the stream resumed after the store ended
	// it as too slow (follow).
	resumed int
	// keep: a list asked for the cache (ListCached): the stream runs on
	// when the last watcher leaves, as kube-apiserver's cacher always
	// runs.
	keep bool
	// objects is the decoded object of every key, kept while the stream
	// runs: the objects its events carry, which are the ones the
	// watchers (and in-process informers) hold, so keeping them costs
	// only the map's entries. It is the Store's one object cache
	// (GetShared and ListShared read it too).
	objects objectCache
}

func newCacher(s *Store) *cacher {
	return &cacher{s: s, buffer: cacheBuffer, indexedBuffer: indexedBuffer, windowSize: cacheWindow, listing: make(chan struct{}, concurrentInitialLists), all: map[*cacheWatcher]struct{}{}, plain: map[*cacheWatcher]struct{}{},
		byField: map[string]map[string]map[*cacheWatcher]struct{}{}}
}

// watch joins the shared stream from revision from, after the events of
// start (the initial state of the watch). It reports false when it cannot
// (the revision is older than what the cacher holds): the caller then
// falls back to a watch of its own on the store.
func (c *cacher) watch(ctx context.Context, filter watchFilter, start []WatchEvent, from int64) (<-chan WatchEvent, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started && !c.startLocked(from) {
		return nil, false
	}
	oldest := c.startRev
	if len(c.window) > 0 {
		oldest = max(oldest, c.window[0].rev-1)
	}
	if from < oldest {
		return nil, false
	}
	buffer := c.buffer
	if exactFieldRequirement(filter.opts) {
		buffer = c.indexedBuffer
	}
	// The initial events are the queue's first content; they count
	// against the bound as they would fill a channel buffer.
	cw := &cacheWatcher{filter: filter, from: from, limit: len(start) + buffer, queue: start,
		out: make(chan WatchEvent, min(outBuffer, len(start)+buffer)), wake: make(chan struct{}, 1)}
	for i := range c.window {
		if ev := &c.window[i]; ev.rev > from {
			c.deliverLocked(cw, ev)
		}
	}
	if !cw.done {
		c.addLocked(cw)
	}
	go c.serve(ctx, cw)
	return cw.out, true
}

// watchList serves a watch that starts with the current state (a
// watch-list, or a watch from resourceVersion "" or "0"): list reads that
// state, its revision and its initial events. The watcher joins the shared
// stream first, at the last revision dispatched, and only then is the list
// read, at revision L ≥ that: the changes that come meanwhile wait in its
// queue, those the list already holds (revision ≤ L) are dropped, and the
// rest follow the initial events. Reading the list first and joining at L
// after it, as a plain list-then-watch does, leaves a gap: at 100,000 pods
// a relist took longer than the window of recent events lasted in a
// creation burst, so the watch could never join, and every relisting
// informer listed again and again, each holding a list, until the process
// ran out of memory (at 100,000 pods). Kubernetes' watch cache has no gap
// either: it serves a watch-list from its own store and registers the
// watcher in one step.
//
// It reports ok false when the stream cannot start (the store refuses the
// watch); then nothing is read.
func (c *cacher) watchList(ctx context.Context, filter watchFilter, list func() (int64, []WatchEvent, error)) (<-chan WatchEvent, bool, error) {
	c.mu.Lock()
	if !c.started && !c.startLocked(c.s.storage.Revision()) {
		c.mu.Unlock()
		return nil, false, nil
	}
	buffer := c.buffer
	if exactFieldRequirement(filter.opts) {
		buffer = c.indexedBuffer
	}
	// While the list is read the changes wait; a bound keeps a list that
	// never ends from holding them all (an event is a few words: the
	// objects are the stream's, shared).
	cw := &cacheWatcher{filter: filter, from: c.last, limit: listingBuffer * buffer, listing: true,
		out: make(chan WatchEvent, outBuffer), wake: make(chan struct{}, 1)}
	c.addLocked(cw)
	c.mu.Unlock()
	go c.serve(ctx, cw)

	var rev int64
	var start []WatchEvent
	var err error
	select {
	case c.listing <- struct{}{}:
		rev, start, err = list()
		<-c.listing
	case <-ctx.Done():
		err = ctx.Err()
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	cw.mu.Lock()
	if err != nil {
		cw.queue, cw.head, cw.listing = nil, 0, false
		cw.mu.Unlock()
		c.endLocked(cw, nil)
		return nil, true, err
	}
	// A change the list holds, or older, is not sent again, now or when
	// the stream gets to it.
	cw.from = max(cw.from, rev)
	if cw.done {
		// Ended while listing (too many changes waited, the stream
		// failed, the client left): only why is sent.
		cw.queue = slices.DeleteFunc(cw.queue, func(ev WatchEvent) bool { return ev.Type != api.WatchEventError })
	} else {
		waiting := slices.DeleteFunc(cw.queue[cw.head:], func(ev WatchEvent) bool { return ev.rev <= rev })
		cw.queue = append(start, waiting...)
		// The bound counts from here, as for any watch that starts
		// with its initial events.
		cw.limit = len(cw.queue) + buffer
	}
	cw.head, cw.listing = 0, false
	cw.mu.Unlock()
	select {
	case cw.wake <- struct{}{}:
	default:
	}
	return cw.out, true, nil
}

// listingBuffer is how many times its bound a watcher may hold while its
// watch-list's list is read.
const listingBuffer = 8

// concurrentInitialLists is how many watch-lists of one resource read
// their list at a time. Each read holds the whole list (every stored
// value under the prefix while it is scanned — a kubelet's list of "pods
// on my node" reads every pod to select its own); when every watcher of a
// resource was ended at once, 2,000 kubelets listing 20,000 pods side by
// side held more than the machine's 24 GB. The others wait
// their turn, already joined to the stream. kube-apiserver bounds the
// same storm with API Priority and Fairness, which charges a list by the
// objects it may read.
const concurrentInitialLists = 2

// serve hands a watcher's queue on to its client, one event at a time,
// until the queue ends (the watcher was ended: out closes after the last
// event) or ctx does (the client left: out closes at once).
func (c *cacher) serve(ctx context.Context, cw *cacheWatcher) {
	defer close(cw.out)
	for {
		ev, ok, end := cw.next()
		if end {
			return
		}
		if !ok {
			select {
			case <-cw.wake:
				continue
			case <-ctx.Done():
				c.end(cw)
				return
			}
		}
		select {
		case cw.out <- ev:
			cw.sent()
		case <-ctx.Done():
			c.end(cw)
			return
		}
	}
}

// end ends cw because its client left.
func (c *cacher) end(cw *cacheWatcher) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endLocked(cw, nil)
}

// startLocked starts the shared store watch from revision from.
func (c *cacher) startLocked(from int64) bool {
	w, err := c.s.storage.Watch(context.Background(), c.s.prefix(""), from)
	if err != nil {
		return false
	}
	c.gen++
	c.started, c.startRev, c.last, c.window, c.stream = true, from, from, nil, w
	c.objects.reset(true, from)
	go c.run(w, c.gen)
	return true
}

// keepRunning starts the shared stream if it is not running (from the
// store's current revision) and keeps it running without watchers, so
// that the object cache stays current for lists. When the store refuses
// the watch the cache is the reads' own (objectCache says how).
func (c *cacher) keepRunning() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keep = true
	if !c.started {
		c.startLocked(c.s.storage.Revision())
	}
}

// exactFieldRequirement reports whether opts select an exact field value,
// which is how the cacher indexes a watcher.
func exactFieldRequirement(opts ListOptions) bool {
	if opts.Fields == nil {
		return false
	}
	for _, req := range opts.Fields.Requirements() {
		if req.Operator == fields.Equals || req.Operator == fields.DoubleEquals {
			return true
		}
	}
	return false
}

func (c *cacher) addLocked(cw *cacheWatcher) {
	c.all[cw] = struct{}{}
	if sel := cw.filter.opts.Fields; sel != nil {
		for _, req := range sel.Requirements() {
			if req.Operator == fields.Equals || req.Operator == fields.DoubleEquals {
				idx := c.byField[req.Field]
				if idx == nil {
					idx = map[string]map[*cacheWatcher]struct{}{}
					c.byField[req.Field] = idx
				}
				if idx[req.Value] == nil {
					idx[req.Value] = map[*cacheWatcher]struct{}{}
				}
				idx[req.Value][cw] = struct{}{}
				cw.indexField, cw.indexValue = req.Field, req.Value
				return
			}
		}
	}
	c.plain[cw] = struct{}{}
}

// endLocked closes a watcher, first sending err (if any) as an ERROR event.
func (c *cacher) endLocked(cw *cacheWatcher, err error) {
	if cw.done {
		return
	}
	cw.done = true
	delete(c.all, cw)
	delete(c.plain, cw)
	if idx := c.byField[cw.indexField]; cw.indexField != "" && idx != nil {
		if set := idx[cw.indexValue]; set != nil {
			delete(set, cw)
			if len(set) == 0 {
				delete(idx, cw.indexValue)
			}
		}
	}
	// The ERROR goes past the bound: the client always learns why its
	// watch ended.
	var last WatchEvent
	if err != nil {
		last = WatchEvent{Type: api.WatchEventError, Err: err}
	}
	cw.push(last, true)
	if len(c.all) == 0 && c.stream != nil && !c.keep {
		// Nobody watches this resource any more (its CRD may be gone):
		// stop the shared stream; the next watch starts a new one.
		c.stream.Stop()
		c.gen++
		c.started, c.window, c.stream = false, nil, nil
		c.objects.reset(false, 0)
	}
}

// run decodes the shared store watch and dispatches its events.
func (c *cacher) run(w store.Watcher, gen int) {
	for {
		if w = c.follow(w, gen); w == nil {
			return
		}
	}
}

// follow dispatches w's events until it ends, and returns the store watch
// that takes over from it, or nil when the stream is over. When the store
// ended w because the cacher fell behind (its buffer in the store is
// small: a fraction of a second of a creation burst, and a starved
// goroutine on a loaded machine falls that far behind), the stream
// resumes after the last event it dispatched while the store's window
// still holds it: the watchers notice nothing. Ending every watcher
// instead sends every client of the resource — at 2,000 nodes, 2,000
// kubelets — to list it again at once, which at 20,000 pods took more
// memory than the machine had. etcd likewise catches a slow
// watcher up from its history rather than dropping it; Kubernetes' cacher
// only relists when that history is gone.
func (c *cacher) follow(w store.Watcher, gen int) store.Watcher {
	defer w.Stop()
	for ev := range w.ResultChan() {
		if skipDamaged(ev) {
			c.objects.apply(ev.Key, ev.Type, nil, ev.Revision)
			continue
		}
		ce, err := c.s.decodeEvent(ev)
		c.mu.Lock()
		if c.gen != gen {
			// This stream was stopped (no watcher left); a newer one runs.
			c.mu.Unlock()
			return nil
		}
		if err != nil {
			c.failLocked(err)
			c.mu.Unlock()
			return nil
		}
		c.objects.apply(ev.Key, ev.Type, ce.obj, ev.Revision)
		c.last = ev.Revision
		c.window = append(c.window, ce)
		if len(c.window) > c.windowSize {
			c.window = append(c.window[:0:0], c.window[len(c.window)-c.windowSize/2:]...)
		}
		c.dispatchLocked(&ce)
		c.mu.Unlock()
	}
	err := w.Err()
	if err == nil {
		err = store.ErrClosed
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return nil
	}
	if store.IsExpired(err) {
		if next, werr := c.s.storage.Watch(context.Background(), c.s.prefix(""), c.last); werr == nil {
			c.stream = next
			c.resumed++
			return next
		}
	}
	c.failLocked(err)
	return nil
}

// failLocked ends every watcher and lets the next watch start afresh.
func (c *cacher) failLocked(err error) {
	var apiErr error
	if !errors.Is(err, store.ErrClosed) {
		apiErr = c.s.storeError(err, "")
	}
	for cw := range c.all {
		c.endLocked(cw, apiErr)
	}
	c.started, c.window, c.stream = false, nil, nil
	c.objects.reset(false, 0)
}

// decodeEvent decodes a store event once, with what selectors need of the
// object before and after; the cacher and a fallback watch share it.
func (s *Store) decodeEvent(ev store.Event) (cachedEvent, error) {
	// The write itself may have decoded what it stored (decodeWritten):
	// that object is the event's alone from here on.
	obj := s.written.take(ev.Key, ev.Value)
	if obj != nil {
		api.Meta(obj).ResourceVersion = strconv.FormatInt(ev.Revision, 10)
	} else {
		decoded, err := s.decode(ev.Value, ev.Revision)
		if err != nil {
			return cachedEvent{}, err
		}
		// No write decoded it (a client out of the process sends JSON
		// and takes JSON back): the watch cache keeps this object until
		// the key's next write, so it keeps a copy with every slice its
		// exact length, as decodeWritten does, not the decoder's, grown
		// with room to spare.
		obj = api.DeepCopy(decoded)
	}
	ce := cachedEvent{typ: ev.Type, rev: ev.Revision, ns: api.Meta(obj).Namespace, obj: obj,
		fields: s.FieldSet(obj), labels: labels.Set(api.Meta(obj).Labels)}
	if len(ev.Value) > 0 {
		ce.json = &eventJSON{value: ev.Value, rev: ev.Revision, gv: s.apiVersion}
	}
	if ev.Type == store.Modified {
		// Only its fields and labels are read: an update that started
		// from the watch cache's object left it (written.go).
		prev := s.prevs.take(ev.Key, ev.PrevValue)
		if prev == nil {
			var err error
			if prev, err = s.decode(ev.PrevValue, ev.Revision); err != nil {
				return cachedEvent{}, err
			}
		}
		ce.pfields, ce.plabels = s.FieldSet(prev), labels.Set(api.Meta(prev).Labels)
	}
	return ce, nil
}

// dispatchLocked hands ev to the watchers it may concern: every plain
// watcher, and the indexed ones whose value the object has (now or before).
func (c *cacher) dispatchLocked(ev *cachedEvent) {
	for cw := range c.plain {
		c.deliverLocked(cw, ev)
	}
	for field, idx := range c.byField {
		seen := ""
		for _, set := range []fields.Set{ev.fields, ev.pfields} {
			if set == nil {
				continue
			}
			v, ok := set[field]
			if !ok || v == seen {
				continue
			}
			seen = v
			for cw := range idx[v] {
				c.deliverLocked(cw, ev)
			}
		}
	}
}

// watchFilter is what one watcher selects: a namespace ("" for all) and
// the selectors of its ListOptions.
type watchFilter struct {
	ns   string
	opts ListOptions
}

func (f watchFilter) matches(ns string, fs fields.Set, ls labels.Set) bool {
	if f.ns != "" && ns != f.ns {
		return false
	}
	if sel := f.opts.Labels; sel != nil && !sel.Empty() && !sel.Matches(ls) {
		return false
	}
	if sel := f.opts.Fields; sel != nil && !sel.Empty() && !sel.Matches(fs) {
		return false
	}
	return true
}

// event is what a watcher with this filter sees of ev, if anything: the
// one place where an update that makes an object start or stop matching
// becomes ADDED or DELETED, as Kubernetes' watch cache sends it. Both the
// cacher and a fallback watch deliver through it.
func (f watchFilter) event(ev *cachedEvent) (WatchEvent, bool) {
	now := f.matches(ev.ns, ev.fields, ev.labels)
	var typ api.WatchEventType
	switch {
	case ev.typ == store.Added && now:
		typ = api.WatchEventAdded
	case ev.typ == store.Deleted && now:
		typ = api.WatchEventDeleted
	case ev.typ == store.Modified:
		before := f.matches(ev.ns, ev.pfields, ev.plabels)
		switch {
		case now && before:
			typ = api.WatchEventModified
		case now:
			typ = api.WatchEventAdded
		case before:
			typ = api.WatchEventDeleted
		}
	}
	if typ == "" {
		return WatchEvent{}, false
	}
	return WatchEvent{Type: typ, Object: ev.obj, json: ev.json, rev: ev.rev}, true
}

// deliverLocked sends ev to one watcher, ending with "expired" a watcher
// whose buffer is full: it reads too slowly to keep up.
func (c *cacher) deliverLocked(cw *cacheWatcher, ev *cachedEvent) {
	if cw.done || ev.rev <= cw.from {
		return
	}
	wev, ok := cw.filter.event(ev)
	if !ok {
		return
	}
	// Events are queued only under c.mu, so what waits cannot grow
	// between this count and the push (it can only shrink, as the
	// client reads).
	cw.mu.Lock()
	full := cw.pendingLocked() >= cw.limit
	cw.mu.Unlock()
	if full {
		c.endLocked(cw, api.NewResourceExpired("the watcher fell too far behind and was closed; list again"))
		return
	}
	cw.push(wev, false)
}

// skipDamaged reports the deletion of a damaged record (a corrupt object,
// removed with ignoreStoreReadErrorWithClusterBreakingPotential): it has no
// value to show, and no watcher ever saw the object (lists leave it out),
// so there is nothing to tell them.
func skipDamaged(ev store.Event) bool {
	return ev.Type == store.Deleted && len(ev.Value) == 0
}
