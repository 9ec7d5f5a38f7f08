package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/runmode"
)

func priority(v int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Priority = &v }
}

func labelled(k, v string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Labels = map[string]string{k: v} }
}

func victimNames(c Candidate) []string {
	var out []string
	for _, v := range c.Victims {
		out = append(out, v.Pod.Name)
	}
	return out
}

func TestSelectCandidate(t *testing.T) {
	fw := DefaultFramework()
	// Two nodes of 4 cpu, full.
	node1 := withPods(NewNodeInfo(testNode("node-1")))
	node2 := withPods(NewNodeInfo(testNode("node-2")))
	on := func(ni *NodeInfo, pods ...*corev1.Pod) []*PodInfo {
		var out []*PodInfo
		for _, p := range pods {
			pi := NewPodInfo(p)
			ni.AddPod(pi)
			out = append(out, pi)
		}
		return out
	}
	podsOn := map[string][]*PodInfo{
		"node-1": on(node1, testPod("a-low", "2", "", priority(10)), testPod("a-mid", "2", "", priority(50))),
		"node-2": on(node2, testPod("b-low", "1", "", priority(10)), testPod("b-low2", "1", "", priority(10)), testPod("b-high", "2", "", priority(500))),
	}
	nodes := []*NodeInfo{node1, node2}

	for _, tc := range []struct {
		name    string
		pod     *corev1.Pod
		pdbs    []*policyv1.PodDisruptionBudget
		node    string
		victims []string
		ok      bool
	}{
		{"the least important victims: node-1's priority-10 pod alone", testPod("p", "2", "", priority(100)), nil, "node-1", []string{"a-low"}, true},
		{"a bigger pod: fewest victims of the lowest priority", testPod("p", "4", "", priority(100)), nil, "node-1", []string{"a-mid", "a-low"}, true},
		{"room on node-2 only by two low pods when node-1's is protected", testPod("p", "2", "", priority(100)),
			[]*policyv1.PodDisruptionBudget{{ObjectMeta: metav1.ObjectMeta{Name: "protect", Namespace: "default"},
				Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}}}},
			"node-2", []string{"b-low", "b-low2"}, true},
		{"no pod of lower priority: nothing to preempt", testPod("p", "1", "", priority(5)), nil, "", nil, false},
		{"too big even for an empty node", testPod("p", "8", "", priority(1000)), nil, "", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.pdbs != nil {
				// The budget protects a-low (and a-mid, labelled alike).
				podsOn["node-1"][0].Pod.Labels = map[string]string{"app": "a"}
				podsOn["node-1"][1].Pod.Labels = map[string]string{"app": "a"}
				defer func() { podsOn["node-1"][0].Pod.Labels, podsOn["node-1"][1].Pod.Labels = nil, nil }()
			}
			c, ok := fw.SelectCandidate(NewPodInfo(tc.pod), nodes, 0, podsOn, tc.pdbs)
			require.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.node, c.Node)
			assert.Equal(t, tc.victims, victimNames(c))
		})
	}
	// The nodes' own totals are untouched.
	assert.Equal(t, int64(4000), node1.Requested.MilliCPU)
	assert.Equal(t, int64(4000), node2.Requested.MilliCPU)
}

func TestSplitByBudget(t *testing.T) {
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "default"},
		Spec:   policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 1}}
	pods := []*PodInfo{NewPodInfo(testPod("w1", "1", "", labelled("app", "web"))), NewPodInfo(testPod("w2", "1", "", labelled("app", "web"))),
		NewPodInfo(testPod("other", "1", ""))}
	violating, other := splitByBudget(pods, []*policyv1.PodDisruptionBudget{pdb})
	assert.Equal(t, []string{"w2"}, names(violating), "the budget allows one: the second would break it")
	assert.Equal(t, []string{"w1", "other"}, names(other))
}

func names(ps []*PodInfo) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Pod.Name)
	}
	return out
}

func TestPreemptionInStepMode(t *testing.T) {
	e := newEnv(t, 1)
	e.createNode("node-1", "2", "8Gi")
	for name, v := range map[string]int32{"low": 10, "high": 1000} {
		_, err := e.Client.PriorityClasses().Create(e.ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: v})
		require.NoError(t, err)
	}
	withClass := func(c string) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Spec.PriorityClassName = c } }
	e.createPod(testPod("filler", "2", "", withClass("low")))
	e.run()
	require.Equal(t, "node-1", e.pod("filler").Spec.NodeName)

	vip := e.createPod(testPod("vip", "1", "", withClass("high")))
	e.run()
	got := e.pod("vip")
	assert.Empty(t, got.Spec.NodeName, "not bound while the victim terminates")
	assert.Equal(t, "node-1", got.Status.NominatedNodeName)
	assert.Equal(t, corev1.PodReasonUnschedulable, condition(got, corev1.PodScheduled).Reason)

	victim := e.pod("filler")
	require.NotNil(t, victim.DeletionTimestamp, "the victim is deleted gracefully")
	c := condition(victim, corev1.DisruptionTarget)
	require.NotNil(t, c)
	assert.Equal(t, corev1.ConditionTrue, c.Status)
	assert.Equal(t, "PreemptionByScheduler", c.Reason)
	assert.Equal(t, "default-scheduler: preempting to accommodate a higher priority pod", c.Message)
	var preempted []string
	for _, ev := range e.events("filler") {
		if ev.Reason == "Preempted" {
			preempted = append(preempted, ev.Message)
		}
	}
	assert.Equal(t, []string{"Preempted by pod " + string(vip.UID) + " on node node-1"}, preempted)

	// Another cycle while the victim terminates preempts nothing more;
	// once it is gone, the pod is bound where it was nominated.
	require.NoError(t, e.Client.Pods().Delete(e.ctx, "default", "filler", &metav1.DeleteOptions{GracePeriodSeconds: new(int64)}))
	e.run()
	assert.Equal(t, "node-1", e.pod("vip").Spec.NodeName)
}

