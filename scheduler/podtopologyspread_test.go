package scheduler

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// spread is a constraint over key selecting app=web.
func spread(key string, maxSkew int32, when corev1.UnsatisfiableConstraintAction, opts ...func(*corev1.TopologySpreadConstraint)) func(*corev1.Pod) {
	c := corev1.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
	for _, o := range opts {
		o(&c)
	}
	return func(p *corev1.Pod) { p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, c) }
}

func minDomains(n int32) func(*corev1.TopologySpreadConstraint) {
	return func(c *corev1.TopologySpreadConstraint) { c.MinDomains = &n }
}

func policies(affinity, taints corev1.NodeInclusionPolicy) func(*corev1.TopologySpreadConstraint) {
	return func(c *corev1.TopologySpreadConstraint) {
		if affinity != "" {
			c.NodeAffinityPolicy = &affinity
		}
		if taints != "" {
			c.NodeTaintsPolicy = &taints
		}
	}
}

func matchLabelKeys(keys ...string) func(*corev1.TopologySpreadConstraint) {
	return func(c *corev1.TopologySpreadConstraint) { c.MatchLabelKeys = keys }
}

func selecting(sel *metav1.LabelSelector) func(*corev1.TopologySpreadConstraint) {
	return func(c *corev1.TopologySpreadConstraint) { c.LabelSelector = sel }
}

// webPods are pods labelled app=web, so many on each node.
func webPods(perNode map[string]int, opts ...func(*corev1.Pod)) []*corev1.Pod {
	var out []*corev1.Pod
	for node, n := range perNode {
		for i := range n {
			name := node + "-web-" + string(rune('a'+i))
			out = append(out, testPod(name, "", "", append([]func(*corev1.Pod){withLabels("app", "web"), onNode(node)}, opts...)...))
		}
	}
	return out
}

func podTopologySpreadFilter() FilterPlugin {
	return pluginNamed("PodTopologySpread", DefaultFilters(), func(p FilterPlugin) string { return p.Name() })
}

func podTopologySpreadScore() ScorePlugin {
	return pluginNamed("PodTopologySpread", DefaultScores(), func(p WeightedScorePlugin) string { return p.Name() }).ScorePlugin
}

