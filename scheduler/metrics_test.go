package scheduler

import (
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/metrics/metricstest"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/runmode"
)

// The attempts are counted by result and profile, and the pods waiting by
// queue.
func TestSchedulerMetrics(t *testing.T) {
	e, reg := newMeteredEnv(t, Config{})
	threeNodes(e)
	e.createPod(testPod("small", "250m", "256Mi"))
	e.createPod(testPod("huge", "64", "1Gi"))
	e.run()

	f, err := metricstest.Gather(reg)
	require.NoError(t, err)
	profile := "default-scheduler"
	assert.Equal(t, 1.0, f.Sum("scheduler_schedule_attempts_total", map[string]string{"result": "scheduled", "profile": profile}))
	assert.Equal(t, 1.0, f.Sum("scheduler_schedule_attempts_total", map[string]string{"result": "unschedulable", "profile": profile}))
	assert.Equal(t, 2.0, f.Sum("scheduler_scheduling_attempt_duration_seconds", map[string]string{"profile": profile}))
	assert.Equal(t, 1.0, f.Sum("scheduler_pending_pods", map[string]string{"queue": "unschedulable"}))
	for _, q := range []string{"active", "backoff", "gated"} {
		assert.Equal(t, 0.0, f.Sum("scheduler_pending_pods", map[string]string{"queue": q}), q)
		assert.True(t, f.Has("scheduler_pending_pods", map[string]string{"queue": q}), q)
	}

	// Registered once per registry: a second scheduler of the same
	// cluster shares the same Metrics.
	_, err = NewMetrics(reg)
	assert.Error(t, err)
}

// Each of kube-scheduler's four queues is counted apart: a pod ready in
// the queue (active), one whose binding failed waiting for its back-off
// (backoff), one nothing fitted (unschedulable), one a scheduling gate
// holds (gated, never queued); each pod moves from one to the next.
func TestSchedulerPendingPodsByQueue(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	require.NoError(t, err)
	base := apiservertest.New(t)
	failBinding := true
	gate := &bindingGate{next: &client.InProcessTransport{Handler: base.Server.Handler()}, intercept: func(string) *http.Response {
		if failBinding {
			return internalError(nil)
		}
		return nil
	}}
	cl, err := client.New(client.Config{Server: "http://in-process", Transport: gate, UserAgent: "scheduler-test"})
	require.NoError(t, err)
	s, err := New(Config{Client: cl, Clock: base.Clock, Mode: runmode.Step, Rand: rand.New(rand.NewPCG(1, 1)), Metrics: m})
	require.NoError(t, err)
	e := &env{Env: base, t: t, ctx: t.Context(), sched: s, ctrl: s.Controllers()[0]}
	e.createNode("node-1", "4", "8Gi")
	queues := func() map[string]float64 {
		t.Helper()
		f, err := metricstest.Gather(reg)
		require.NoError(t, err)
		out := map[string]float64{}
		for _, q := range []string{"active", "backoff", "unschedulable", "gated"} {
			out[q] = f.Sum("scheduler_pending_pods", map[string]string{"queue": q})
		}
		return out
	}
	require.NoError(t, e.ctrl.Sync(e.ctx))
	for e.ctrl.Pending() > 0 { // the node's event
		_, _ = e.ctrl.Step(e.ctx)
	}

	gated := testPod("gated", "", "")
	gated.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/review"}}
	e.createPod(gated)
	e.createPod(testPod("huge", "64", "1Gi"))
	e.createPod(testPod("small", "250m", "256Mi"))
	require.NoError(t, e.ctrl.Sync(e.ctx))
	assert.Equal(t, map[string]float64{"active": 2, "backoff": 0, "unschedulable": 0, "gated": 1}, queues(), "queued, not tried yet")

	for range 2 {
		info, ok := e.ctrl.Step(e.ctx)
		require.True(t, ok)
		if info.Key == "default/small" {
			require.Error(t, info.Err, "the binding failed")
		}
	}
	assert.Equal(t, map[string]float64{"active": 0, "backoff": 1, "unschedulable": 1, "gated": 1}, queues(), "tried")

	// The gate goes: the pod is queued; the back-off passes and the
	// binding works: small leaves the queues.
	got := e.pod("gated")
	got.Spec.SchedulingGates = nil
	_, err = e.Client.Pods().Update(e.ctx, got)
	require.NoError(t, err)
	require.NoError(t, e.ctrl.Sync(e.ctx))
	assert.Equal(t, map[string]float64{"active": 1, "backoff": 1, "unschedulable": 1, "gated": 0}, queues(), "ungated")
	failBinding = false
	e.Clock.Step(time.Minute)
	e.run()
	assert.Equal(t, "node-1", e.pod("small").Spec.NodeName)
	assert.Equal(t, "node-1", e.pod("gated").Spec.NodeName)
	assert.Equal(t, map[string]float64{"active": 0, "backoff": 0, "unschedulable": 1, "gated": 0}, queues(), "huge still waits")
}
