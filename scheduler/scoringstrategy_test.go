package scheduler

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// NodeResourcesFit's scoring strategies, on a node of 4 cpu and 8Gi
// with 2 cpu and 4Gi requested, for a pod of 1 cpu and 2Gi: 75 % of each
// in use with the pod.
func TestNodeResourcesFitScoringStrategies(t *testing.T) {
	cpuMem := func(cpu, mem int64) []configv1.ResourceSpec {
		return []configv1.ResourceSpec{{Name: "cpu", Weight: cpu}, {Name: "memory", Weight: mem}}
	}
	shape := func(pts ...int32) *configv1.RequestedToCapacityRatioParam {
		p := &configv1.RequestedToCapacityRatioParam{}
		for i := 0; i+1 < len(pts); i += 2 {
			p.Shape = append(p.Shape, configv1.UtilizationShapePoint{Utilization: pts[i], Score: pts[i+1]})
		}
		return p
	}
	for _, tc := range []struct {
		name     string
		strategy *configv1.ScoringStrategy
		pod      *corev1.Pod
		want     int64
	}{
		{"default: LeastAllocated", nil, testPod("p", "1", "2Gi"), 25},
		{"LeastAllocated, cpu only", &configv1.ScoringStrategy{Type: configv1.LeastAllocated, Resources: cpuMem(1, 1)[:1]}, testPod("p", "1", "2Gi"), 25},
		{"MostAllocated", &configv1.ScoringStrategy{Type: configv1.MostAllocated, Resources: cpuMem(1, 1)}, testPod("p", "1", "2Gi"), 75},
		// cpu full (100) weighs 3, memory at 75 weighs 1: 375/4.
		{"MostAllocated, weighted", &configv1.ScoringStrategy{Type: configv1.MostAllocated, Resources: cpuMem(3, 1)}, testPod("p", "2", "2Gi"), 93},
		{"RequestedToCapacityRatio packing", &configv1.ScoringStrategy{Type: configv1.RequestedToCapacityRatio, Resources: cpuMem(1, 1),
			RequestedToCapacityRatio: shape(0, 0, 100, 10)}, testPod("p", "1", "2Gi"), 75},
		{"RequestedToCapacityRatio spreading", &configv1.ScoringStrategy{Type: configv1.RequestedToCapacityRatio, Resources: cpuMem(1, 1),
			RequestedToCapacityRatio: shape(0, 10, 100, 0)}, testPod("p", "1", "2Gi"), 25},
		// A broken line: 50 % → 2, 100 % → 10; 75 % is half way, 6 → 60.
		{"RequestedToCapacityRatio broken line", &configv1.ScoringStrategy{Type: configv1.RequestedToCapacityRatio, Resources: cpuMem(1, 1),
			RequestedToCapacityRatio: shape(50, 2, 100, 10)}, testPod("p", "1", "2Gi"), 60},
		// An extended resource the pod does not ask for is left out.
		{"extended resource not requested", &configv1.ScoringStrategy{Type: configv1.MostAllocated,
			Resources: append(cpuMem(1, 1), configv1.ResourceSpec{Name: "example.com/gpu", Weight: 5})}, testPod("p", "1", "2Gi"), 75},
		// Asked for: 1 of 2 GPUs in use with the pod, 50 with weight 5.
		{"extended resource requested", &configv1.ScoringStrategy{Type: configv1.MostAllocated,
			Resources: append(cpuMem(1, 1), configv1.ResourceSpec{Name: "example.com/gpu", Weight: 5})},
			testPod("p", "1", "2Gi", func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Requests["example.com/gpu"] = resource.MustParse("1")
			}), (75 + 75 + 50*5) / 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := testNode("n", func(n *corev1.Node) { n.Status.Allocatable["example.com/gpu"] = resource.MustParse("2") })
			ni := withPods(NewNodeInfo(node), testPod("busy", "2", "4Gi", onNode("n")))
			var args *configv1.NodeResourcesFitArgs
			if tc.strategy != nil {
				args = &configv1.NodeResourcesFitArgs{ScoringStrategy: tc.strategy}
			}
			sp := NewNodeResourcesFit(args)
			score, st := sp.Score(context.Background(), nil, NewPodInfo(tc.pod), ni)
			assert.Nil(t, st)
			assert.Equal(t, tc.want, score)
		})
	}
}

// hardPodAffinityWeight is what a pod's required affinity term, matched by
// the incoming pod, adds to its domain; 0 turns it off.
func TestHardPodAffinityWeight(t *testing.T) {
	nodes := []*corev1.Node{testNode("a"), testNode("b")}
	web := testPod("web", "", "", withLabels("app", "web"), onNode("a"), affinity(term(corev1.LabelHostname, "app", "web")))
	for _, tc := range []struct {
		hard int64
		want map[string]int64
	}{
		{1, map[string]int64{"a": 100, "b": 0}},
		{0, map[string]int64{"a": 0, "b": 0}},
	} {
		pod := NewPodInfo(testPod("p", "", "", withLabels("app", "web")))
		assert.Equal(t, tc.want, scoreAll(NewInterPodAffinity(tc.hard), pod, cluster(nodes, web)), "weight %d", tc.hard)
	}
	// The raw score counts the weight, before normalising.
	pod := NewPodInfo(testPod("p", "", "", withLabels("app", "web")))
	sp := NewInterPodAffinity(7)
	nis := cluster(nodes, web)
	pod.state.allNodes = nis
	assert.Nil(t, sp.PreScore(context.Background(), &pod.state, pod, nis))
	score, _ := sp.Score(context.Background(), &pod.state, pod, nis[0])
	assert.Equal(t, int64(7), score)
}

// defaultingType List spreads the pods of a controller by
// defaultConstraints (here DoNotSchedule, maxSkew 1 by hostname); an empty
// list spreads nothing; System is the system defaults (ScheduleAnyway).
func TestPodTopologySpreadDefaulting(t *testing.T) {
	nodes := []*corev1.Node{testNode("a"), testNode("b")}
	first := testPod("web-1", "", "", ownedBy("rs"), onNode("a"))
	pod := func() *PodInfo { return NewPodInfo(testPod("web-2", "", "", ownedBy("rs"))) }
	list := &configv1.PodTopologySpreadArgs{DefaultingType: configv1.ListDefaulting, DefaultConstraints: []corev1.TopologySpreadConstraint{
		{MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule}}}
	f := NewPodTopologySpread(list)
	assert.Equal(t, map[string]string{"a": ErrReasonConstraintsNotMatch, "b": ""}, filterAll(f, pod(), cluster(nodes, first)))

	f = NewPodTopologySpread(&configv1.PodTopologySpreadArgs{DefaultingType: configv1.ListDefaulting})
	assert.Equal(t, map[string]string{"a": "", "b": ""}, filterAll(f, pod(), cluster(nodes, first)))
	p, all := pod(), cluster(nodes, first)
	p.state.allNodes = all
	assert.True(t, f.PreScore(context.Background(), &p.state, p, all).IsSkip(), "nothing to score by")

	s := NewPodTopologySpread(&configv1.PodTopologySpreadArgs{DefaultingType: configv1.SystemDefaulting})
	// maxSkew 3 waters the skew down: the busier node scores 66, not 0.
	assert.Equal(t, map[string]int64{"a": 66, "b": 100}, scoreAll(s, pod(), cluster(nodes, first)))
}
