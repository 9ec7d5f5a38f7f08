package cluster

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/kubesim/kubesim/api/handoff"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/scheduler"
	"github.com/kubesim/kubesim/stepper"
)

// WriteObserver hears a live cluster's component writes (Config.OnWrite):
// the web page lights up the loop that wrote and links each write to the
// reconcile that made it (step mode has the trace instead).
type WriteObserver interface {
	// Observing reports whether anyone listens now: when not, a write
	// costs nothing more than the request.
	Observing() bool
	// ObserveWrite is told of one write of component (its client's user
	// agent), made in reconcile r (nil outside a reconcile: a heartbeat,
	// an event recorder's flush). It must not block.
	ObserveWrite(component string, r *controllers.Reconciling, w stepper.Write)
}

// activityTransport tells Config.OnWrite of a live component's writes,
// as the stepper's Recorder notes them for the trace in step mode.
type activityTransport struct {
	next      http.RoundTripper
	component string
	observer  WriteObserver
}

var writeVerbs = map[string]string{
	http.MethodPost: "create", http.MethodPut: "update", http.MethodPatch: "patch", http.MethodDelete: "delete",
}

// RoundTrip implements http.RoundTripper.
func (a *activityTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	verb, isWrite := writeVerbs[req.Method]
	if !isWrite || !a.observer.Observing() {
		return a.next.RoundTrip(req)
	}
	// The write is read from the answer's JSON: an in-process server must
	// not hand the object over decoded instead (api/handoff).
	req = req.WithContext(handoff.WithoutAnswer(req.Context()))
	resp, err := a.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return resp, nil
	}
	var meta struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name, ResourceVersion string
		} `json:"metadata"`
	}
	_ = json.Unmarshal(body, &meta)
	w := stepper.Write{Verb: verb, Path: req.URL.Path, Code: resp.StatusCode}
	if meta.Kind != "Status" {
		w.ResourceVersion, w.Name = meta.Metadata.ResourceVersion, meta.Metadata.Name
	}
	r, _ := controllers.ReconcilingFrom(req.Context())
	a.observer.ObserveWrite(a.component, r, w)
	return resp, nil
}

// LiveComponents lists the components in the stepper's order, each by
// its client's user agent (as the activity feed names it) and its switch
// name (the web page's row of loops and switches in live mode).
func (c *Cluster) LiveComponents() []stepper.Loop {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]stepper.Loop, 0, len(c.components))
	for _, b := range c.components {
		out = append(out, stepper.Loop{Name: b.userAgent, Switch: b.name})
	}
	return out
}

// Components lists the user agents of the components' clients in the
// stepper's order (the web page's row of loops in live mode).
func (c *Cluster) Components() []string {
	out := make([]string, 0, len(c.components))
	for _, b := range c.components {
		out = append(out, b.userAgent)
	}
	return out
}

// ObserveSchedulingDecisions has f told of every decision of the
// scheduler (scheduler.Scheduler.ObserveDecisions); false without a
// scheduler.
func (c *Cluster) ObserveSchedulingDecisions(f func(scheduler.Decision)) bool {
	c.live.mu.Lock()
	c.live.decisions = f // a scheduler switched off and on again is told too
	c.live.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.components {
		if s, ok := b.comp.(*scheduler.Scheduler); ok {
			s.ObserveDecisions(f)
			return true
		}
	}
	return false
}
