package cache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
)

// Handler reacts to changes in the cache. Any func may be nil.
type Handler[T api.Object] struct {
	OnAdd    func(obj T)
	OnUpdate func(old, new T)
	OnDelete func(obj T)
}

// IndexFunc returns the index values of an object (its node name, its
// owners' uids...).
type IndexFunc[T api.Object] func(obj T) []string

// The indexes every informer has.
const (
	// NamespaceIndex indexes objects by namespace.
	NamespaceIndex = "namespace"
	// LabelIndex indexes objects by each "key=value" label pair.
	LabelIndex = "label"
	// OwnerIndex indexes objects by the uid of each owner reference.
	OwnerIndex = "owner"
)

// Key is the cache key of an object: namespace/name, or name.
func Key(m *metav1.ObjectMeta) string {
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
}

// Informer caches one resource (in one namespace, or all) and tells
// handlers what changed.
type Informer[T api.Object] struct {
	res    *client.Resource[T]
	ns     string
	opts   client.ListOptions
	logger *slog.Logger

	// detector, when set, remembers a copy of every object the cache
	// hands out, to catch a component changing a shared object.
	detector *MutationDetector

	// runMu guards the runners of a shared informer: the first Run starts
	// the list and watch, the last one to stop ends them.
	runMu    sync.Mutex
	runners  int
	stopLoop context.CancelFunc
	loopDone chan struct{}

	mu       sync.RWMutex
	items    map[string]T
	indexers map[string]IndexFunc[T]
	indices  map[string]map[string]map[string]struct{}
	handlers []Handler[T]
	synced   bool
	lastRV   string

	// changes, when set (step mode), counts the writes that could change
	// what a list returns; listedAt is its value before the last list.
	changes  func() (uint64, bool)
	listedAt uint64
	listed   bool
}

// New returns an informer of res in namespace ns ("" for all), narrowed by
// the selectors of opts.
func New[T api.Object](res *client.Resource[T], ns string, opts client.ListOptions, logger *slog.Logger) *Informer[T] {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Informer[T]{res: res, ns: ns, opts: opts, logger: logger, items: map[string]T{},
		indexers: map[string]IndexFunc[T]{}, indices: map[string]map[string]map[string]struct{}{}}
}

// builtinIndexer is the function of one of the indexes every informer
// answers (NamespaceIndex, LabelIndex, OwnerIndex). Each is built the
// first time ByIndex asks for it: most informers are never asked (a
// kubelet's pods, the scheduler's, the garbage collector's metadata), and
// an index costs a map entry per object and value.
func builtinIndexer[T api.Object](name string) IndexFunc[T] {
	switch name {
	case NamespaceIndex:
		return func(o T) []string { return []string{api.Meta(o).Namespace} }
	case LabelIndex:
		return func(o T) []string {
			var out []string
			for k, v := range api.Meta(o).Labels {
				out = append(out, k+"="+v)
			}
			return out
		}
	case OwnerIndex:
		return func(o T) []string {
			var out []string
			for _, ref := range api.Meta(o).OwnerReferences {
				out = append(out, string(ref.UID))
			}
			return out
		}
	}
	return nil
}

// AddIndexer adds an index; call before Run or Sync. An index name means
// one function: on an informer shared by several controllers, the first
// function added under a name is kept (name indexes after what they
// compute, so that two meanings never share a name).
func (inf *Informer[T]) AddIndexer(name string, fn IndexFunc[T]) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if _, ok := inf.indexers[name]; ok {
		return
	}
	inf.indexers[name] = fn
	inf.indices[name] = map[string]map[string]struct{}{}
	for k, obj := range inf.items {
		inf.indexLocked(name, fn, k, obj)
	}
}

// AddHandler registers h. A handler added to an informer that has
// already synced (a shared informer, when a controller is switched back
// on in a running cluster) is first told of every object in the cache as
// an add, as client-go's AddEventHandler does, so that it starts from
// the same picture as the handlers registered before Run.
func (inf *Informer[T]) AddHandler(h Handler[T]) {
	inf.mu.Lock()
	inf.handlers = append(inf.handlers, h)
	var replay []T
	if inf.synced && h.OnAdd != nil {
		replay = make([]T, 0, len(inf.items))
		for _, k := range slices.Sorted(maps.Keys(inf.items)) {
			replay = append(replay, inf.items[k])
		}
	}
	inf.mu.Unlock()
	for _, obj := range replay {
		h.OnAdd(obj)
	}
}

