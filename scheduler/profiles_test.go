package scheduler

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/metrics/metricstest"
	"github.com/kubesim/kubesim/runmode"
)

// One scheduler serves every profile, from one queue: the pod's
// spec.schedulerName picks the framework, and the profile's name signs
// its events and labels its metrics. A name no profile has is left alone.
func TestProfilesShareOneScheduler(t *testing.T) {
	// my-scheduler packs pods (MostAllocated) and never preempts.
	packing := &Framework{Filter: DefaultFilters(), Score: []WeightedScorePlugin{{NewNodeResourcesFit(&configv1.NodeResourcesFitArgs{
		ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.MostAllocated,
			Resources: []configv1.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}}}), 1}}}
	e, reg := newMeteredEnv(t, Config{Profiles: []Profile{
		{SchedulerName: corev1.DefaultSchedulerName, Framework: DefaultFramework()},
		{SchedulerName: "my-scheduler", Framework: packing},
	}})
	threeNodes(e)
	mine := func(p *corev1.Pod) { p.Spec.SchedulerName = "my-scheduler" }
	e.createPod(testPod("packed-1", "1", "1Gi", mine))
	e.run()
	first := e.pod("packed-1").Spec.NodeName
	require.NotEmpty(t, first)
	e.createPod(testPod("packed-2", "1", "1Gi", mine))
	e.createPod(testPod("spread", "1", "1Gi"))
	e.createPod(testPod("orphan", "1", "1Gi", func(p *corev1.Pod) { p.Spec.SchedulerName = "nobody" }))
	e.createPod(testPod("too-big", "64", "1Gi", mine))
	e.run()

	assert.Equal(t, first, e.pod("packed-2").Spec.NodeName, "MostAllocated packs onto the busiest node")
	spread := e.pod("spread").Spec.NodeName
	assert.NotEmpty(t, spread)
	assert.NotEqual(t, first, spread, "LeastAllocated spreads")
	assert.Empty(t, e.pod("orphan").Spec.NodeName)
	assert.Empty(t, e.events("orphan"))

	source := func(name string) []string {
		var out []string
		for _, ev := range e.events(name) {
			out = append(out, ev.Reason+" by "+ev.Source.Component+"/"+ev.ReportingController)
		}
		return out
	}
	assert.Equal(t, []string{"Scheduled by my-scheduler/my-scheduler"}, source("packed-2"))
	assert.Equal(t, []string{"Scheduled by default-scheduler/default-scheduler"}, source("spread"))
	assert.Equal(t, []string{"FailedScheduling by my-scheduler/my-scheduler"}, source("too-big"))
	assert.Empty(t, e.pod("too-big").Status.NominatedNodeName, "no preemption in a profile without it")

	f, err := metricstest.Gather(reg)
	require.NoError(t, err)
	assert.Equal(t, 2.0, f.Sum("scheduler_schedule_attempts_total", map[string]string{"result": "scheduled", "profile": "my-scheduler"}))
	assert.Equal(t, 1.0, f.Sum("scheduler_schedule_attempts_total", map[string]string{"result": "unschedulable", "profile": "my-scheduler"}))
	assert.Equal(t, 1.0, f.Sum("scheduler_schedule_attempts_total", map[string]string{"result": "scheduled", "profile": "default-scheduler"}))
	assert.Equal(t, 1.0, f.Sum("scheduler_pending_pods", map[string]string{"queue": "unschedulable"}), "too-big; not the orphan")
}

// Profiles are checked as kube-scheduler's profile map checks them.
func TestProfilesInvalid(t *testing.T) {
	base := apiservertest.New(t)
	for _, tc := range []struct {
		profiles []Profile
		want     string
	}{
		{[]Profile{{SchedulerName: "a", Framework: DefaultFramework()}, {SchedulerName: "a", Framework: DefaultFramework()}},
			`scheduler: duplicate profile with scheduler name "a"`},
		{[]Profile{{Framework: DefaultFramework()}}, "scheduler: a profile has no schedulerName"},
		{[]Profile{{SchedulerName: "a", Framework: &Framework{PercentageOfNodesToScore: 101}}},
			"scheduler: percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"},
	} {
		_, err := New(Config{Client: base.Client, Clock: base.Clock, Mode: runmode.Step, Rand: rand.New(rand.NewPCG(1, 1)), Profiles: tc.profiles})
		assert.EqualError(t, err, tc.want)
	}
}

// DefaultPreemptionArgs bound how many candidate nodes a profile's
// preemption dry run looks for: a share of the nodes, at least an
// absolute number, at most every node.
func TestFrameworkNumCandidates(t *testing.T) {
	args := func(pct, abs int32) *configv1.DefaultPreemptionArgs {
		return &configv1.DefaultPreemptionArgs{MinCandidateNodesPercentage: &pct, MinCandidateNodesAbsolute: &abs}
	}
	for _, tc := range []struct {
		args  *configv1.DefaultPreemptionArgs
		nodes int
		want  int
	}{
		{nil, 1000, 100}, {nil, 5000, 500}, {nil, 50, 50},
		{args(50, 10), 1000, 500}, {args(0, 5), 1000, 5}, {args(1, 0), 1000, 10}, {args(100, 0), 30, 30},
	} {
		fw := &Framework{PreemptionArgs: tc.args}
		assert.Equal(t, tc.want, fw.NumCandidates(tc.nodes), "%d nodes", tc.nodes)
	}
}
