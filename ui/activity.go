package ui

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/stepper"
)

// Activity hears the live components' writes (it is a
// cluster.WriteObserver: hand it to cluster.Config.OnWrite). Live mode
// has no trace, so this is how the row of loops lights up there — the
// writes are fanned out to the pages that follow them — and how "why does
// this exist?" answers: each write is recorded with the reconcile that
// made it (liveTrace). It records from the first login on: before any
// page was opened, a write costs nothing more.
type Activity struct {
	mu        sync.Mutex
	subs      map[chan activityEvent]struct{}
	recording atomic.Bool
	following atomic.Int32
	trace     *liveTrace
}

type activityEvent struct {
	Actor string `json:"actor"`
	Write write  `json:"write"`
}

// NewActivity returns a feed with no follower yet, not recording; c
// times the record.
func NewActivity(c clock.Clock) *Activity {
	return &Activity{subs: map[chan activityEvent]struct{}{}, trace: newLiveTrace(c)}
}

// Observing implements cluster.WriteObserver: once a page was opened.
func (a *Activity) Observing() bool { return a.recording.Load() || a.following.Load() > 0 }

// record starts recording (a page was opened).
func (a *Activity) record() { a.recording.Store(true) }

// ObserveWrite implements cluster.WriteObserver: it records the write
// with its reconcile and tells every follower of it; a follower that
// does not keep up loses events rather than slow the component down.
func (a *Activity) ObserveWrite(component string, r *controllers.Reconciling, w stepper.Write) {
	if a.recording.Load() {
		a.trace.add(component, r, w)
	}
	if a.following.Load() == 0 {
		return
	}
	ev := activityEvent{Actor: component, Write: write{Verb: w.Verb, Path: w.Path, Code: w.Code, RV: w.ResourceVersion, Name: w.Name, Text: w.String()}}
	a.mu.Lock()
	defer a.mu.Unlock()
	for ch := range a.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

func (a *Activity) follow() (chan activityEvent, func()) {
	ch := make(chan activityEvent, 256)
	a.mu.Lock()
	a.subs[ch] = struct{}{}
	a.following.Add(1)
	a.mu.Unlock()
	return ch, func() {
		a.mu.Lock()
		delete(a.subs, ch)
		a.following.Add(-1)
		a.mu.Unlock()
	}
}

// activity streams the feed, one JSON line per write of an object the
// user may get (mayGetCache), until the page goes away or the session
// ends.
func (s *Server) activity(w http.ResponseWriter, r *http.Request, c *call) {
	if s.cfg.Activity == nil {
		writeStatus(w, http.StatusNotFound, "NotFound", "no activity feed: step mode shows the trace instead")
		return
	}
	ch, stop := s.cfg.Activity.follow()
	defer stop()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	enc := json.NewEncoder(w)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	ended := s.watchSession(ctx, c.sess.id)
	allowed := s.newMayGetCache(c)
	for {
		select {
		case <-ctx.Done():
			return
		case <-ended:
			return
		case ev := <-ch:
			if !allowed.allowed(ctx, ev.Write.Path, ev.Write.Name) {
				continue
			}
			if enc.Encode(ev) != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
}