func (inf *Informer[T]) indexLocked(name string, fn IndexFunc[T], key string, obj T) {
	for _, v := range fn(obj) {
		set := inf.indices[name][v]
		if set == nil {
			set = map[string]struct{}{}
			inf.indices[name][v] = set
		}
		set[key] = struct{}{}
	}
}

func (inf *Informer[T]) unindexLocked(key string, obj T) {
	for name, fn := range inf.indexers {
		for _, v := range fn(obj) {
			if set := inf.indices[name][v]; set != nil {
				delete(set, key)
				if len(set) == 0 {
					delete(inf.indices[name], v)
				}
			}
		}
	}
}

// event is one change to apply to the cache.
type event[T api.Object] struct {
	typ api.WatchEventType
	obj T
}

// apply changes the cache and returns the handler calls to make, outside
// the lock.
func (inf *Informer[T]) apply(ev event[T]) func() {
	key := Key(api.Meta(ev.obj))
	inf.mu.Lock()
	old, had := inf.items[key]
	if had {
		inf.unindexLocked(key, old)
	}
	if api.Meta(ev.obj).ResourceVersion != "" {
		inf.lastRV = api.Meta(ev.obj).ResourceVersion
	}
	if ev.typ == api.WatchEventDeleted {
		delete(inf.items, key)
	} else {
		inf.detector.add(ev.obj)
		inf.items[key] = ev.obj
		for name, fn := range inf.indexers {
			inf.indexLocked(name, fn, key, ev.obj)
		}
	}
	handlers := inf.handlers
	inf.mu.Unlock()
	return func() {
		for _, h := range handlers {
			switch {
			case ev.typ == api.WatchEventDeleted:
				if had && h.OnDelete != nil {
					h.OnDelete(old)
				}
			case had:
				if h.OnUpdate != nil {
					h.OnUpdate(old, ev.obj)
				}
			default:
				if h.OnAdd != nil {
					h.OnAdd(ev.obj)
				}
			}
		}
	}
}

// replace makes the cache hold exactly items, telling handlers about the
// differences in key order (deterministic).
func (inf *Informer[T]) replace(items []T, rv string) {
	fresh := make(map[string]T, len(items))
	for _, it := range items {
		fresh[Key(api.Meta(it))] = it
	}
	inf.mu.RLock()
	keys := make([]string, 0, len(fresh)+len(inf.items))
	for k := range inf.items {
		if _, ok := fresh[k]; !ok {
			keys = append(keys, k)
		}
	}
	var events []event[T]
	for k, obj := range fresh {
		keys = append(keys, k)
		_ = obj
	}
	sort.Strings(keys)
	for _, k := range keys {
		obj, now := fresh[k]
		old, had := inf.items[k]
		switch {
		case now && had && api.Meta(old).ResourceVersion == api.Meta(obj).ResourceVersion:
			continue
		case now:
			events = append(events, event[T]{typ: api.WatchEventModified, obj: obj})
		default:
			events = append(events, event[T]{typ: api.WatchEventDeleted, obj: old})
		}
	}
	inf.mu.RUnlock()
	for _, ev := range events {
		inf.apply(ev)()
	}
	inf.mu.Lock()
	inf.synced = true
	inf.lastRV = rv
	inf.mu.Unlock()
}

// list reads every object (following continue tokens).
func (inf *Informer[T]) list(ctx context.Context) ([]T, string, error) {
	var all []T
	opts := inf.opts
	opts.ResourceVersion = ""
	for {
		l, err := inf.res.List(ctx, inf.ns, opts)
		if err != nil {
			return nil, "", err
		}
		all = append(all, l.Items...)
		if l.Continue == "" {
			return all, l.ResourceVersion, nil
		}
		opts.Continue = l.Continue
	}
}

