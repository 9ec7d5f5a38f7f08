// Package record writes Events through the API, as every component of a
// cluster does to explain itself: "Created pod: web-x7k2p", "0/3 nodes are
// available: 3 Insufficient cpu." kubectl describe and kubectl get events
// show them.
//
// It simulates k8s.io/client-go/tools/record (EventRecorder and its
// correlator: repeats of one event become a count, similar events one
// "combined" event, and a spam filter caps what one source says about one
// object). Left out: events.k8s.io/v1 series, which kubesim does not
// serve. In live mode events are written by a goroutine, as the
// real broadcaster does; in step mode each is written synchronously, so a
// step's writes appear in its own trace line.
package record

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

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

	mu sync.Mutex
	// last is the last timestamp used in a name: on a fake clock many
	// events share one instant, and names must still differ.
	last int64

	// writeMu keeps the correlator and the writes it decides in one
	// order (only the drain writes in live mode; the caller in step
	// mode).
	writeMu    sync.Mutex
	correlator *correlator

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
		correlator: newCorrelator(), async: cfg.Mode == runmode.Live}
}

// Ref makes the reference an event points at.
func Ref(obj api.Object, gvk schema.GroupVersionKind) corev1.ObjectReference {
	m := api.Meta(obj)
	av, kind := gvk.ToAPIVersionAndKind()
	return corev1.ObjectReference{Kind: kind, APIVersion: av, Namespace: m.Namespace, Name: m.Name,
		UID: m.UID, ResourceVersion: m.ResourceVersion}
}

// Eventf records an event of type (Normal or Warning) about ref, as
// client-go's recorder does: a repeat of the same reason and message for
// the same object raises the count of the existing Event (a PATCH)
// instead of creating another; the tenth similar one (same reason, any
// message) within ten minutes starts an Event "(combined from similar
// events): ..." that counts the rest; and past 25 events about one
// object (one more every 5 minutes) nothing is written at all.
func (r *Recorder) Eventf(ctx context.Context, ref corev1.ObjectReference, eventType, reason, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	now := r.clock.Now()
	if !r.async {
		return r.record(ctx, ref, eventType, reason, msg, now)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.queue) >= maxQueued {
		return nil
	}
	r.queue = append(r.queue, func() { _ = r.record(context.Background(), ref, eventType, reason, msg, now) })
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

// record correlates one event, which happened at at, and writes what the
// correlator decided: a new Event, a PATCH of the count of an earlier one,
// or nothing.
func (r *Recorder) record(ctx context.Context, ref corev1.ObjectReference, eventType, reason, msg string, at time.Time) error {
	now := metav1.NewTime(at.UTC())
	ns := ref.Namespace
	if ns == "" {
		ns = "default"
	}
	ev := &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Namespace: ns, Name: r.name(ref.Name, at)},
		InvolvedObject:      ref,
		Reason:              reason,
		Message:             msg,
		Type:                eventType,
		Source:              corev1.EventSource{Component: r.component, Host: r.host},
		FirstTimestamp:      now,
		LastTimestamp:       now,
		Count:               1,
		ReportingController: r.component,
		ReportingInstance:   r.component,
	}
	if r.host != "" {
		ev.ReportingInstance = r.component + "-" + r.host
	}
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	corr := r.correlator.correlate(ev, at, func() string { return r.name(ref.Name, at) })
	if corr.skip {
		return nil
	}
	ev = corr.event
	events := r.c.Events()
	if corr.patch {
		patch, _ := json.Marshal(map[string]any{"count": ev.Count, "lastTimestamp": ev.LastTimestamp, "message": ev.Message})
		patched, err := events.Patch(ctx, ev.Namespace, ev.Name, client.MergePatch, patch)
		if err == nil {
			r.correlator.observe(corr.key, patched)
			return nil
		}
		if !api.IsNotFound(err) {
			return err
		}
		// Deleted meanwhile (or never written): create it again, with
		// its count.
	}
	for attempt := 0; ; attempt++ {
		created, err := events.Create(ctx, ev)
		if api.IsAlreadyExists(err) && attempt < 100 {
			// Another recorder (of another component) took the name at
			// the same instant of a fake clock.
			ev = ev.DeepCopy()
			ev.Name = r.name(ref.Name, at)
			continue
		}
		if err != nil {
			return err
		}
		r.correlator.observe(corr.key, created)
		return nil
	}
}

// name names an event as Kubernetes does, <object>.<nanoseconds in hex>;
// on a fake clock two events can share a time, so each name takes the
// next nanosecond after the last one used.
func (r *Recorder) name(object string, at time.Time) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = max(at.UnixNano(), r.last+1)
	return fmt.Sprintf("%s.%x", object, r.last)
}