func TestNumCandidates(t *testing.T) {
	for nodes, want := range map[int]int{0: 0, 3: 3, 100: 100, 150: 100, 1000: 100, 2000: 200, 5000: 500} {
		assert.Equal(t, want, NumCandidates(nodes), "%d nodes", nodes)
	}
}

func TestSelectCandidateLooksAtNumCandidatesFromTheOffset(t *testing.T) {
	// 300 full nodes, each with one pod of priority 5 except node-0250,
	// whose pod has priority 1: the best victim. The dry run looks at 100
	// candidates from the offset, so it finds node-0250 only when the
	// window holds it.
	fw := DefaultFramework()
	nodes := manyNodes(300, nil)
	podsOn := map[string][]*PodInfo{}
	for i, ni := range nodes {
		prio := int32(5)
		if i == 250 {
			prio = 1
		}
		p := NewPodInfo(testPod(fmt.Sprintf("v-%04d", i), "4", "", priority(prio)))
		ni.AddPod(p)
		podsOn[ni.Node.Name] = []*PodInfo{p}
	}
	pod := NewPodInfo(testPod("p", "2", "", priority(100)))
	for _, tc := range []struct {
		offset int
		node   string
	}{
		{0, "node-0000"},   // nodes 0 to 99: all alike, the first found wins
		{200, "node-0250"}, // nodes 200 to 299
		{150, "node-0150"}, // nodes 150 to 249: one short of it
		{151, "node-0250"}, // nodes 151 to 250: node-0250 is the 100th
		{250, "node-0250"},
		{260, "node-0260"}, // nodes 260 to 299 and 0 to 59
	} {
		c, ok := fw.SelectCandidate(pod, nodes, tc.offset, podsOn, nil)
		require.True(t, ok)
		assert.Equal(t, tc.node, c.Node, "offset %d", tc.offset)
	}
	// A budget that every victim but node-0299's would break: the dry
	// run goes on past 100 candidates until one breaks none.
	for _, ni := range nodes {
		podsOn[ni.Node.Name][0].Pod.Labels = map[string]string{"app": "guarded"}
	}
	podsOn["node-0299"][0].Pod.Labels = nil
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "guard", Namespace: "default"},
		Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "guarded"}}}}
	c, ok := fw.SelectCandidate(pod, nodes, 0, podsOn, []*policyv1.PodDisruptionBudget{pdb})
	require.True(t, ok)
	assert.Equal(t, "node-0299", c.Node)
	assert.Zero(t, c.Violating)
}

// countingSource is a random source that counts its draws.
type countingSource struct {
	rand.Source
	draws int
}

func (c *countingSource) Uint64() uint64 {
	c.draws++
	return c.Source.Uint64()
}

func TestPreemptionDrawsAnOffsetOnlyWhenItSamples(t *testing.T) {
	// Full nodes of low-priority pods, then a high-priority pod: its
	// preemption draws the dry run's offset from the scheduler's random
	// source only when NumCandidates is fewer than the nodes (101 nodes),
	// never in a cluster of up to 100 (whose traces must not change).
	for _, tc := range []struct {
		nodes, draws int
	}{{3, 0}, {100, 0}, {101, 1}} {
		t.Run(fmt.Sprintf("%d nodes", tc.nodes), func(t *testing.T) {
			e := newEnv(t, 1)
			src := &countingSource{Source: rand.NewPCG(1, 1)}
			s, err := New(Config{Client: e.Client, Clock: e.Clock, Mode: runmode.Step, Rand: rand.New(src)})
			require.NoError(t, err)
			e.sched, e.ctrl = s, s.Controllers()[0]
			_, err = e.Client.PriorityClasses().Create(e.ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000})
			require.NoError(t, err)
			for i := range tc.nodes {
				e.createNode(fmt.Sprintf("node-%03d", i), "2", "8Gi")
				e.createPod(testPod(fmt.Sprintf("filler-%03d", i), "2", "", func(p *corev1.Pod) { p.Spec.NodeName = fmt.Sprintf("node-%03d", i) }))
			}
			e.run()
			before := src.draws
			e.createPod(testPod("vip", "1", "", func(p *corev1.Pod) { p.Spec.PriorityClassName = "high" }))
			e.run()
			assert.NotEmpty(t, e.pod("vip").Status.NominatedNodeName, "preempted")
			assert.Equal(t, tc.draws, src.draws-before)
		})
	}
}
