package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver/metrics/metricstest"
)

// A pod whose spec.schedulerName no profile serves is left Pending
// untouched, as kube-scheduler leaves it (its informer's filter,
// responsibleForPod, never lets the pod into the queue): no cycle, no
// event, no PodScheduled condition, and no count in scheduler_pending_pods
// in any queue, gated or not. Another scheduler will bind it.
func TestPodOfUnknownSchedulerIsLeftUntouched(t *testing.T) {
	e, reg := newMeteredEnv(t, Config{})
	s := e.sched
	threeNodes(e)
	other := func(p *corev1.Pod) { p.Spec.SchedulerName = "no-such-scheduler" }
	e.createPod(testPod("orphan", "100m", "128Mi", other))
	e.createPod(testPod("huge-orphan", "64", "1Gi", other))
	e.createPod(testPod("gated-orphan", "", "", other, func(p *corev1.Pod) {
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/review"}}
	}))
	e.run()

	for _, name := range []string{"orphan", "huge-orphan", "gated-orphan"} {
		p := e.pod(name)
		assert.Empty(t, p.Spec.NodeName, name)
		assert.Equal(t, corev1.PodPending, p.Status.Phase, name)
		if name == "gated-orphan" {
			// The API server, not the scheduler, marks a gated pod.
			assert.Equal(t, corev1.PodReasonSchedulingGated, condition(p, corev1.PodScheduled).Reason, name)
		} else {
			assert.Nil(t, condition(p, corev1.PodScheduled), name)
		}
		assert.Empty(t, e.events(name), name)
	}
	assert.Zero(t, s.LastDecision().Cycle, "no scheduling cycle")

	f, err := metricstest.Gather(reg)
	require.NoError(t, err)
	for _, q := range []string{"active", "backoff", "unschedulable", "gated"} {
		assert.Equal(t, 0.0, f.Sum("scheduler_pending_pods", map[string]string{"queue": q}), q)
	}
	assert.Zero(t, f.Sum("scheduler_schedule_attempts_total", nil))
}