func TestPodTopologySpreadFilter(t *testing.T) {
	const zone = corev1.LabelTopologyZone
	// Two zones of two nodes each, and a node without a zone.
	nodes := func(opts ...func(*corev1.Node)) []*corev1.Node {
		return []*corev1.Node{
			testNode("a1", nodeLabels(zone, "a")), testNode("a2", nodeLabels(zone, "a")),
			testNode("b1", nodeLabels(zone, "b")), testNode("b2", append([]func(*corev1.Node){nodeLabels(zone, "b")}, opts...)...),
		}
	}
	web := func(opts ...func(*corev1.Pod)) *corev1.Pod {
		return testPod("p", "", "", append([]func(*corev1.Pod){withLabels("app", "web")}, opts...)...)
	}
	const (
		skew    = ErrReasonConstraintsNotMatch
		noLabel = ErrReasonNodeLabelNotMatch
	)
	for _, tc := range []struct {
		name     string
		nodes    []*corev1.Node
		pod      *corev1.Pod
		existing []*corev1.Pod
		want     map[string]string
	}{
		{"no existing pods: every node fits", nodes(), web(spread(zone, 1, corev1.DoNotSchedule)), nil,
			map[string]string{"a1": "", "a2": "", "b1": "", "b2": ""}},
		{"ScheduleAnyway does not filter", nodes(), web(spread(zone, 1, corev1.ScheduleAnyway)), webPods(map[string]int{"a1": 5}),
			map[string]string{"a1": "", "a2": "", "b1": "", "b2": ""}},
		// zone a 3, zone b 3: a pod may go either way (skew 1).
		{"pods spread 3/3 over the zones: every node fits", nodes(), web(spread(zone, 1, corev1.DoNotSchedule)),
			webPods(map[string]int{"a1": 2, "a2": 1, "b1": 1, "b2": 2}),
			map[string]string{"a1": "", "a2": "", "b1": "", "b2": ""}},
		// zone a 2, zone b 1: zone a would be 3 against 1.
		{"pods spread 2/1 over the zones: only zone b fits", nodes(), web(spread(zone, 1, corev1.DoNotSchedule)),
			webPods(map[string]int{"a1": 2, "b1": 1}),
			map[string]string{"a1": skew, "a2": skew, "b1": "", "b2": ""}},
		{"a node without the topology label is rejected", nodes(func(n *corev1.Node) { delete(n.Labels, zone) }),
			web(spread(zone, 1, corev1.DoNotSchedule)), webPods(map[string]int{"a1": 1}),
			map[string]string{"a1": skew, "a2": skew, "b1": "", "b2": noLabel}},
		// Nodes 2/1/0/3 by hostname, maxSkew 1: only the empty node.
		{"pods spread 2/1/0/3 over the nodes: only the empty one fits", nodes(), web(spread(corev1.LabelHostname, 1, corev1.DoNotSchedule)),
			webPods(map[string]int{"a1": 2, "a2": 1, "b2": 3}),
			map[string]string{"a1": skew, "a2": skew, "b1": "", "b2": skew}},
		{"maxSkew 2: the nodes at 1 and 0 fit", nodes(), web(spread(corev1.LabelHostname, 2, corev1.DoNotSchedule)),
			webPods(map[string]int{"a1": 2, "a2": 1, "b2": 3}),
			map[string]string{"a1": skew, "a2": "", "b1": "", "b2": skew}},
		{"the incoming pod not matching its own selector counts 0 for itself", nodes(),
			testPod("p", "", "", spread(corev1.LabelHostname, 1, corev1.DoNotSchedule)),
			webPods(map[string]int{"a1": 2, "a2": 1, "b2": 3}),
			map[string]string{"a1": skew, "a2": "", "b1": "", "b2": skew}},
		{"pods of another namespace do not count", nodes(), web(spread(zone, 1, corev1.DoNotSchedule)),
			webPods(map[string]int{"a1": 3}, inNamespace("other")),
			map[string]string{"a1": "", "a2": "", "b1": "", "b2": ""}},
		{"pods being deleted do not count", nodes(), web(spread(zone, 1, corev1.DoNotSchedule)),
			webPods(map[string]int{"a1": 3}, func(p *corev1.Pod) { now := metav1.Now(); p.DeletionTimestamp = &now }),
			map[string]string{"a1": "", "a2": "", "b1": "", "b2": ""}},
		{"an empty selector counts no pods", nodes(), web(spread(zone, 1, corev1.DoNotSchedule, selecting(&metav1.LabelSelector{}))),
			webPods(map[string]int{"a1": 3}),
			map[string]string{"a1": "", "a2": "", "b1": "", "b2": ""}},
		// Two domains with 1 pod each, maxSkew 1: fine with minDomains 2;
		// with minDomains 3 the global minimum is 0 and 1+1 > 1.
		{"minDomains met: the minimum is the emptiest domain's", nodes(), web(spread(zone, 1, corev1.DoNotSchedule, minDomains(2))),
			webPods(map[string]int{"a1": 1, "b1": 1}),
			map[string]string{"a1": "", "a2": "", "b1": "", "b2": ""}},
		{"fewer domains than minDomains: the minimum is 0", nodes(), web(spread(zone, 1, corev1.DoNotSchedule, minDomains(3))),
			webPods(map[string]int{"a1": 1, "b1": 1}),
			map[string]string{"a1": skew, "a2": skew, "b1": skew, "b2": skew}},
		// The pod's nodeSelector keeps zone b out of the domains (Honor):
		// zone a alone, with 2 pods, is the minimum, so it fits.
		{"nodeAffinityPolicy Honor: domains the pod may not run in do not count", nodes(),
			web(spread(zone, 1, corev1.DoNotSchedule), func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{zone: "a"} }),
			webPods(map[string]int{"a1": 2}),
			map[string]string{"a1": "", "a2": "", "b1": "", "b2": ""}},
		{"nodeAffinityPolicy Ignore: they do", nodes(),
			web(spread(zone, 1, corev1.DoNotSchedule, policies(corev1.NodeInclusionPolicyIgnore, "")), func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{zone: "a"} }),
			webPods(map[string]int{"a1": 2}),
			map[string]string{"a1": skew, "a2": skew, "b1": "", "b2": ""}},
		// Zone b's nodes are tainted: with Honor it is no domain, zone a
		// (2 pods) is the minimum.
		{"nodeTaintsPolicy Honor: tainted nodes' domains do not count",
			[]*corev1.Node{testNode("a1", nodeLabels(zone, "a")), testNode("b1", nodeLabels(zone, "b"), taint("x", "y", corev1.TaintEffectNoSchedule))},
			web(spread(zone, 1, corev1.DoNotSchedule, policies("", corev1.NodeInclusionPolicyHonor))), webPods(map[string]int{"a1": 2}),
			map[string]string{"a1": "", "b1": ""}},
		{"nodeTaintsPolicy Ignore (the default): they do",
			[]*corev1.Node{testNode("a1", nodeLabels(zone, "a")), testNode("b1", nodeLabels(zone, "b"), taint("x", "y", corev1.TaintEffectNoSchedule))},
			web(spread(zone, 1, corev1.DoNotSchedule)), webPods(map[string]int{"a1": 2}),
			map[string]string{"a1": skew, "b1": ""}},
		// matchLabelKeys: only pods of the same version count.
		{"matchLabelKeys narrows the selector to the pod's own values", nodes(),
			web(withLabels("version", "v2"), spread(zone, 1, corev1.DoNotSchedule, matchLabelKeys("version"))),
			append(webPods(map[string]int{"a1": 3}, withLabels("version", "v1")), webPods(map[string]int{"b1": 1}, withLabels("version", "v2"))...),
			map[string]string{"a1": "", "a2": "", "b1": skew, "b2": skew}},
		{"two constraints must both hold", nodes(),
			web(spread(zone, 1, corev1.DoNotSchedule), spread(corev1.LabelHostname, 1, corev1.DoNotSchedule)),
			webPods(map[string]int{"a1": 1, "b1": 1}),
			map[string]string{"a1": skew, "a2": "", "b1": skew, "b2": ""}},
		{"no constraints and a controller: the defaults are ScheduleAnyway, nothing filtered", nodes(),
			web(ownedBy("rs")), webPods(map[string]int{"a1": 9}, ownedBy("rs")),
			map[string]string{"a1": "", "a2": "", "b1": "", "b2": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nis := cluster(tc.nodes, tc.existing...)
			assert.Equal(t, tc.want, filterAll(podTopologySpreadFilter(), NewPodInfo(tc.pod), nis))
		})
	}
}

