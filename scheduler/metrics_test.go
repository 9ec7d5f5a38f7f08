package scheduler

import (
	"math/rand/v2"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/metrics/metricstest"
	"github.com/kubesim/kubesim/runmode"
)

// The attempts are counted by result and profile, and the pods waiting by
// queue.
func TestSchedulerMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	require.NoError(t, err)
	base := apiservertest.New(t)
	s, err := New(Config{Client: base.Client, Clock: base.Clock, Mode: runmode.Step, Rand: rand.New(rand.NewPCG(1, 1)), Metrics: m})
	require.NoError(t, err)
	e := &env{Env: base, t: t, ctx: t.Context(), sched: s, ctrl: s.Controllers()[0]}
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
	assert.Equal(t, 0.0, f.Sum("scheduler_pending_pods", map[string]string{"queue": "active"}))
	assert.True(t, f.Has("scheduler_pending_pods", map[string]string{"queue": "active"}))

	// Registered once per registry: a second scheduler of the same
	// cluster shares the same Metrics.
	_, err = NewMetrics(reg)
	assert.Error(t, err)
}
