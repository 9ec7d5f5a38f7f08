// Package record writes Events through the API, as every component of a
// cluster does to explain itself: "Created pod: web-x7k2p", "0/3 nodes are
// available: 3 Insufficient cpu." kubectl describe and kubectl get events
// show them.
//
// It simulates k8s.io/client-go/tools/record (EventRecorder and its
// correlator, which folds repeats of one event into a count). Left out: the
// spam filter. In live mode events are written by a goroutine, as the
// real broadcaster does; in step mode each is written synchronously, so a
// step's writes appear in its own trace line.
package record

import (
	"context"
	"fmt"
	"sync"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/runmode"
)

// Recorder records events for one component.
type Recorder struct {
	c         *client.Client
	component string
	host      string
	clock     clock.Clock

	mu   sync.Mutex
	seen map[string]*api.Event
	// last is the last timestamp used in a name: on a fake clock many
	// events share one instant, and names must still differ.
	last int64

	// async recording (live mode): queue and whether a writer runs.
	async   bool
	queue   []func()
	writing bool
}

// maxQueued bounds the events waiting to be written; past it new events are
// dropped, as the real broadcaster drops events under load.
const maxQueued = 10000

// Config builds a Recorder.
type Config struct {
	// Client writes the events.
	Client *client.Client
	// Component signs the events ("replicaset-controller"); Host too, for
	// a kubelet (its node name).
	Component, Host string
	// Clock stamps the events.
	Clock clock.Clock
	// Mode decides when an event is written: in Live mode by a goroutine
	// behind the caller's back, as the real broadcaster does, so that a
	// reconcile does not wait on it; in Step mode at once, so that the
	// write belongs to the step that made it, in the trace.
	Mode runmode.Mode
}

// New returns a recorder.
func New(cfg Config) *Recorder {
	return &Recorder{c: cfg.Client, component: cfg.Component, host: cfg.Host, clock: cfg.Clock,
		seen: map[string]*api.Event{}, async: cfg.Mode == runmode.Live}
}

// Ref makes the reference an event points at.
func Ref(obj api.Object, gvk api.GroupVersionKind) api.ObjectReference {
	m := obj.GetObjectMeta()
	av, kind := gvk.ToAPIVersionAndKind()
	return api.ObjectReference{Kind: kind, APIVersion: av, Namespace: m.Namespace, Name: m.Name,
		UID: m.UID, ResourceVersion: m.ResourceVersion}
}

// Eventf records an event of type (Normal or Warning) about ref. A repeat
// of the same reason and message for the same object raises the count of
// the existing event instead of creating another.
func (r *Recorder) Eventf(ctx context.Context, ref api.ObjectReference, eventType, reason, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if !r.async {
		return r.record(ctx, ref, eventType, reason, msg)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.queue) >= maxQueued {
		return nil
	}
	r.queue = append(r.queue, func() { _ = r.record(context.Background(), ref, eventType, reason, msg) })
	if !r.writing {
		r.writing = true
		go r.drain()
	}
	return nil
}

// drain writes queued events until none is left, then stops.
func (r *Recorder) drain() {
	for {
		r.mu.Lock()
		if len(r.queue) == 0 {
			r.writing = false
			r.mu.Unlock()
			return
		}
		next := r.queue[0]
		r.queue = r.queue[1:]
		r.mu.Unlock()
		next()
	}
}

// record writes one event (or raises the count of its earlier twin).
func (r *Recorder) record(ctx context.Context, ref api.ObjectReference, eventType, reason, msg string) error {
	now := api.NewTime(r.clock.Now().UTC())
	key := ref.UID + "\x00" + ref.Namespace + "\x00" + ref.Name + "\x00" + eventType + "\x00" + reason + "\x00" + msg
	r.mu.Lock()
	prev := r.seen[key]
	r.mu.Unlock()
	events := r.c.Events()
	if prev != nil {
		patch := fmt.Sprintf(`{"count":%d,"lastTimestamp":%q}`, prev.Count+1, now.Format("2006-01-02T15:04:05Z"))
		ev, err := events.Patch(ctx, prev.Namespace, prev.Name, client.MergePatch, []byte(patch))
		if err == nil {
			r.mu.Lock()
			r.seen[key] = ev
			r.mu.Unlock()
			return nil
		}
		if !api.IsNotFound(err) {
			return err
		}
	}
	ns := ref.Namespace
	if ns == "" {
		ns = "default"
	}
	ev := &api.Event{
		ObjectMeta:          api.ObjectMeta{Namespace: ns},
		InvolvedObject:      ref,
		Reason:              reason,
		Message:             msg,
		Type:                eventType,
		Source:              api.EventSource{Component: r.component, Host: r.host},
		FirstTimestamp:      now,
		LastTimestamp:       now,
		Count:               1,
		ReportingController: r.component,
		ReportingInstance:   r.component,
	}
	if r.host != "" {
		ev.ReportingInstance = r.component + "-" + r.host
	}
	// Named like Kubernetes names events: <object>.<nanoseconds in hex>;
	// on a fake clock two events can share a time, so step on a collision.
	r.mu.Lock()
	nanos := max(r.clock.Now().UnixNano(), r.last+1)
	r.last = nanos
	r.mu.Unlock()
	for attempt := 0; ; attempt++ {
		ev.Name = fmt.Sprintf("%s.%x", ref.Name, nanos+int64(attempt))
		created, err := events.Create(ctx, ev)
		if api.IsAlreadyExists(err) && attempt < 100 {
			continue
		}
		if err != nil {
			return err
		}
		r.mu.Lock()
		r.last = max(r.last, nanos+int64(attempt))
		r.seen[key] = created
		r.mu.Unlock()
		return nil
	}
}
