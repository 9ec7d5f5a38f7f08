package scheduler

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestLeastAllocated(t *testing.T) {
	bound := func(p *corev1.Pod) { p.Spec.NodeName = "n" }
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		node *NodeInfo
		want int64
	}{
		// cpu (4-1)/4 = 75, memory (8-1)/8 = 87.5 → 87; average 81.
		{"1 cpu 1Gi on an empty node", testPod("p", "1", "1Gi"), NewNodeInfo(testNode("n")), 81},
		// A pod asking nothing counts as 100m and 200Mi: 97.5 → 97 and 97.5 → 97.
		{"nothing requested counts the defaults", testPod("p", "", ""), NewNodeInfo(testNode("n")), 97},
		// cpu (4-3)/4 = 25, memory (8-5)/8 = 37.5 → 37; average 31.
		{"pods already there count", testPod("p", "1", "1Gi"), withPods(NewNodeInfo(testNode("n")), testPod("a", "2", "4Gi", bound)), 31},
		{"exactly full", testPod("p", "4", "8Gi"), NewNodeInfo(testNode("n")), 0},
		// cpu past capacity scores 0; memory (8-4)/8 = 50; average 25.
		{"past capacity scores zero for that resource", testPod("p", "5", "4Gi"), NewNodeInfo(testNode("n")), 25},
		{"a node without allocatable", testPod("p", "1", "1Gi"), NewNodeInfo(testNode("n", func(n *corev1.Node) { n.Status.Allocatable = nil })), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, LeastAllocated(NewPodInfo(tc.pod), tc.node))
		})
	}
}

func TestFitErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		name    string
		nodes   int
		reasons map[string]int
		want    string
	}{
		{"one reason", 3, map[string]int{ErrReasonInsufficientCPU: 3}, "0/3 nodes are available: 3 Insufficient cpu."},
		{"two reasons sorted", 3, map[string]int{ErrReasonInsufficientCPU: 2, ErrReasonUnschedulable: 1},
			"0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu."},
		{"one node, two reasons", 1, map[string]int{ErrReasonInsufficientMemory: 1, ErrReasonInsufficientCPU: 1},
			"0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory."},
		{"sorted as strings, so 10 before 2", 12, map[string]int{"node(s) had untolerated taint {dedicated: gpu}": 10, ErrReasonInsufficientCPU: 2},
			"0/12 nodes are available: 10 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu."},
		{"no nodes", 0, map[string]int{}, "no nodes available to schedule pods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe := &FitError{NumAllNodes: tc.nodes, Reasons: tc.reasons}
			assert.Equal(t, tc.want, fe.Error())
		})
	}
}

// nodeInfos builds NodeInfos in name order.
func nodeInfos(nodes ...*corev1.Node) []*NodeInfo {
	out := make([]*NodeInfo, len(nodes))
	for i, n := range nodes {
		out[i] = NewNodeInfo(n)
	}
	return out
}

func TestScheduleFailureMessages(t *testing.T) {
	cordoned := func(n *corev1.Node) { n.Spec.Unschedulable = true }
	small := func(n *corev1.Node) { n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("1") }
	fw := DefaultFramework()
	for _, tc := range []struct {
		name  string
		pod   *corev1.Pod
		nodes []*NodeInfo
		want  string
	}{
		{"3 Insufficient cpu", testPod("big", "64", ""), nodeInfos(testNode("node-1"), testNode("node-2"), testNode("node-3")),
			"0/3 nodes are available: 3 Insufficient cpu."},
		{"unschedulable and cpu", testPod("p", "2", ""), nodeInfos(testNode("node-1", cordoned), testNode("node-2", small), testNode("node-3", small)),
			"0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu."},
		{"the first failing filter wins per node", testPod("p", "64", "64Gi"), nodeInfos(testNode("node-1", cordoned, ready(corev1.ConditionFalse)), testNode("node-2", ready(corev1.ConditionFalse)), testNode("node-3")),
			"0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) were not ready, 1 node(s) were unschedulable."},
		{"taint and selector", testPod("p", "", "", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd"} }),
			nodeInfos(testNode("a", taint("dedicated", "gpu", corev1.TaintEffectNoSchedule)), testNode("b", taint(corev1.TaintNodeUnreachable, "", corev1.TaintEffectNoExecute)), testNode("c")),
			"0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }."},
		{"no nodes", testPod("p", "", ""), nil, "no nodes available to schedule pods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d Decision
			fw.Schedule(context.Background(), NewPodInfo(tc.pod), tc.nodes, 0, rand.New(rand.NewPCG(1, 2)), &d)
			require.Empty(t, d.Chosen)
			assert.Equal(t, tc.want, d.FitError().Error())
		})
	}
}

