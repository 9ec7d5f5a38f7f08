package scheduler

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/controllers"
)

// Reserve and Permit (kube-scheduler's schedulingCycle after the pick,
// and WaitOnPermit at the start of the binding cycle). Reserve and Permit
// run at the end of the cycle, with the cache lock held, as they run in
// kube-scheduler's one scheduling goroutine: a Permit plugin that counts
// the waiting pods sees every earlier cycle's. A pod a Permit plugin
// holds (Wait) stays assumed on its node and waits, not in a goroutine
// blocked on a channel as in kube-scheduler, but as a key in the queue:
// Allow and Reject queue it, and the earliest timeout is its requeue
// delay, on the injected clock. Its next reconcile binds it (every
// plugin allowed it), or gives the node up (rejected, or a timeout
// passed: "rejected due to timeout after waiting 30s at plugin X"),
// unreserving, forgetting and queueing it again. So a waiting pod holds
// no worker and no goroutine, live mode goes on with the next pod, and
// step mode stays one trace.

// frameworkRuntime is what the scheduler running a framework gives it.
type frameworkRuntime struct {
	client *client.Client
	sched  *Scheduler
	prof   *profile
	// snapshot lists the cache's nodes (valid under the cache lock).
	snapshot func() []*NodeInfo

	mu      sync.Mutex
	waiting map[types.UID]*waitingPod
}

// waitingPod is a pod a Permit plugin holds.
type waitingPod struct {
	rt   *frameworkRuntime
	pod  *corev1.Pod
	info *PodInfo
	key  string
	node string
	// start is when the scheduling attempt began.
	start time.Time
	// decision is the cycle's that parked it, for the trace of its end.
	decision Decision

	// Guarded by rt.mu: the plugins still to allow it, each with its
	// deadline and its timeout, and the first rejection.
	pending  map[string]permitDeadline
	rejected *Status
}

type permitDeadline struct {
	at      time.Time
	timeout time.Duration
}

func (w *waitingPod) GetPod() *corev1.Pod { return w.pod }
func (w *waitingPod) NodeName() string    { return w.node }

func (w *waitingPod) GetPendingPlugins() []string {
	w.rt.mu.Lock()
	defer w.rt.mu.Unlock()
	return slices.Sorted(maps.Keys(w.pending))
}

// Allow drops plugin from those the pod waits for; when none is left the
// pod is queued, to be bound.
func (w *waitingPod) Allow(plugin string) {
	w.rt.mu.Lock()
	delete(w.pending, plugin)
	done := len(w.pending) == 0 && w.rejected == nil
	w.rt.mu.Unlock()
	if done {
		w.wake("allowed by " + plugin)
	}
}

// Reject marks the pod rejected (the first rejection counts) and queues
// it, to be unreserved and scheduled again.
func (w *waitingPod) Reject(plugin, msg string) {
	w.rt.mu.Lock()
	first := w.rejected == nil
	if first {
		w.rejected = NewStatus(Unschedulable, msg).WithPlugin(plugin)
	}
	w.rt.mu.Unlock()
	if first {
		w.wake("rejected by " + plugin)
	}
}

func (w *waitingPod) wake(event string) {
	if s := w.rt.sched; s != nil {
		s.ctrl.Enqueue(w.key, controllers.Cause{Event: event})
	}
}

// verdict is where the wait stands at now: rejected (a plugin rejected
// it, or a deadline passed: the plugin's timeout rejection), allowed, or
// still waiting for wait more.
func (w *waitingPod) verdict(now time.Time) (rejected *Status, allowed bool, wait time.Duration) {
	w.rt.mu.Lock()
	defer w.rt.mu.Unlock()
	if w.rejected == nil {
		for _, name := range slices.Sorted(maps.Keys(w.pending)) {
			if d := w.pending[name]; !now.Before(d.at) {
				w.rejected = NewStatus(Unschedulable,
					fmt.Sprintf("rejected due to timeout after waiting %v at plugin %v", d.timeout, name)).WithPlugin(name)
				break
			}
		}
	}
	if w.rejected != nil {
		return w.rejected, false, 0
	}
	if len(w.pending) == 0 {
		return nil, true, 0
	}
	first := time.Duration(-1)
	for _, d := range w.pending {
		if left := d.at.Sub(now); first < 0 || left < first {
			first = left
		}
	}
	return nil, false, first
}

// ClientSet is the scheduler's client (Handle).
func (f *Framework) ClientSet() *client.Client {
	if f.rt == nil {
		return nil
	}
	return f.rt.client
}

// SnapshotSharedLister lists the scheduler's nodes (Handle).
func (f *Framework) SnapshotSharedLister() NodeInfoLister { return nodeLister{f} }

type nodeLister struct{ f *Framework }

