package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/handoff"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
)

// bookmarkInterval is how often a watch that allows bookmarks gets one.
const bookmarkInterval = time.Minute

// watchEvent is one line of a watch stream.
type watchEvent struct {
	Type   api.WatchEventType `json:"type"`
	Object any                `json:"object"`
}

// watch streams events: 200, chunked, one JSON event per line, flushed
// after each, until the client goes, timeoutSeconds pass, or the watch
// fails (its last event is then an ERROR carrying a Status).
func (c *requestContext) watch() error {
	opts, err := c.listOptions()
	if err != nil {
		return err
	}
	out, err := c.negotiate()
	if err != nil {
		return err
	}
	q := c.r.URL.Query()
	ctx := c.ctx()
	if s := q.Get("timeoutSeconds"); s != "" {
		secs, err := strconv.ParseInt(s, 10, 64)
		if err != nil || secs < 0 {
			return api.NewBadRequest(fmt.Sprintf("invalid timeoutSeconds: %q", s))
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(secs)*time.Second)
		defer cancel()
	}
	bookmarks := opts.AllowWatchBookmarks
	if c.name != "" {
		// A watch on a named object is a watch with a name field selector.
		opts.Fields = nameSelector(c.name, opts.Fields)
	}
	events, err := c.st.Watch(ctx, c.ns, opts)
	if err != nil {
		return err
	}
	enc := newWatchEncoder(c.w, out)
	// An in-process client that asked for JSON takes the events as
	// objects instead (package handoff): everything above — the filters,
	// authorization, audit, the options — was the same as for any client.
	hw := handoff.FromContext(c.r.Context())
	if hw != nil && (out != asObject || !hw.Claim()) {
		hw = nil
	}
	if hw != nil {
		defer hw.Close()
		enc.handoff = hw
	}
	c.w.Header().Set("Content-Type", enc.contentType())
	c.w.Header().Set("Cache-Control", "no-cache, private")
	c.w.WriteHeader(http.StatusOK)
	enc.flush()
	first := true
	lastRV := opts.ResourceVersion
	var tick <-chan time.Time
	if bookmarks {
		t := c.h.Clock.NewTimer(bookmarkInterval)
		defer t.Stop()
		tick = t.C()
	}
	for {
		var ev registry.WatchEvent
		var ok bool
		select {
		case ev, ok = <-events:
			if !ok {
				return nil
			}
		case <-tick:
			t := c.h.Clock.NewTimer(bookmarkInterval)
			defer t.Stop()
			tick = t.C()
			if lastRV == "" || lastRV == "0" {
				continue
			}
			var bm api.Object = c.res.New()
			bm.GetObjectKind().SetGroupVersionKind(c.res.GroupVersionKind())
			api.Meta(bm).ResourceVersion = lastRV
			if out.as == toPartialObjectMetadata {
				bm = partialObjectMetadata(bm, out.metaVersion)
			}
			if err := enc.send(ctx, watchEvent{Type: api.WatchEventType("BOOKMARK"), Object: bm}); err != nil {
				return nil
			}
			c.h.Metrics.WatchEvent(c.res.Group, c.res.Version, c.res.Name)
			continue
		case <-ctx.Done():
			return nil
		}
		var obj any = ev.Object
		if out == asObject && (hw == nil || !hw.Accepts(ev.Object)) {
			if raw := ev.Raw(); raw != nil {
				obj = raw
			}
		}
		if ev.Err != nil {
			obj = responsewriters.ErrorStatus(ev.Err)
		} else {
			lastRV = api.Meta(ev.Object).ResourceVersion
			// A bookmark (the end of a watch-list's initial events)
			// carries only a resourceVersion: it is sent as it is.
			if out.as == toPartialObjectMetadata {
				// Every event's object, bookmarks included, as its
				// metadata: what a metadata informer keeps.
				obj = partialObjectMetadata(ev.Object, out.metaVersion)
			}
			if out == asTable && ev.Type != api.WatchEventBookmark {
				t, err := c.table([]api.Object{ev.Object}, "", "")
				if err != nil {
					return nil
				}
				if !first {
					// Columns are sent once, with the first event, as
					// Kubernetes does; kubectl prints the header once.
					t.ColumnDefinitions = nil
				}
				obj = t
				first = false
			}
		}
		if err := enc.send(ctx, watchEvent{Type: ev.Type, Object: obj}); err != nil {
			return nil
		}
		c.h.Metrics.WatchEvent(c.res.Group, c.res.Version, c.res.Name)
	}
}