func TestPodTopologySpreadScore(t *testing.T) {
	const zone = corev1.LabelTopologyZone
	three := func() []*corev1.Node { return []*corev1.Node{testNode("n1"), testNode("n2"), testNode("n3")} }
	zoned := func() []*corev1.Node {
		return []*corev1.Node{testNode("a1", nodeLabels(zone, "a")), testNode("a2", nodeLabels(zone, "a")), testNode("b1", nodeLabels(zone, "b"))}
	}
	web := func(opts ...func(*corev1.Pod)) *corev1.Pod {
		return testPod("p", "", "", append([]func(*corev1.Pod){withLabels("app", "web")}, opts...)...)
	}
	for _, tc := range []struct {
		name     string
		nodes    []*corev1.Node
		pod      *corev1.Pod
		existing []*corev1.Pod
		want     map[string]int64
	}{
		{"no constraints, no controller: skipped, all 0", three(), web(), webPods(map[string]int{"n1": 2}),
			map[string]int64{"n1": 0, "n2": 0, "n3": 0}},
		{"no pods yet: every node the same", three(), web(spread(corev1.LabelHostname, 1, corev1.ScheduleAnyway)), nil,
			map[string]int64{"n1": 100, "n2": 100, "n3": 100}},
		// weight log(3+2) = 1.609: raw 3.2 → 3, 1.6 → 2, 0; max 3, min 0:
		// 100×(3+0-raw)/3.
		{"by hostname, 2/1/0 pods", three(), web(spread(corev1.LabelHostname, 1, corev1.ScheduleAnyway)), webPods(map[string]int{"n1": 2, "n2": 1}),
			map[string]int64{"n1": 0, "n2": 33, "n3": 100}},
		// maxSkew 3 adds 2 to each: raw 1.386+2 → 3 and 2; 100×(5-raw)/3.
		{"a larger maxSkew waters the difference down", []*corev1.Node{testNode("n1"), testNode("n2")},
			web(spread(corev1.LabelHostname, 3, corev1.ScheduleAnyway)), webPods(map[string]int{"n1": 1}),
			map[string]int64{"n1": 66, "n2": 100}},
		// Zone a holds 2, zone b 1; weight log(2+2) = 1.386: raw 2.77 → 3
		// in a, 1.39 → 1 in b; 100×(3+1-raw)/3.
		{"by zone: the nodes of a zone score alike", zoned(), web(spread(zone, 1, corev1.ScheduleAnyway)), webPods(map[string]int{"a1": 1, "a2": 1, "b1": 1}),
			map[string]int64{"a1": 33, "a2": 33, "b1": 100}},
		{"a node without the label of a constraint of the pod's own scores 0",
			[]*corev1.Node{testNode("a1", nodeLabels(zone, "a")), testNode("nozone")}, web(spread(zone, 1, corev1.ScheduleAnyway)), nil,
			map[string]int64{"a1": 100, "nozone": 0}},
		// System defaults, by hostname (maxSkew 3, weight log 5): raw
		// 2×1.609+2 → 5, 1.609+2 → 4, 2; 100×(5+2-raw)/5.
		{"no constraints but a controller: the system defaults count the controller's pods", three(), web(ownedBy("rs")),
			append(webPods(map[string]int{"n1": 2, "n2": 1}, ownedBy("rs")), webPods(map[string]int{"n3": 4}, ownedBy("other"))...),
			map[string]int64{"n1": 40, "n2": 60, "n3": 100}},
		// Under the system defaults a node without a zone is still spread
		// over by hostname: the zone constraint counts for a1 and a2 only.
		{"the system defaults do not leave out nodes without a zone",
			[]*corev1.Node{testNode("a1", nodeLabels(zone, "a")), testNode("nozone")}, web(ownedBy("rs")), webPods(map[string]int{"a1": 1}, ownedBy("rs")),
			// a1: hostname 1×log(4)+2 = 3.39, zone ("a" and "" are two
			// domains) 1×log(4)+4 = 5.39: 8.77 → 9; nozone: 2 (hostname
			// only). 100×(9+2-raw)/9.
			map[string]int64{"a1": 22, "nozone": 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nis := cluster(tc.nodes, tc.existing...)
			assert.Equal(t, tc.want, scoreAll(podTopologySpreadScore(), NewPodInfo(tc.pod), nis))
		})
	}
}