func TestScheduleScoresAndTies(t *testing.T) {
	small := func(n *corev1.Node) { n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("1") }
	nodes := nodeInfos(testNode("node-1"), testNode("node-2", small), testNode("node-3"))
	fw := DefaultFramework()
	pod := NewPodInfo(testPod("web-abc", "2", "1Gi"))

	// node-1 and node-3 tie; the seed decides, the same way every time.
	picks := map[string]int{}
	for seed := range uint64(40) {
		var d1, d2 Decision
		fw.Schedule(context.Background(), pod, nodes, 0, rand.New(rand.NewPCG(seed, 0)), &d1)
		fw.Schedule(context.Background(), pod, nodes, 0, rand.New(rand.NewPCG(seed, 0)), &d2)
		require.Equal(t, d1.Chosen, d2.Chosen, "same seed, same node")
		assert.Equal(t, 2, d1.Ties)
		picks[d1.Chosen]++
	}
	assert.Len(t, picks, 2, "different seeds pick both tied nodes: %v", picks)
	assert.Zero(t, picks["node-2"])

	var d Decision
	fw.Schedule(context.Background(), pod, nodes, 0, rand.New(rand.NewPCG(1, 0)), &d)
	// LeastAllocated: cpu (4-2)/4 = 50, memory 87 → 68; no controller and
	// no constraints, so PodTopologySpread is skipped (0), and so is
	// InterPodAffinity: 68.
	other := map[string]string{"node-1": "node-3", "node-3": "node-1"}[d.Chosen]
	want := map[string]string{
		d.Chosen: d.Chosen + ": score 68 (tie, picked by seed)",
		other:    other + ": score 68",
	}
	assert.Equal(t, want["node-1"]+" | node-2: Insufficient cpu | "+want["node-3"], d.String())
	assert.Nil(t, d.FitError())

	// One node clearly best: marked chosen, the random source untouched.
	// node-1 now has 1 cpu and 200Mi (defaulted) taken: cpu 25, memory 85
	// → 55.
	r, fresh := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7))
	withPods(nodes[0], testPod("x", "1", "", func(p *corev1.Pod) { p.Spec.NodeName = "node-1" }))
	fw.Schedule(context.Background(), pod, nodes, 0, r, &d)
	assert.Equal(t, "node-3", d.Chosen)
	assert.Equal(t, 1, d.Ties)
	assert.Equal(t, "node-1: score 55 | node-2: Insufficient cpu | node-3: score 68 (chosen)", d.String())
	assert.Equal(t, fresh.Uint64(), r.Uint64(), "no tie, no draw")
}

func TestDecisionCopyIsIndependent(t *testing.T) {
	nodes := nodeInfos(testNode("node-1"), testNode("node-2"))
	fw := DefaultFramework()
	var d Decision
	fw.Schedule(context.Background(), NewPodInfo(testPod("a", "64", "")), nodes, 0, rand.New(rand.NewPCG(1, 1)), &d)
	c := d.Copy()
	fw.Schedule(context.Background(), NewPodInfo(testPod("b", "1", "")), nodes, 0, rand.New(rand.NewPCG(1, 1)), &d)
	assert.Equal(t, "default/a", c.Pod)
	assert.Equal(t, "node-1: Insufficient cpu | node-2: Insufficient cpu", c.String())
	assert.Equal(t, "default/b", d.Pod)
	assert.Empty(t, Decision{}.String())
}

// Each feasible node's score is told plugin by plugin, weighted, in the
// order of the decision's ScorePlugins; a copy keeps them when the next
// decision reuses the memory.
func TestDecisionPluginScores(t *testing.T) {
	nodes := nodeInfos(testNode("node-1"), testNode("node-2", func(n *corev1.Node) { n.Spec.Unschedulable = true }))
	fw := DefaultFramework()
	var d Decision
	fw.Schedule(context.Background(), NewPodInfo(testPod("web", "2", "1Gi", ownedBy("rs"))), nodes, 0, rand.New(rand.NewPCG(1, 0)), &d)
	assert.Equal(t, []string{"NodeResourcesFit", "PodTopologySpread", "InterPodAffinity"}, d.ScorePlugins)
	require.Equal(t, "node-1", d.Chosen)
	ps := d.PluginScores(0)
	require.Len(t, ps, 3)
	var sum int64
	for _, s := range ps {
		sum += s
	}
	assert.Equal(t, d.Nodes[0].Score, sum)
	assert.Equal(t, int64(68), ps[0], "LeastAllocated, weight 1")
	assert.Equal(t, int64(200), ps[1], "the one node of its domains spreads best: 100 × weight 2")
	assert.Nil(t, d.PluginScores(1), "a node that did not pass has none")

	c := d.Copy()
	fw.Schedule(context.Background(), NewPodInfo(testPod("other", "1", "1Gi")), nodes, 0, rand.New(rand.NewPCG(1, 0)), &d)
	assert.Equal(t, int64(68), c.PluginScores(0)[0], "the copy shares nothing")
}
