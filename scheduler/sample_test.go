package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubesim/kubesim/runmode"
)

// Tests of percentageOfNodesToScore: a cycle filters nodes only until it
// has found NumFeasibleNodesToFind feasible ones, starting where the
// previous cycle stopped.

func TestNumFeasibleNodesToFind(t *testing.T) {
	for _, tc := range []struct {
		name       string
		percentage int32
		nodes      int
		want       int
	}{
		{"no nodes", 0, 0, 0},
		{"a small cluster is filtered whole", 0, 50, 50},
		{"99 nodes: still whole", 0, 99, 99},
		{"100 nodes: 50 % is 50, raised to the 100-node floor", 0, 100, 100},
		{"150 nodes: 49 % is 73, raised to 100", 0, 150, 100},
		{"1,000 nodes: 50 - 8 = 42 %", 0, 1000, 420},
		{"2,000 nodes: 50 - 16 = 34 %", 0, 2000, 680},
		{"5,000 nodes: 50 - 40 = 10 %", 0, 5000, 500},
		{"6,000 nodes: 50 - 48 = 2 %, raised to the 5 % floor", 0, 6000, 300},
		{"configured 30 % of 1,000", 30, 1000, 300},
		{"configured 30 % of 200 is 60, raised to 100", 30, 200, 100},
		{"configured 1 % of 5,000 is 50, raised to 100", 1, 5000, 100},
		{"configured 100 %: every node", 100, 5000, 5000},
		{"configured, but under 100 nodes: whole", 10, 80, 80},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fw := &Framework{PercentageOfNodesToScore: tc.percentage}
			assert.Equal(t, tc.want, fw.NumFeasibleNodesToFind(tc.nodes))
		})
	}
}

func TestValidatePercentageOfNodesToScore(t *testing.T) {
	require.NoError(t, ValidatePercentageOfNodesToScore(0))
	require.NoError(t, ValidatePercentageOfNodesToScore(100))
	assert.EqualError(t, ValidatePercentageOfNodesToScore(101), "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]")
	assert.Error(t, ValidatePercentageOfNodesToScore(-1))

	fw := DefaultFramework()
	fw.PercentageOfNodesToScore = 120
	e := newEnv(t, 1)
	_, err := New(Config{Client: e.Client, Clock: e.Clock, Mode: runmode.Step, Rand: rand.New(rand.NewPCG(1, 1)), Framework: fw})
	assert.ErrorContains(t, err, "not in valid range [0-100]")
}

// countingFramework is the default profile with a last filter and a score
// that count the nodes they are asked about.
func countingFramework(percentage int32) (fw *Framework, filtered, scored *int) {
	filtered, scored = new(int), new(int)
	fw = DefaultFramework()
	fw.PercentageOfNodesToScore = percentage
	fw.Filter = append(fw.Filter, &testPlugin{name: "Count", filter: func(*PodInfo, *NodeInfo) *Status {
		*filtered++
		return nil
	}})
	fw.Score = append(fw.Score, WeightedScorePlugin{&testPlugin{name: "Count", score: func(*PodInfo, *NodeInfo) int64 {
		*scored++
		return 0
	}}, 0})
	return fw, filtered, scored
}

// manyNodes is n NodeInfos named node-0000... in name order, changed by
// opt (given each node's index).
func manyNodes(n int, opt func(i int, node *corev1.Node)) []*NodeInfo {
	out := make([]*NodeInfo, n)
	for i := range out {
		node := testNode(fmt.Sprintf("node-%04d", i))
		if opt != nil {
			opt(i, node)
		}
		out[i] = NewNodeInfo(node)
	}
	return out
}

func triedNodes(d *Decision) []string {
	out := make([]string, len(d.Nodes))
	for i, n := range d.Nodes {
		out[i] = n.Node
	}
	return out
}

