package cluster

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

// rsTimeline collects the ReplicaSet controller's debug log (its syncs,
// slow-start batches and fulfilled expectations) while a live benchmark
// runs, when KUBESIM_RS_TIMELINE is set: what paces creation is a matter
// of what waits, which a CPU profile does not show.
//
//	KUBESIM_RS_TIMELINE=1 go test -run '^$' -bench 'Live.*10000PodsOn1000Nodes$' -benchtime 1x -v ./cluster/
type rsTimeline struct {
	mu      sync.Mutex
	records []timelineRecord
}

type timelineRecord struct {
	at    time.Time
	msg   string
	attrs map[string]slog.Value
}

// newRSTimeline returns the timeline and the logger to give the cluster,
// or nil and nil when KUBESIM_RS_TIMELINE is not set.
func newRSTimeline() (*rsTimeline, *slog.Logger) {
	if os.Getenv("KUBESIM_RS_TIMELINE") == "" {
		return nil, nil
	}
	t := &rsTimeline{}
	return t, slog.New(&timelineHandler{t: t})
}

// timelineHandler is enabled only for loggers carrying
// controller=replicaset, so no other component builds its debug records.
type timelineHandler struct {
	t     *rsTimeline
	rs    bool
	attrs []slog.Attr
}

func (h *timelineHandler) Enabled(context.Context, slog.Level) bool { return h.rs }

func (h *timelineHandler) Handle(_ context.Context, r slog.Record) error {
	rec := timelineRecord{at: r.Time, msg: r.Message, attrs: map[string]slog.Value{}}
	for _, a := range h.attrs {
		rec.attrs[a.Key] = a.Value
	}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value
		return true
	})
	h.t.mu.Lock()
	h.t.records = append(h.t.records, rec)
	h.t.mu.Unlock()
	return nil
}

func (h *timelineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := &timelineHandler{t: h.t, rs: h.rs, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
	for _, a := range attrs {
		if a.Key == "controller" && a.Value.String() == "replicaset" {
			n.rs = true
		}
	}
	return n
}

func (h *timelineHandler) WithGroup(string) slog.Handler { return h }

// timelineRound is one burst of creates and what followed it.
type timelineRound struct {
	syncStart, tooFew, lastBatch, fulfilled, nextSync time.Time
	batches                                           int
}

// rounds reads the bursts from the records: a sync that logs "Too few
// replicas" starts one (its start is its "Finished syncing" minus its
// duration), its last "Slow-start batch done" is the last create
// answered, the first "Controller expectations fulfilled" after that is
// when the informer had shown them all, and the next burst's sync start
// ends it.
func (t *rsTimeline) rounds() []timelineRound {
	t.mu.Lock()
	recs := append([]timelineRecord(nil), t.records...)
	t.mu.Unlock()
	var syncStarts []time.Time
	for _, r := range recs {
		if r.msg == "Finished syncing" {
			syncStarts = append(syncStarts, r.at.Add(-r.attrs["duration"].Duration()))
		}
	}
	startBefore := func(at time.Time) time.Time {
		var best time.Time
		for _, s := range syncStarts {
			if !s.After(at) && s.After(best) {
				best = s
			}
		}
		return best
	}
	var out []timelineRound
	for _, r := range recs {
		switch r.msg {
		case "Too few replicas":
			out = append(out, timelineRound{tooFew: r.at, syncStart: startBefore(r.at)})
		case "Slow-start batch done":
			if n := len(out); n > 0 {
				out[n-1].lastBatch = r.at
				out[n-1].batches++
			}
		case "Controller expectations fulfilled":
			if n := len(out); n > 0 && out[n-1].fulfilled.IsZero() && !out[n-1].lastBatch.IsZero() {
				out[n-1].fulfilled = r.at
			}
		}
	}
	for i := range out[:max(len(out)-1, 0)] {
		out[i].nextSync = out[i+1].syncStart
	}
	return out
}

// report logs each burst and reports the sums: creating (the first
// create of a burst to the last answered), informer (the last answer to
// the informer having shown every create), queue (from there to the next
// burst's sync, through the work queue and any sync running meanwhile)
// and presync (a burst's sync from its start to its first create).
func (t *rsTimeline) report(b *testing.B) {
	var creating, informer, queue, presync time.Duration
	for i, r := range t.rounds() {
		c, p := r.lastBatch.Sub(r.tooFew), r.tooFew.Sub(r.syncStart)
		var inf, q time.Duration
		if !r.fulfilled.IsZero() {
			inf = max(r.fulfilled.Sub(r.lastBatch), 0)
			if !r.nextSync.IsZero() {
				from := r.fulfilled
				if from.Before(r.lastBatch) {
					from = r.lastBatch
				}
				q = r.nextSync.Sub(from)
			}
		}
		b.Logf("burst %2d: %d batches, presync %6.1f ms, creating %7.1f ms, informer %6.1f ms, queue %6.1f ms",
			i+1, r.batches, ms(p), ms(c), ms(inf), ms(q))
		creating, informer, queue, presync = creating+c, informer+inf, queue+q, presync+p
	}
	b.ReportMetric(creating.Seconds(), "s-rs-creating")
	b.ReportMetric(informer.Seconds(), "s-rs-informer-lag")
	b.ReportMetric(queue.Seconds(), "s-rs-queue")
	b.ReportMetric(presync.Seconds(), "s-rs-presync")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// The live benchmarks count pods from an informer's changes: an add, a
// bind, Running, and a delete move each count once.
func TestPodCountsFollowTheInformersChanges(t *testing.T) {
	var c podCounts
	pending := &corev1.Pod{}
	bound := &corev1.Pod{Spec: corev1.PodSpec{NodeName: "n1"}}
	running := &corev1.Pod{Spec: corev1.PodSpec{NodeName: "n1"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	c.change(nil, pending)
	c.change(nil, pending)
	c.change(pending, bound)
	c.change(bound, running)
	c.change(running, running)
	created, b, r := c.get()
	assert.Equal(t, []int{2, 1, 1}, []int{created, b, r})
	c.change(running, nil)
	created, b, r = c.get()
	assert.Equal(t, []int{1, 0, 0}, []int{created, b, r})
}