// Sync lists the resource and applies the differences to the cache. Step
// mode calls it before every step instead of running a watch. With a
// change count (FactoryConfig.Changes) it lists only when the count moved
// since its last list: the same list at the same count is the same answer.
func (inf *Informer[T]) Sync(ctx context.Context) error {
	var count uint64
	known := false
	if inf.changes != nil {
		count, known = inf.changes()
	}
	inf.mu.RLock()
	fresh := known && inf.listed && inf.listedAt == count
	inf.mu.RUnlock()
	if fresh {
		return nil
	}
	if err := inf.relist(ctx); err != nil {
		return err
	}
	inf.mu.Lock()
	inf.listedAt, inf.listed = count, known
	inf.mu.Unlock()
	return nil
}

// relist lists the resource and applies the differences to the cache.
func (inf *Informer[T]) relist(ctx context.Context) error {
	items, rv, err := inf.list(ctx)
	if err != nil {
		return err
	}
	inf.replace(items, rv)
	return nil
}

// Run lists, then watches from the list's resourceVersion until ctx ends,
// listing again whenever the watch reports 410 Expired. An informer shared
// by several controllers (Factory) is run by each of them: the first Run
// starts the list and watch, the others join it, and it stops when the
// last of them returns (a controller switched off, or one that lost its
// leader election, does not stop the others' cache).
func (inf *Informer[T]) Run(ctx context.Context) {
	done := inf.join(ctx)
	<-ctx.Done()
	if inf.leave() {
		<-done
	}
}

// Start is Run that returns at once: it joins the list and watch loop
// (starting it if it is the first) and leaves it when ctx ends. A
// controller's sources start this way, so that the thousand kubelets of
// a large run joining the Services and ConfigMaps informers they share do
// not each keep a goroutine waiting for the end.
func (inf *Informer[T]) Start(ctx context.Context) {
	inf.join(ctx)
	context.AfterFunc(ctx, func() { inf.leave() })
}

// join counts one more runner, starting the loop for the first; it
// returns the channel closed when the loop has stopped.
func (inf *Informer[T]) join(ctx context.Context) <-chan struct{} {
	inf.runMu.Lock()
	defer inf.runMu.Unlock()
	inf.runners++
	if inf.runners == 1 {
		loopCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan struct{})
		inf.stopLoop, inf.loopDone = cancel, done
		go func() {
			defer close(done)
			inf.run(loopCtx)
		}()
	}
	return inf.loopDone
}

// leave counts one runner fewer and stops the loop after the last,
// reporting whether it was the last.
func (inf *Informer[T]) leave() bool {
	inf.runMu.Lock()
	defer inf.runMu.Unlock()
	inf.runners--
	last := inf.runners == 0
	if last {
		inf.stopLoop()
	}
	return last
}

// run is the list and watch loop of Run.
func (inf *Informer[T]) run(ctx context.Context) {
	backoff := 50 * time.Millisecond
	needList := true
	for ctx.Err() == nil {
		var w *client.Watch[T]
		if needList && inf.HasSynced() {
			// A relist: a watch-list (below), or a list if it fails.
			var err error
			if w, err = inf.watchList(ctx); err != nil {
				if ctx.Err() != nil {
					return
				}
				inf.logger.Debug("watch-list failed; listing", "resource", inf.res.Info().Resource, "err", err)
			} else {
				needList = false
			}
		}
		if needList {
			if err := inf.relist(ctx); err != nil {
				if ctx.Err() != nil {
					return
				}
				inf.logger.Warn("list failed", "resource", inf.res.Info().Resource, "err", err)
				sleep(ctx, backoff)
				backoff = min(2*backoff, 5*time.Second)
				continue
			}
			needList = false
		}
		backoff = 50 * time.Millisecond
		if w == nil {
			opts := inf.opts
			opts.ResourceVersion = inf.LastResourceVersion()
			opts.AllowWatchBookmarks = true
			var err error
			if w, err = inf.res.Watch(ctx, inf.ns, opts); err != nil {
				if ctx.Err() != nil {
					return
				}
				needList = api.IsResourceExpired(err) || api.IsGone(err)
				inf.logger.Warn("watch failed", "resource", inf.res.Info().Resource, "err", err)
				sleep(ctx, backoff)
				continue
			}
		}
		for ev := range w.Events() {
			switch ev.Type {
			case api.WatchEventBookmark:
				inf.mu.Lock()
				inf.lastRV = api.Meta(ev.Object).ResourceVersion
				inf.mu.Unlock()
			case api.WatchEventError:
				// Handled after the stream ends, from w.Err().
			default:
				inf.apply(event[T]{typ: ev.Type, obj: ev.Object})()
			}
		}
		err := w.Err()
		w.Stop()
		if err != nil && (api.IsResourceExpired(err) || api.IsGone(err)) {
			// The window moved past us: list again (the client-go
			// reflector's "relist").
			needList = true
		} else if err != nil && !errors.Is(err, context.Canceled) {
			inf.logger.Warn("watch ended", "resource", inf.res.Info().Resource, "err", err)
			sleep(ctx, backoff)
		}
	}
}