func TestScheduleFiltersAndScoresOnlyTheNodesToFind(t *testing.T) {
	nodes := manyNodes(1000, nil)
	pod := NewPodInfo(testPod("p", "100m", "128Mi"))

	fw, filtered, scored := countingFramework(0)
	var d Decision
	fw.Schedule(context.Background(), pod, nodes, 0, rand.New(rand.NewPCG(1, 1)), &d)
	assert.Equal(t, 420, *filtered, "every node fits: filtering stops at 42 % of 1,000")
	assert.Equal(t, 420, *scored, "only the feasible nodes found are scored")
	require.Len(t, d.Nodes, 420)
	assert.Equal(t, "node-0000", d.Nodes[0].Node)
	assert.Equal(t, "node-0419", d.Nodes[419].Node)
	assert.NotEmpty(t, d.Chosen)

	fw, filtered, scored = countingFramework(100)
	fw.Schedule(context.Background(), pod, nodes, 0, rand.New(rand.NewPCG(1, 1)), &d)
	assert.Equal(t, 1000, *filtered, "100 % filters every node")
	assert.Equal(t, 1000, *scored)

	fw, filtered, _ = countingFramework(25)
	fw.Schedule(context.Background(), pod, nodes, 0, rand.New(rand.NewPCG(1, 1)), &d)
	assert.Equal(t, 250, *filtered, "a configured percentage")

	// Nodes that do not fit do not count: with every other node full,
	// 420 feasible nodes take 840 tries.
	full := manyNodes(1000, func(i int, n *corev1.Node) {
		if i%2 == 0 {
			n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("50m")
		}
	})
	fw, filtered, scored = countingFramework(0)
	fw.Schedule(context.Background(), pod, full, 0, rand.New(rand.NewPCG(1, 1)), &d)
	assert.Len(t, d.Nodes, 840)
	assert.Equal(t, 420, *filtered, "the counting filter, last, sees only the nodes with room")
	assert.Equal(t, 420, *scored)
}

func TestScheduleStartsWhereThePreviousCycleStopped(t *testing.T) {
	nodes := manyNodes(1000, nil)
	fw := DefaultFramework()
	r := rand.New(rand.NewPCG(1, 1))
	var d Decision
	next := 0
	var tried [][]string
	for i := range 3 {
		fw.Schedule(context.Background(), NewPodInfo(testPod(fmt.Sprintf("p-%d", i), "100m", "128Mi")), nodes, next, r, &d)
		tried = append(tried, triedNodes(&d))
		assert.Contains(t, tried[i], d.Chosen, "the pod goes to a node it tried")
		next = (next + len(d.Nodes)) % len(nodes)
	}
	require.Len(t, tried[0], 420)
	assert.Equal(t, []string{"node-0000", "node-0419"}, []string{tried[0][0], tried[0][419]})
	require.Len(t, tried[1], 420)
	assert.Equal(t, []string{"node-0420", "node-0839"}, []string{tried[1][0], tried[1][419]})
	// The third goes round: node-0840 to node-0999, then node-0000 to
	// node-0259, kept in name order.
	require.Len(t, tried[2], 420)
	assert.Equal(t, []string{"node-0000", "node-0259", "node-0840", "node-0999"},
		[]string{tried[2][0], tried[2][259], tried[2][260], tried[2][419]})
	assert.Equal(t, 260, next, "the fourth starts after the last node tried")

	// A start past the end of a list that shrank is taken modulo its length.
	fw.Schedule(context.Background(), NewPodInfo(testPod("q", "100m", "128Mi")), nodes[:500], 900, r, &d)
	// 46 % of 500 is 230 nodes: node-0400 to node-0499, then node-0000
	// to node-0129.
	require.Len(t, d.Nodes, 230)
	assert.Equal(t, []string{"node-0000", "node-0129", "node-0400"}, []string{d.Nodes[0].Node, d.Nodes[129].Node, d.Nodes[130].Node}, "900 mod 500")
}

