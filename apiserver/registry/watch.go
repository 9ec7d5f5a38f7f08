package registry

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/store"
)

// WatchEvent is one event of a watch, as the API server streams it.
type WatchEvent struct {
	// Type is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.
	Type api.WatchEventType
	// Object is the object; for ERROR, Err says what went wrong instead.
	Object api.Object
	// Raw, when set, is Object already encoded as JSON (shared by every
	// watcher of the event; do not modify).
	Raw json.RawMessage
	Err error
}

// Watch streams the changes of the objects of ns that match opts. With
// ResourceVersion "" or "0" it first sends every matching object as ADDED.
// The returned channel closes when ctx ends or the watch fails; a failure
// (such as a too-old resourceVersion) arrives as one ERROR event first.
func (s *Store) Watch(ctx context.Context, ns string, opts ListOptions) (<-chan WatchEvent, error) {
	var initial []api.Object
	var from int64
	if opts.ResourceVersion == "" || opts.ResourceVersion == "0" {
		list, err := s.List(ctx, ns, ListOptions{Labels: opts.Labels, Fields: opts.Fields})
		if err != nil {
			return nil, err
		}
		initial = list.Items
		from, _ = strconv.ParseInt(list.ResourceVersion, 10, 64)
	} else {
		rv, err := strconv.ParseInt(opts.ResourceVersion, 10, 64)
		if err != nil || rv < 0 {
			return nil, api.NewBadRequest("invalid resource version: " + strconv.Quote(opts.ResourceVersion))
		}
		from = rv
	}
	if ch, ok := s.cacher.watch(ctx, ns, opts, initial, from); ok {
		return ch, nil
	}
	w, err := s.storage.Watch(ctx, s.prefix(ns), from)
	if err != nil {
		if store.IsExpired(err) {
			// Not a failed request: the watch starts and its first event
			// says "expired", which is what clients expect.
			out := make(chan WatchEvent, 1)
			out <- WatchEvent{Type: api.WatchEventError, Err: api.NewResourceExpired(
				"too old resource version: " + opts.ResourceVersion + " (" + strconv.FormatInt(s.storage.Revision(), 10) + ")")}
			close(out)
			return out, nil
		}
		return nil, s.storeError(err, "")
	}
	out := make(chan WatchEvent, 16)
	go s.pump(ctx, w, initial, opts, out)
	return out, nil
}

// pump decodes store events into API events, applying the selectors. An
// update that makes an object start or stop matching is sent as ADDED or
// DELETED, as Kubernetes' watch cache does.
func (s *Store) pump(ctx context.Context, w store.Watcher, initial []api.Object, opts ListOptions, out chan<- WatchEvent) {
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
	for _, obj := range initial {
		if !send(WatchEvent{Type: api.WatchEventAdded, Object: obj}) {
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
		obj, err := s.decode(ev.Value, ev.Revision)
		if err != nil {
			send(WatchEvent{Type: api.WatchEventError, Err: err})
			return
		}
		matches := s.Matches(obj, opts)
		var typ api.WatchEventType
		switch ev.Type {
		case store.Added:
			if !matches {
				continue
			}
			typ = api.WatchEventAdded
		case store.Deleted:
			if !matches {
				continue
			}
			typ = api.WatchEventDeleted
		case store.Modified:
			prevMatched := true
			if needsPrev(opts) {
				prev, err := s.decode(ev.PrevValue, ev.Revision)
				prevMatched = err == nil && s.Matches(prev, opts)
			}
			switch {
			case matches && prevMatched:
				typ = api.WatchEventModified
			case matches:
				typ = api.WatchEventAdded
			case prevMatched:
				typ = api.WatchEventDeleted
			default:
				continue
			}
		}
		if !send(WatchEvent{Type: typ, Object: obj}) {
			return
		}
	}
}

func needsPrev(opts ListOptions) bool {
	return (opts.Labels != nil && !opts.Labels.Empty()) || (opts.Fields != nil && !opts.Fields.Empty())
}
