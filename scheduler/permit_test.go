package scheduler

import (
	"context"
	"maps"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/runmode"
)

// gang is a Reserve and Permit plugin for tests: a pod waits in Permit
// until size pods wait (itself counted), then all are allowed. It records
// Reserve and Unreserve.
type gang struct {
	h       Handle
	size    int
	timeout time.Duration
	// refuse, when set, makes Reserve fail for that pod.
	refuse string

	mu                   sync.Mutex
	reserved, unreserved []string
}

func (g *gang) Name() string { return "Gang" }

func (g *gang) Reserve(_ context.Context, _ *CycleState, pod *PodInfo, node string) *Status {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reserved = append(g.reserved, pod.Key+"@"+node)
	if pod.Pod.Name == g.refuse {
		return AsStatus(assert.AnError)
	}
	return nil
}

func (g *gang) Unreserve(_ context.Context, _ *CycleState, pod *PodInfo, node string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.unreserved = append(g.unreserved, pod.Key+"@"+node)
}

func (g *gang) Permit(_ context.Context, _ *CycleState, pod *PodInfo, _ string) (*Status, time.Duration) {
	waiting := 0
	g.h.IterateOverWaitingPods(func(WaitingPod) { waiting++ })
	if waiting+1 < g.size {
		return NewStatus(Wait), g.timeout
	}
	g.h.IterateOverWaitingPods(func(w WaitingPod) { w.Allow(g.Name()) })
	return nil, 0
}

func (g *gang) unreservedPods() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.unreserved...)
}

// gangEnv is a step-mode scheduler whose default profile has a gang of
// size at Reserve and Permit.
func gangEnv(t *testing.T, size int) (*env, *gang) {
	fw := DefaultFramework()
	g := &gang{h: fw, size: size, timeout: 30 * time.Second}
	fw.Reserve = append(fw.Reserve, g)
	fw.Permit = append(fw.Permit, g)
	e, _ := newMeteredEnv(t, Config{Profiles: []Profile{{SchedulerName: corev1.DefaultSchedulerName, Framework: fw}}})
	threeNodes(e)
	return e, g
}

func scheduledEvents(e *env, name string) int {
	n := 0
	for _, ev := range e.events(name) {
		if ev.Reason == "Scheduled" {
			n++
		}
	}
	return n
}

// A pod Permit holds stays assumed on its node, unbound, and the trace
// says so; the pod that completes the gang lets every member go, each
// bound once.
func TestPermitWaitThenAllow(t *testing.T) {
	e, g := gangEnv(t, 3)
	permits := observePermits(e)
	e.createPod(testPod("a", "1", "1Gi"))
	e.createPod(testPod("b", "1", "1Gi"))
	e.run()
	for _, name := range []string{"a", "b"} {
		assert.Empty(t, e.pod(name).Spec.NodeName, "%s waits in Permit", name)
		node, assumed := assumedOn(e.sched, name)
		assert.True(t, assumed, "%s stays assumed", name)
		assert.NotEmpty(t, node)
	}
	assert.Contains(t, e.sched.LastDecision().String(), "| permit: waiting on Gang (timeout 30s)")
	assert.Len(t, g.reserved, 2)

	e.createPod(testPod("c", "1", "1Gi"))
	e.run()
	for _, name := range []string{"a", "b", "c"} {
		assert.NotEmpty(t, e.pod(name).Spec.NodeName, "%s bound once the gang is whole", name)
		assert.Equal(t, 1, scheduledEvents(e, name), "%s bound once", name)
	}
	assert.Empty(t, g.unreservedPods())
	assert.Equal(t, "waiting on Gang (timeout 30s), then allowed", permits()["default/a"], "the end of the wait is a decision of its own")
	assert.Nil(t, e.sched.profiles[corev1.DefaultSchedulerName].Framework.GetWaitingPod(e.pod("a").UID), "no pod waits any more")
}

// A gang that never completes: at the plugin's timeout, on the injected
// clock, every waiting pod is rejected with kube-scheduler's message,
// unreserved, forgotten and queued again, never lost.
func TestPermitTimeoutRejects(t *testing.T) {
	e, g := gangEnv(t, 3)
	permits := observePermits(e)
	e.createPod(testPod("a", "1", "1Gi"))
	e.createPod(testPod("b", "1", "1Gi"))
	e.run()
	e.Clock.Step(30 * time.Second)
	e.run()
	for _, name := range []string{"a", "b"} {
		p := e.pod(name)
		assert.Empty(t, p.Spec.NodeName)
		c := condition(p, corev1.PodScheduled)
		require.NotNil(t, c, name)
		assert.Equal(t, corev1.PodReasonUnschedulable, c.Reason)
		assert.Equal(t, "rejected due to timeout after waiting 30s at plugin Gang", c.Message)
		_, assumed := assumedOn(e.sched, name)
		assert.False(t, assumed, "%s forgotten", name)
	}
	assert.ElementsMatch(t, []string{"default/a", "default/b"}, keysOf(g.unreservedPods()))
	assert.Equal(t, "waiting on Gang (timeout 30s), then rejected by Gang: rejected due to timeout after waiting 30s at plugin Gang", permits()["default/a"])

	// Queued again after the back-off: a third pod then completes the
	// gang with them.
	e.createPod(testPod("c", "1", "1Gi"))
	e.run()
	e.Clock.Step(BindRetry)
	e.run()
	for _, name := range []string{"a", "b", "c"} {
		assert.NotEmpty(t, e.pod(name).Spec.NodeName, name)
		assert.Equal(t, 1, scheduledEvents(e, name), name)
	}
}

