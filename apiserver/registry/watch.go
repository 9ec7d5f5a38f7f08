package registry

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/store"
)

// WatchEvent is one event of a watch, as the API server streams it.
type WatchEvent struct {
	// Type is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.
	Type api.WatchEventType
	// Object is the object; for ERROR, Err says what went wrong instead.
	Object api.Object
	Err    error
	// json is Object's JSON as stored, shared by every watcher of the
	// event (nil: none); Raw makes it.
	json *eventJSON
	// rev is the revision of the change (0 for the initial events and
	// bookmarks): how a watch-list drops the changes its list already
	// holds (cacher.watchList).
	rev int64
}

// Raw is Object already encoded as JSON, or nil when the event has no
// such encoding: made once for every watcher of the event, the first
// time one asks (do not modify it).
func (e WatchEvent) Raw() json.RawMessage {
	if e.json == nil {
		return nil
	}
	return e.json.get()
}

// eventJSON is a stored object's JSON for a watcher that writes it as it
// is, made on first use: the stored bytes with the resourceVersion spliced
// in (spliceResourceVersion). In-process watchers take the decoded object
// (api/handoff) and never ask, so an event seen only by them makes no copy
// of its bytes, and the watch cache's window keeps the bytes the store
// already holds for the write rather than a second, spliced, copy.
type eventJSON struct {
	once  sync.Once
	value []byte // the stored bytes, until made into raw
	rev   int64
	gv    string // the apiVersion the object is served at
	raw   []byte
}

func (j *eventJSON) get() []byte {
	j.once.Do(func() {
		j.raw, _ = spliceResourceVersion(j.value, j.rev, j.gv)
		j.value = nil
	})
	return j.raw
}

// Watch streams the changes of the objects of ns that match opts.
//
// What comes first depends on opts, as in Kubernetes: with
// SendInitialEvents true (a watch-list), or unset with ResourceVersion ""
// or "0", every matching object as ADDED, then, for a watch-list that
// allows bookmarks, a BOOKMARK annotated k8s.io/initial-events-end at the
// revision of that state. Then the changes after it, or after
// ResourceVersion N. A revision the store has not reached is waited for a
// little. The returned channel closes when ctx ends or the watch fails; a
// failure (a too-old or too-new resourceVersion, a watcher too slow to
// keep up) arrives as one ERROR event first.
func (s *Store) Watch(ctx context.Context, ns string, opts ListOptions) (<-chan WatchEvent, error) {
	rv, err := ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	if rv > 0 {
		if err := s.waitForRevision(ctx, rv); err != nil {
			// Past validation, the watch cache answers with an ERROR
			// event rather than a failed request.
			return errorStream(err), nil
		}
	}
	filter := watchFilter{ns: ns, opts: opts}
	var start []WatchEvent
	from := rv
	switch {
	case initialEvents(opts, rv):
		// The watcher joins the shared stream before the list is read,
		// so that no change falls between the two (cacher.watchList).
		ch, ok, err := s.cacher.watchList(ctx, filter, func() (int64, []WatchEvent, error) {
			return s.readInitialEvents(ctx, ns, opts)
		})
		if ok || err != nil {
			return ch, err
		}
		// The stream cannot start (the store refused its watch): the
		// list, then a watch of its own from the list's revision.
		if from, start, err = s.readInitialEvents(ctx, ns, opts); err != nil {
			return nil, err
		}
	case rv == 0:
		// From now: the changes after the current revision.
		from = s.storage.Revision()
	}
	if ch, ok := s.cacher.watch(ctx, filter, start, from); ok {
		return ch, nil
	}
	w, err := s.storage.Watch(ctx, s.prefix(ns), from)
	if err != nil {
		if store.IsExpired(err) {
			// Not a failed request: the watch starts and its first event
			// says "expired", which is what clients expect.
			return errorStream(api.NewResourceExpired(
				"too old resource version: " + opts.ResourceVersion + " (" + strconv.FormatInt(s.storage.Revision(), 10) + ")")), nil
		}
		return nil, s.storeError(err, "")
	}
	out := make(chan WatchEvent, 16)
	go s.pump(ctx, w, filter, start, out)
	return out, nil
}

// readInitialEvents reads the current state of what a watch selects, as
// its first events: every object as ADDED, then, for a watch-list that
// allows bookmarks, the bookmark that ends them; and the revision of that
// state. The objects are the ones the watch cache holds (shared, as its
// events' are): an informer's relist is a watch-list (client/cache), and at
// 100,000 pods decoding each again would be a private copy of every one,
// held by that informer.
func (s *Store) readInitialEvents(ctx context.Context, ns string, opts ListOptions) (int64, []WatchEvent, error) {
	list, err := s.ListShared(ctx, ns, ListOptions{Labels: opts.Labels, Fields: opts.Fields})
	if err != nil {
		return 0, nil, err
	}
	start := make([]WatchEvent, 0, len(list.Items)+1)
	for _, obj := range list.Items {
		start = append(start, WatchEvent{Type: api.WatchEventAdded, Object: obj})
	}
	if opts.SendInitialEvents != nil && opts.AllowWatchBookmarks {
		start = append(start, WatchEvent{Type: api.WatchEventBookmark, Object: s.initialEventsEnd(list.ResourceVersion)})
	}
	rev, err := strconv.ParseInt(list.ResourceVersion, 10, 64)
	return rev, start, err
}

// initialEvents reports whether a watch starts with the current state:
// asked for with SendInitialEvents, or, when that is unset, implied by a
// resourceVersion of "" or "0" (the legacy behaviour).
func initialEvents(opts ListOptions, rv int64) bool {
	if opts.SendInitialEvents != nil {
		return *opts.SendInitialEvents
	}
	return rv == 0
}

// initialEventsEnd is the bookmark that ends a watch-list's initial events:
// an object of the resource's kind with only its resourceVersion and the
// k8s.io/initial-events-end annotation, as the watch cache sends it.
func (s *Store) initialEventsEnd(rv string) api.Object {
	obj := s.res.New()
	s.setTypeMeta(obj)
	meta := api.Meta(obj)
	meta.ResourceVersion = rv
	meta.Annotations = map[string]string{InitialEventsAnnotationKey: "true"}
	return obj
}

// errorStream is a watch whose only event is the ERROR err.
func errorStream(err error) <-chan WatchEvent {
	out := make(chan WatchEvent, 1)
	out <- WatchEvent{Type: api.WatchEventError, Err: err}
	close(out)
	return out
}

// pump serves a watch the cacher could not take (it started before the
// cacher's window) from a store watch of its own: the same decoding and
// the same delivery (watchFilter.event) as the cacher, one watcher only.
func (s *Store) pump(ctx context.Context, w store.Watcher, filter watchFilter, start []WatchEvent, out chan<- WatchEvent) {
	defer close(out)
	defer w.Stop()
	send := func(ev WatchEvent) bool {
		select {
		case out <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for _, ev := range start {
		if !send(ev) {
			return
		}
	}
	for {
		var ev store.Event
		var ok bool
		select {
		case ev, ok = <-w.ResultChan():
		case <-ctx.Done():
			return
		}
		if !ok {
			if err := w.Err(); err != nil && !errors.Is(err, store.ErrClosed) {
				send(WatchEvent{Type: api.WatchEventError, Err: s.storeError(err, "")})
			}
			return
		}
		if skipDamaged(ev) {
			continue
		}
		ce, err := s.decodeEvent(ev)
		if err != nil {
			send(WatchEvent{Type: api.WatchEventError, Err: err})
			return
		}
		if wev, ok := filter.event(&ce); ok && !send(wev) {
			return
		}
	}
}