func (l nodeLister) List() []*NodeInfo {
	if l.f.rt == nil || l.f.rt.snapshot == nil {
		return nil
	}
	return l.f.rt.snapshot()
}

// GetWaitingPod is the pod of uid waiting in Permit, or nil (Handle).
func (f *Framework) GetWaitingPod(uid types.UID) WaitingPod {
	if f.rt == nil {
		return nil
	}
	f.rt.mu.Lock()
	defer f.rt.mu.Unlock()
	if w := f.rt.waiting[uid]; w != nil {
		return w
	}
	return nil
}

// IterateOverWaitingPods calls fn for each pod waiting in Permit, in
// order of namespace/name so that step mode is deterministic (Handle).
func (f *Framework) IterateOverWaitingPods(fn func(WaitingPod)) {
	if f.rt == nil {
		return
	}
	f.rt.mu.Lock()
	ws := slices.Collect(maps.Values(f.rt.waiting))
	f.rt.mu.Unlock()
	slices.SortFunc(ws, func(a, b *waitingPod) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	for _, w := range ws {
		fn(w)
	}
}

// RejectWaitingPod rejects the waiting pod of uid (Handle).
func (f *Framework) RejectWaitingPod(uid types.UID) bool {
	w, _ := f.GetWaitingPod(uid).(*waitingPod)
	if w == nil {
		return false
	}
	w.Reject("", "removed")
	return true
}

// runReserve runs the Reserve plugins; when one fails, those that ran are
// unreserved in reverse and its status returned.
func (f *Framework) runReserve(ctx context.Context, pod *PodInfo, node string) *Status {
	for i, p := range f.Reserve {
		if st := p.Reserve(ctx, &pod.state, pod, node); !st.IsSuccess() {
			for j := i; j >= 0; j-- {
				f.Reserve[j].Unreserve(ctx, &pod.state, pod, node)
			}
			msg := fmt.Sprintf("running Reserve plugin %q: %s", p.Name(), st.Message())
			if st.IsRejected() {
				return NewStatus(st.Code(), msg).WithPlugin(p.Name())
			}
			return NewStatus(Error, msg).WithPlugin(p.Name())
		}
	}
	return nil
}

// runUnreserve unreserves the pod in the reverse order of Reserve.
func (f *Framework) runUnreserve(ctx context.Context, pod *PodInfo, node string) {
	for i := len(f.Reserve) - 1; i >= 0; i-- {
		f.Reserve[i].Unreserve(ctx, &pod.state, pod, node)
	}
}

// runPermit runs the Permit plugins: a rejection or an error ends it; the
// plugins that said Wait are returned with their timeouts (capped at
// MaxPermitTimeout).
func (f *Framework) runPermit(ctx context.Context, pod *PodInfo, node string) (*Status, map[string]time.Duration) {
	var waits map[string]time.Duration
	for _, p := range f.Permit {
		st, timeout := p.Permit(ctx, &pod.state, pod, node)
		switch {
		case st.IsSuccess():
		case st.IsWait():
			if waits == nil {
				waits = map[string]time.Duration{}
			}
			waits[p.Name()] = min(timeout, MaxPermitTimeout)
		case st.IsRejected():
			return NewStatus(st.Code(), st.Reasons()...).WithPlugin(p.Name()), nil
		default:
			return NewStatus(Error, fmt.Sprintf("running Permit plugin %q: %s", p.Name(), st.Message())).WithPlugin(p.Name()), nil
		}
	}
	return nil, waits
}

// addWaiting registers pod, held by the plugins of waits, and returns it.
func (f *Framework) addWaiting(pod *PodInfo, key, node string, start, now time.Time, waits map[string]time.Duration) *waitingPod {
	w := &waitingPod{rt: f.rt, pod: pod.Pod, info: pod, key: key, node: node, start: start, pending: map[string]permitDeadline{}}
	for name, d := range waits {
		w.pending[name] = permitDeadline{at: now.Add(d), timeout: d}
	}
	f.rt.mu.Lock()
	f.rt.waiting[pod.Pod.UID] = w
	f.rt.mu.Unlock()
	return w
}

// removeWaiting forgets the waiting pod w.
func (f *Framework) removeWaiting(w *waitingPod) {
	f.rt.mu.Lock()
	if f.rt.waiting[w.pod.UID] == w {
		delete(f.rt.waiting, w.pod.UID)
	}
	f.rt.mu.Unlock()
}

// describeWait is the trace's words for the plugins a pod waits for:
// "waiting on Coscheduling (timeout 30s)".
func describeWait(waits map[string]time.Duration) string {
	names := slices.Sorted(maps.Keys(waits))
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s (timeout %v)", n, waits[n])
	}
	return "waiting on " + strings.Join(parts, ", ")
}