func TestScheduleSpreadsAController(t *testing.T) {
	nodes := nodeInfos(testNode("node-1"), testNode("node-2"), testNode("node-3"))
	fw := DefaultFramework()
	r := rand.New(rand.NewPCG(3, 4))
	perNode := map[string]int{}
	var d Decision
	for i := range 9 {
		pi := NewPodInfo(testPod("web-"+string(rune('a'+i)), "100m", "128Mi", ownedBy("rs-uid")))
		fw.Schedule(context.Background(), pi, nodes, 0, r, &d)
		require.NotEmpty(t, d.Chosen)
		perNode[d.Chosen]++
		for _, n := range nodes {
			if n.Node.Name == d.Chosen {
				n.AddPod(pi)
			}
		}
	}
	assert.Equal(t, map[string]int{"node-1": 3, "node-2": 3, "node-3": 3}, perNode)
}

// DoNotSchedule by hostname with maxSkew 1 over two nodes: pods
// alternate; and when the emptier node is full, the next pod stays
// Pending with the spreading's reason on the other.
func TestScheduleTopologySpreadConstraint(t *testing.T) {
	nodes := nodeInfos(testNode("node-1"), testNode("node-2"))
	fw := DefaultFramework()
	r := rand.New(rand.NewPCG(1, 1))
	var d Decision
	placed := map[string]int{}
	for i := range 4 {
		pi := NewPodInfo(testPod("web-"+string(rune('a'+i)), "500m", "", withLabels("app", "web"),
			spread(corev1.LabelHostname, 1, corev1.DoNotSchedule)))
		fw.Schedule(context.Background(), pi, nodes, 0, r, &d)
		require.NotEmpty(t, d.Chosen, "pod %d: %s", i, d.String())
		placed[d.Chosen]++
		for _, n := range nodes {
			if n.Node.Name == d.Chosen {
				n.AddPod(pi)
			}
		}
		assert.LessOrEqual(t, max(len(nodes[0].Pods), len(nodes[1].Pods))-min(len(nodes[0].Pods), len(nodes[1].Pods)), 1)
	}
	assert.Equal(t, map[string]int{"node-1": 2, "node-2": 2}, placed)

	// node-1 (1 pod) has no cpu left; node-2 (2 pods) would be 3 against 1.
	full := func(n *corev1.Node) { n.Status.Allocatable[corev1.ResourceCPU] = resourceMust("500m") }
	nodes = cluster([]*corev1.Node{testNode("node-1", full), testNode("node-2")},
		webPods(map[string]int{"node-1": 1, "node-2": 2}, func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resourceMust("500m")}
		})...)
	fw.Schedule(context.Background(), NewPodInfo(testPod("web-e", "500m", "", withLabels("app", "web"), spread(corev1.LabelHostname, 1, corev1.DoNotSchedule))), nodes, 0, r, &d)
	require.Empty(t, d.Chosen)
	assert.Equal(t, "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod topology spread constraints.", d.FitError().Error())
}