func TestScheduleFindsTheOneNodeThatFitsAtTheEnd(t *testing.T) {
	// Only the last node has room: every node is tried, and the message
	// when none fits still counts them all.
	nodes := manyNodes(1000, func(i int, n *corev1.Node) {
		if i != 999 {
			n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("1")
		}
	})
	fw := DefaultFramework()
	var d Decision
	for _, start := range []int{0, 500, 999} {
		fw.Schedule(context.Background(), NewPodInfo(testPod("big", "2", "")), nodes, start, rand.New(rand.NewPCG(1, 1)), &d)
		assert.Equal(t, "node-0999", d.Chosen, "start %d", start)
		assert.Len(t, d.Nodes, 1000, "start %d: too few fit, so every node was tried", start)
		assert.Equal(t, "node-0000", d.Nodes[0].Node, "start %d: name order", start)
	}
	fw.Schedule(context.Background(), NewPodInfo(testPod("huge", "8", "")), nodes, 300, rand.New(rand.NewPCG(1, 1)), &d)
	assert.Empty(t, d.Chosen)
	assert.Equal(t, "0/1000 nodes are available: 1000 Insufficient cpu.", d.FitError().Error())
}

func TestScheduleUnderMinFeasibleNodesIsUnchangedByTheStart(t *testing.T) {
	// 100 nodes are filtered whole: any start gives the same decision,
	// in name order, as start 0 (the goldens' clusters are this small).
	nodes := manyNodes(100, func(i int, n *corev1.Node) {
		if i%3 == 0 {
			n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("1")
		}
	})
	fw, filtered, _ := countingFramework(0)
	pod := NewPodInfo(testPod("p", "2", ""))
	var want Decision
	fw.Schedule(context.Background(), pod, nodes, 0, rand.New(rand.NewPCG(5, 5)), &want)
	for _, start := range []int{1, 37, 99, 250} {
		*filtered = 0
		var d Decision
		fw.Schedule(context.Background(), pod, nodes, start, rand.New(rand.NewPCG(5, 5)), &d)
		assert.Equal(t, want.String(), d.String(), "start %d", start)
		assert.Equal(t, 66, *filtered, "start %d: the 66 nodes with room reach the counting filter", start)
		assert.Len(t, d.Nodes, 100)
	}
}

func TestScheduleWithoutScoresTakesTheFirstFeasibleNode(t *testing.T) {
	fw := &Framework{Filter: DefaultFilters()}
	nodes := manyNodes(10, func(i int, n *corev1.Node) {
		if i < 4 {
			n.Spec.Unschedulable = true
		}
	})
	r, fresh := rand.New(rand.NewPCG(2, 2)), rand.New(rand.NewPCG(2, 2))
	var d Decision
	fw.Schedule(context.Background(), NewPodInfo(testPod("p", "", "")), nodes, 0, r, &d)
	assert.Equal(t, "node-0004", d.Chosen)
	assert.Len(t, d.Nodes, 5, "it stops at the first node that passes")
	assert.Equal(t, fresh.Uint64(), r.Uint64(), "no tie to break")
}

func TestSchedulerRotatesTheStartAcrossCycles(t *testing.T) {
	// 150 nodes: each cycle tries 100 of them (the floor), the next one
	// from where it stopped.
	e := newEnv(t, 1)
	for i := range 150 {
		e.createNode(fmt.Sprintf("node-%03d", i), "4", "8Gi")
	}
	var seen []Decision
	e.sched.ObserveDecisions(func(d Decision) { seen = append(seen, d) })
	for _, name := range []string{"a", "b"} {
		e.createPod(testPod(name, "100m", "128Mi"))
		e.run()
	}
	require.Len(t, seen, 2)
	first, second := triedNodes(&seen[0]), triedNodes(&seen[1])
	require.Len(t, first, 100)
	assert.Equal(t, []string{"node-000", "node-099"}, []string{first[0], first[99]})
	require.Len(t, second, 100)
	assert.Equal(t, []string{"node-000", "node-049", "node-100", "node-149"}, []string{second[0], second[49], second[50], second[99]},
		"the second cycle tried node-100 to node-149, then went round to node-049")
	assert.Contains(t, first, e.pod("a").Spec.NodeName)
	assert.Contains(t, second, e.pod("b").Spec.NodeName)
}
