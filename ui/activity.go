package ui

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/kubesim/kubesim/stepper"
)

// Activity fans the live components' writes out to the pages that
// follow them: live mode has no trace, so this is how the row of loops
// lights up there. Hand Note to cluster.Config.OnWrite.
type Activity struct {
	mu   sync.Mutex
	subs map[chan activityEvent]struct{}
}

type activityEvent struct {
	Actor string `json:"actor"`
	Write write  `json:"write"`
}

// NewActivity returns a feed with no follower yet.
func NewActivity() *Activity { return &Activity{subs: map[chan activityEvent]struct{}{}} }

// Note tells every follower of a write; a follower that does not keep up
// loses events rather than slow the component down.
func (a *Activity) Note(component string, w stepper.Write) {
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
	a.mu.Unlock()
	return ch, func() {
		a.mu.Lock()
		delete(a.subs, ch)
		a.mu.Unlock()
	}
}

// activity streams the feed, one JSON line per write, until the page
// goes away.
func (s *Server) activity(w http.ResponseWriter, r *http.Request, _ *session) {
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
	for {
		select {
		case <-r.Context().Done():
			return
		case ev := <-ch:
			if enc.Encode(ev) != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
}