func keysOf(reserved []string) []string {
	out := make([]string, len(reserved))
	for i, r := range reserved {
		for j := range r {
			if r[j] == '@' {
				out[i] = r[:j]
				break
			}
		}
	}
	return out
}

// Reject through the Handle, and a Reserve that fails: both unreserve
// and requeue the pod.
func TestPermitRejectAndReserveFailure(t *testing.T) {
	e, g := gangEnv(t, 2)
	permits := observePermits(e)
	e.createPod(testPod("a", "1", "1Gi"))
	e.run()
	fw := e.sched.profiles[corev1.DefaultSchedulerName].Framework
	require.True(t, fw.RejectWaitingPod(e.pod("a").UID))
	e.run()
	assert.Equal(t, "removed", condition(e.pod("a"), corev1.PodScheduled).Message)
	assert.Equal(t, "waiting on Gang (timeout 30s), then rejected: removed", permits()["default/a"])
	assert.Equal(t, []string{"default/a"}, keysOf(g.unreservedPods()))

	g.refuse = "b"
	e.createPod(testPod("b", "1", "1Gi"))
	e.run()
	c := condition(e.pod("b"), corev1.PodScheduled)
	require.NotNil(t, c)
	assert.Equal(t, corev1.PodReasonSchedulerError, c.Reason)
	assert.Contains(t, c.Message, `running Reserve plugin "Gang"`)
	assert.Contains(t, e.sched.LastDecision().String(), `| error: running Reserve plugin "Gang"`, "the trace says why")
	assert.Contains(t, keysOf(g.unreservedPods()), "default/b", "the failed Reserve is unreserved too")
	_, assumed := assumedOn(e.sched, "b")
	assert.False(t, assumed)
}

// A pod deleted while it waits is unreserved and its room freed.
func TestPermitWaitingPodDeleted(t *testing.T) {
	e, g := gangEnv(t, 2)
	e.createPod(testPod("a", "1", "1Gi"))
	e.run()
	require.NoError(t, e.Client.Pods().Delete(e.ctx, "default", "a", nil))
	e.run()
	assert.Equal(t, []string{"default/a"}, keysOf(g.unreservedPods()))
	node, _ := assumedOn(e.sched, "a")
	assert.Empty(t, node)
	assert.Nil(t, e.sched.profiles[corev1.DefaultSchedulerName].Framework.GetWaitingPod(""))
}

// In live mode a waiting pod holds no worker: with one worker, another
// profile's pod is bound while the first waits.
func TestPermitWaitDoesNotBlockLiveMode(t *testing.T) {
	base := apiservertest.New(t)
	e := &env{Env: base, t: t, ctx: context.Background()}
	threeNodes(e)
	fw := DefaultFramework()
	g := &gang{h: fw, size: 2, timeout: time.Hour}
	fw.Permit = append(fw.Permit, g)
	s, err := New(Config{Client: base.Client, Clock: base.Clock, Mode: runmode.Live, Rand: rand.New(rand.NewPCG(1, 1)), Workers: 1,
		Profiles: []Profile{{SchedulerName: corev1.DefaultSchedulerName, Framework: fw}, {SchedulerName: "other", Framework: DefaultFramework()}}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	e.createPod(testPod("waits", "1", "1Gi"))
	require.Eventually(t, func() bool { return fw.GetWaitingPod(e.pod("waits").UID) != nil }, time.Minute, time.Millisecond)
	e.createPod(testPod("free", "1", "1Gi", func(p *corev1.Pod) { p.Spec.SchedulerName = "other" }))
	require.Eventually(t, func() bool { return e.pod("free").Spec.NodeName != "" }, time.Minute, time.Millisecond)
	assert.Empty(t, e.pod("waits").Spec.NodeName, "still waiting")
	e.createPod(testPod("joins", "1", "1Gi"))
	require.Eventually(t, func() bool { return e.pod("waits").Spec.NodeName != "" && e.pod("joins").Spec.NodeName != "" }, time.Minute, time.Millisecond)
}

// observePermits collects the last Permit words of each pod's decisions.
func observePermits(e *env) func() map[string]string {
	var mu sync.Mutex
	seen := map[string]string{}
	e.sched.ObserveDecisions(func(d Decision) {
		mu.Lock()
		defer mu.Unlock()
		if d.Permit != "" {
			seen[d.Pod] = d.Permit
		}
	})
	return func() map[string]string {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(seen)
	}
}