// initialEventsEnd annotates the BOOKMARK that ends a watch-list's initial
// events (metav1.InitialEventsAnnotationKey).
const initialEventsEnd = "k8s.io/initial-events-end"

// watchList is a relist as client-go's reflector does it with its
// WatchListClient feature: one watch that starts with every object as
// ADDED, up to a BOOKMARK annotated k8s.io/initial-events-end, which the
// informer applies as a list (replace) before going on with the same
// watch. It returns that watch, positioned after the bookmark.
//
// Why not a list: at 100,000 pods on 5,000 nodes the
// scheduler's pod watch fell behind during the creation burst and was
// ended ("expired"); its list of tens of thousands of pods was read from
// the store, encoded and decoded again, its objects were private copies
// of what the watch cache holds, and by the time it was applied the
// window of recent events had moved past the list's revision, so the
// watch after it could not join the shared stream. A watch-list is served
// from the watch cache's objects (handed over in process, shared) and
// joins the shared stream at the revision of its initial state.
func (inf *Informer[T]) watchList(ctx context.Context) (*client.Watch[T], error) {
	opts := inf.opts
	opts.ResourceVersion = ""
	opts.SendInitialEvents = true
	opts.AllowWatchBookmarks = true
	w, err := inf.res.Watch(ctx, inf.ns, opts)
	if err != nil {
		return nil, err
	}
	var items []T
	for ev := range w.Events() {
		switch ev.Type {
		case api.WatchEventAdded:
			items = append(items, ev.Object)
		case api.WatchEventBookmark:
			if m := api.Meta(ev.Object); m.Annotations[initialEventsEnd] == "true" {
				inf.replace(items, m.ResourceVersion)
				return w, nil
			}
		case api.WatchEventError:
			// Handled after the stream ends, from w.Err().
		default:
			w.Stop()
			return nil, fmt.Errorf("watch-list sent %s before the end of its initial events", ev.Type)
		}
	}
	err = w.Err()
	w.Stop()
	if err == nil {
		err = errors.New("watch-list ended before the end of its initial events")
	}
	return nil, err
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// HasSynced reports whether the first list has been applied.
func (inf *Informer[T]) HasSynced() bool {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	return inf.synced
}

// LastResourceVersion is the version the cache is at.
func (inf *Informer[T]) LastResourceVersion() string {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	return inf.lastRV
}

// Get returns the cached object ns/name (shared: copy before changing).
func (inf *Informer[T]) Get(ns, name string) (T, bool) {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	key := name
	if ns != "" {
		key = ns + "/" + name
	}
	obj, ok := inf.items[key]
	return obj, ok
}

// List returns every cached object, in key order.
func (inf *Informer[T]) List() []T {
	inf.mu.RLock()
	defer inf.mu.RUnlock()
	keys := slices.Sorted(maps.Keys(inf.items))
	out := make([]T, len(keys))
	for i, k := range keys {
		out[i] = inf.items[k]
	}
	return out
}

// ByIndex returns the cached objects whose index has value, in key order.
// A built-in index (NamespaceIndex, LabelIndex, OwnerIndex) is built on
// its first use.
func (inf *Informer[T]) ByIndex(index, value string) []T {
	inf.mu.RLock()
	if _, ok := inf.indexers[index]; !ok {
		if fn := builtinIndexer[T](index); fn != nil {
			inf.mu.RUnlock()
			inf.AddIndexer(index, fn)
			inf.mu.RLock()
		}
	}
	defer inf.mu.RUnlock()
	set := inf.indices[index][value]
	keys := slices.Sorted(maps.Keys(set))
	out := make([]T, len(keys))
	for i, k := range keys {
		out[i] = inf.items[k]
	}
	return out
}
