package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
)

// The options and helpers of the inter-pod affinity and spreading tests.

func withLabels(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func inNamespace(ns string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Namespace = ns }
}

func onNode(name string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.NodeName = name }
}

func nodeLabels(kv ...string) func(*corev1.Node) {
	return func(n *corev1.Node) {
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func noHostname(n *corev1.Node) { delete(n.Labels, corev1.LabelHostname) }

// term is a required term selecting key=value by topologyKey.
func term(topologyKey, key, value string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{TopologyKey: topologyKey,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{key: value}}}
}

func affinity(terms ...corev1.PodAffinityTerm) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		ensureAffinity(p)
		p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}
	}
}

func antiAffinity(terms ...corev1.PodAffinityTerm) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		ensureAffinity(p)
		p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}
	}
}

func preferAffinity(weight int32, t corev1.PodAffinityTerm) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		ensureAffinity(p)
		if p.Spec.Affinity.PodAffinity == nil {
			p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{}
		}
		pa := p.Spec.Affinity.PodAffinity
		pa.PreferredDuringSchedulingIgnoredDuringExecution = append(pa.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: t})
	}
}

func preferAntiAffinity(weight int32, t corev1.PodAffinityTerm) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		ensureAffinity(p)
		if p.Spec.Affinity.PodAntiAffinity == nil {
			p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		pa := p.Spec.Affinity.PodAntiAffinity
		pa.PreferredDuringSchedulingIgnoredDuringExecution = append(pa.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: t})
	}
}

func ensureAffinity(p *corev1.Pod) {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
}

// cluster builds NodeInfos with the pods on them (each pod's
// spec.nodeName says where).
func cluster(nodes []*corev1.Node, pods ...*corev1.Pod) []*NodeInfo {
	nis := nodeInfos(nodes...)
	for _, p := range pods {
		for _, ni := range nis {
			if ni.Node.Name == p.Spec.NodeName {
				ni.AddPod(NewPodInfo(p))
			}
		}
	}
	return nis
}

// filterAll runs one filter plugin, PreFilter first, over every node and
// returns each node's first reason ("" when it passes) by name, or the
// PreFilter's rejection under "*".
func filterAll(fp FilterPlugin, pod *PodInfo, nodes []*NodeInfo) map[string]string {
	ctx := context.Background()
	out := map[string]string{}
	if pf, ok := fp.(PreFilterPlugin); ok {
		if st := pf.PreFilter(ctx, &pod.state, pod, nodes); !st.IsSuccess() {
			return map[string]string{"*": st.Message()}
		}
	}
	for _, ni := range nodes {
		out[ni.Node.Name] = ""
		if st := fp.Filter(ctx, &pod.state, pod, ni); !st.IsSuccess() {
			out[ni.Node.Name] = st.Reasons()[0]
		}
	}
	return out
}

// scoreAll runs one score plugin (PreScore, Score, Normalize) with every
// node feasible and returns the normalised scores by node name.
func scoreAll(sp ScorePlugin, pod *PodInfo, nodes []*NodeInfo) map[string]int64 {
	ctx := context.Background()
	raw := make([]int64, len(nodes))
	pod.state.allNodes = nodes
	if ps, ok := sp.(PreScorePlugin); ok && ps.PreScore(ctx, &pod.state, pod, nodes).IsSkip() {
		out := map[string]int64{}
		for _, ni := range nodes {
			out[ni.Node.Name] = 0 // skipped
		}
		return out
	}
	for i, ni := range nodes {
		raw[i], _ = sp.Score(ctx, &pod.state, pod, ni)
	}
	if ext := sp.ScoreExtensions(); ext != nil {
		ext.NormalizeScore(ctx, &pod.state, pod, raw)
	}
	out := map[string]int64{}
	for i, ni := range nodes {
		out[ni.Node.Name] = raw[i]
	}
	return out
}

func pluginNamed[T any](name string, list []T, nameOf func(T) string) T {
	for _, p := range list {
		if nameOf(p) == name {
			return p
		}
	}
	panic("no plugin " + name)
}

func interPodAffinityFilter() FilterPlugin {
	return pluginNamed("InterPodAffinity", DefaultFilters(), func(p FilterPlugin) string { return p.Name() })
}

func interPodAffinityScore() ScorePlugin {
	return pluginNamed("InterPodAffinity", DefaultScores(), func(p WeightedScorePlugin) string { return p.Name() }).ScorePlugin
}

func TestInterPodAffinityFilter(t *testing.T) {
	const zone = corev1.LabelTopologyZone
	twoZones := []*corev1.Node{
		testNode("a1", nodeLabels(zone, "a")), testNode("a2", nodeLabels(zone, "a")),
		testNode("b1", nodeLabels(zone, "b")), testNode("nozone"),
	}
	db := func(name, node string, opts ...func(*corev1.Pod)) *corev1.Pod {
		return testPod(name, "", "", append([]func(*corev1.Pod){withLabels("app", "db"), onNode(node)}, opts...)...)
	}
	const (
		affinityReason = ErrReasonAffinityRulesNotMatch
		antiReason     = ErrReasonAntiAffinityRulesNotMatch
		existingReason = ErrReasonExistingAntiAffinityRulesNotMatch
	)
	for _, tc := range []struct {
		name     string
		pod      *corev1.Pod
		existing []*corev1.Pod
		want     map[string]string
	}{
		{"no terms anywhere: every node passes", testPod("p", "", ""), []*corev1.Pod{db("db-0", "a1")},
			map[string]string{"a1": "", "a2": "", "b1": "", "nozone": ""}},
		{"affinity by hostname: only the node with the db pod", testPod("p", "", "", affinity(term(corev1.LabelHostname, "app", "db"))),
			[]*corev1.Pod{db("db-0", "a1")},
			map[string]string{"a1": "", "a2": affinityReason, "b1": affinityReason, "nozone": affinityReason}},
		{"affinity by zone: every node of the db pod's zone; a node without the zone label fails", testPod("p", "", "", affinity(term(zone, "app", "db"))),
			[]*corev1.Pod{db("db-0", "a1")},
			map[string]string{"a1": "", "a2": "", "b1": affinityReason, "nozone": affinityReason}},
		{"two affinity terms are met only by one pod matching both", testPod("p", "", "", affinity(term(zone, "app", "db"), term(zone, "tier", "gold"))),
			[]*corev1.Pod{db("db-0", "a1"), testPod("gold", "", "", withLabels("tier", "gold"), onNode("b1"))},
			map[string]string{"a1": affinityReason, "a2": affinityReason, "b1": affinityReason, "nozone": affinityReason}},
		{"two affinity terms, one pod matching both", testPod("p", "", "", affinity(term(zone, "app", "db"), term(zone, "tier", "gold"))),
			[]*corev1.Pod{db("db-0", "b1", withLabels("tier", "gold"))},
			map[string]string{"a1": affinityReason, "a2": affinityReason, "b1": "", "nozone": affinityReason}},
		{"the first pod of a group with affinity to itself goes anywhere with the label",
			testPod("p", "", "", withLabels("app", "db"), affinity(term(zone, "app", "db"))), nil,
			map[string]string{"a1": "", "a2": "", "b1": "", "nozone": affinityReason}},
		{"affinity to pods there are none of, not matching itself: nowhere",
			testPod("p", "", "", affinity(term(zone, "app", "db"))), nil,
			map[string]string{"a1": affinityReason, "a2": affinityReason, "b1": affinityReason, "nozone": affinityReason}},
		{"a pod in another namespace does not count by default", testPod("p", "", "", affinity(term(zone, "app", "db"))),
			[]*corev1.Pod{db("db-0", "a1", inNamespace("other"))},
			map[string]string{"a1": affinityReason, "a2": affinityReason, "b1": affinityReason, "nozone": affinityReason}},
		{"a term naming the namespace counts it", testPod("p", "", "", affinity(func() corev1.PodAffinityTerm {
			t := term(zone, "app", "db")
			t.Namespaces = []string{"other"}
			return t
		}())), []*corev1.Pod{db("db-0", "a1", inNamespace("other"))},
			map[string]string{"a1": "", "a2": "", "b1": affinityReason, "nozone": affinityReason}},
		{"an empty namespaceSelector counts every namespace", testPod("p", "", "", affinity(func() corev1.PodAffinityTerm {
			t := term(zone, "app", "db")
			t.NamespaceSelector = &metav1.LabelSelector{}
			return t
		}())), []*corev1.Pod{db("db-0", "b1", inNamespace("other"))},
			map[string]string{"a1": affinityReason, "a2": affinityReason, "b1": "", "nozone": affinityReason}},
		{"anti-affinity by hostname keeps off the node with the pod", testPod("p", "", "", antiAffinity(term(corev1.LabelHostname, "app", "db"))),
			[]*corev1.Pod{db("db-0", "a1")},
			map[string]string{"a1": antiReason, "a2": "", "b1": "", "nozone": ""}},
		{"anti-affinity by zone keeps off the zone; a node without the label passes", testPod("p", "", "", antiAffinity(term(zone, "app", "db"))),
			[]*corev1.Pod{db("db-0", "a1")},
			map[string]string{"a1": antiReason, "a2": antiReason, "b1": "", "nozone": ""}},
		{"a running pod's anti-affinity keeps the pod out of its zone",
			testPod("p", "", "", withLabels("app", "web")),
			[]*corev1.Pod{db("db-0", "b1", antiAffinity(term(zone, "app", "web")))},
			map[string]string{"a1": "", "a2": "", "b1": existingReason, "nozone": ""}},
		{"a running pod's anti-affinity for other pods does not",
			testPod("p", "", "", withLabels("app", "web")),
			[]*corev1.Pod{db("db-0", "b1", antiAffinity(term(zone, "app", "cache")))},
			map[string]string{"a1": "", "a2": "", "b1": "", "nozone": ""}},
		{"a running pod's anti-affinity in another namespace holds only for its own",
			testPod("p", "", "", withLabels("app", "web")),
			[]*corev1.Pod{db("db-0", "b1", inNamespace("other"), antiAffinity(term(zone, "app", "web")))},
			map[string]string{"a1": "", "a2": "", "b1": "", "nozone": ""}},
		{"affinity is checked before anti-affinity: a node failing both gets the affinity reason",
			testPod("p", "", "", affinity(term(corev1.LabelHostname, "app", "db")), antiAffinity(term(zone, "app", "db"))),
			[]*corev1.Pod{db("db-0", "a1")},
			map[string]string{"a1": antiReason, "a2": affinityReason, "b1": affinityReason, "nozone": affinityReason}},
		{"a nil labelSelector selects nothing", testPod("p", "", "", antiAffinity(corev1.PodAffinityTerm{TopologyKey: zone})),
			[]*corev1.Pod{db("db-0", "a1")},
			map[string]string{"a1": "", "a2": "", "b1": "", "nozone": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes := cluster(twoZones, tc.existing...)
			pi := NewPodInfo(tc.pod)
			assert.Equal(t, tc.want, filterAll(interPodAffinityFilter(), pi, nodes))
		})
	}
}

func TestInterPodAffinityNamespaceSelector(t *testing.T) {
	// The pod's term selects namespaces labelled team=a: the scheduler
	// unrolls it into their names.
	nodes := cluster([]*corev1.Node{testNode("n1"), testNode("n2")},
		testPod("db-a", "", "", withLabels("app", "db"), inNamespace("team-a"), onNode("n1")),
		testPod("db-b", "", "", withLabels("app", "db"), inNamespace("team-b"), onNode("n2")))
	t2 := term(corev1.LabelHostname, "app", "db")
	t2.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	pi := NewPodInfo(testPod("p", "", "", antiAffinity(t2)))
	nsLabels := map[string]labels.Set{"team-a": {"team": "a"}, "team-b": {"team": "b"}, "default": nil}
	pi.ResolveNamespaces(nsLabels["default"], func(sel labels.Selector) []string {
		var out []string
		for _, n := range []string{"default", "team-a", "team-b"} {
			if sel.Matches(nsLabels[n]) {
				out = append(out, n)
			}
		}
		return out
	})
	assert.Equal(t, map[string]string{"n1": ErrReasonAntiAffinityRulesNotMatch, "n2": ""}, filterAll(interPodAffinityFilter(), pi, nodes))

	// A running pod's term with a namespaceSelector is matched against
	// the labels of the incoming pod's namespace.
	existing := testPod("guard", "", "", onNode("n1"), antiAffinity(func() corev1.PodAffinityTerm {
		t := term(corev1.LabelHostname, "app", "web")
		t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
		return t
	}()))
	nodes = cluster([]*corev1.Node{testNode("n1"), testNode("n2")}, existing)
	for _, tc := range []struct {
		nsLabels labels.Set
		want     string
	}{{labels.Set{"env": "prod"}, ErrReasonExistingAntiAffinityRulesNotMatch}, {labels.Set{"env": "dev"}, ""}, {nil, ""}} {
		web := NewPodInfo(testPod("web", "", "", withLabels("app", "web"), inNamespace("shop")))
		web.ResolveNamespaces(tc.nsLabels, func(labels.Selector) []string { return nil })
		assert.Equal(t, map[string]string{"n1": tc.want, "n2": ""}, filterAll(interPodAffinityFilter(), web, nodes), "namespace labels %v", tc.nsLabels)
	}
}

func TestInterPodAffinityParseError(t *testing.T) {
	bad := term(corev1.LabelHostname, "app", "db")
	bad.LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Near"}}
	pi := NewPodInfo(testPod("p", "", "", affinity(bad)))
	require.Error(t, pi.ParseError)
	got := filterAll(interPodAffinityFilter(), pi, nodeInfos(testNode("n1")))
	assert.Contains(t, got["*"], "parsing pod: ")
}

func TestInterPodAffinityScore(t *testing.T) {
	const zone = corev1.LabelTopologyZone
	nodes := func() []*corev1.Node {
		return []*corev1.Node{
			testNode("a1", nodeLabels(zone, "a")), testNode("a2", nodeLabels(zone, "a")),
			testNode("b1", nodeLabels(zone, "b")), testNode("c1", nodeLabels(zone, "c")),
		}
	}
	db := testPod("db", "", "", withLabels("app", "db"), onNode("a1"))
	cache := testPod("cache", "", "", withLabels("app", "cache"), onNode("b1"))
	for _, tc := range []struct {
		name     string
		pod      *corev1.Pod
		existing []*corev1.Pod
		want     map[string]int64
	}{
		{"no terms: all 0", testPod("p", "", ""), []*corev1.Pod{db, cache},
			map[string]int64{"a1": 0, "a2": 0, "b1": 0, "c1": 0}},
		{"preferred affinity to the db's zone", testPod("p", "", "", preferAffinity(5, term(zone, "app", "db"))), []*corev1.Pod{db, cache},
			map[string]int64{"a1": 100, "a2": 100, "b1": 0, "c1": 0}},
		// db's zone +5, cache's zone +1... normalised from 0 to 5: 100, 20, 0.
		{"two preferred terms add up per zone", testPod("p", "", "", preferAffinity(5, term(zone, "app", "db")), preferAffinity(1, term(zone, "app", "cache"))),
			[]*corev1.Pod{db, cache},
			map[string]int64{"a1": 100, "a2": 100, "b1": 20, "c1": 0}},
		// -3 in a, 0 elsewhere: min -3 scores 0, the others 100.
		{"preferred anti-affinity goes negative", testPod("p", "", "", preferAntiAffinity(3, term(zone, "app", "db"))), []*corev1.Pod{db, cache},
			map[string]int64{"a1": 0, "a2": 0, "b1": 100, "c1": 100}},
		{"a running pod's required affinity draws pods it selects (hardPodAffinityWeight)",
			testPod("p", "", "", withLabels("app", "web")),
			[]*corev1.Pod{testPod("x", "", "", onNode("b1"), affinity(term(zone, "app", "web")))},
			map[string]int64{"a1": 0, "a2": 0, "b1": 100, "c1": 0}},
		{"a running pod's preferred anti-affinity pushes pods it selects away",
			testPod("p", "", "", withLabels("app", "web")),
			[]*corev1.Pod{testPod("x", "", "", onNode("a2"), preferAntiAffinity(10, term(corev1.LabelHostname, "app", "web")))},
			map[string]int64{"a1": 100, "a2": 0, "b1": 100, "c1": 100}},
		{"a running pod's preferred affinity for others does nothing",
			testPod("p", "", "", withLabels("app", "web")),
			[]*corev1.Pod{testPod("x", "", "", onNode("a2"), preferAffinity(10, term(corev1.LabelHostname, "app", "db")))},
			map[string]int64{"a1": 0, "a2": 0, "b1": 0, "c1": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nis := cluster(nodes(), tc.existing...)
			assert.Equal(t, tc.want, scoreAll(interPodAffinityScore(), NewPodInfo(tc.pod), nis))
		})
	}
}

func TestNormalizeInterPodAffinity(t *testing.T) {
	for _, tc := range []struct {
		in, out []int64
	}{
		{[]int64{0, 0, 0}, []int64{0, 0, 0}},
		{[]int64{-3, 0, 3}, []int64{0, 50, 100}},
		{[]int64{2, 4, 5}, []int64{0, 66, 100}},
		{[]int64{7, 7}, []int64{0, 0}},
		{[]int64{}, []int64{}},
	} {
		NormalizeInterPodAffinity(tc.in)
		assert.Equal(t, tc.out, tc.in)
	}
}

// A Deployment's pods with required anti-affinity on hostname: one per
// node, then none fits, and the message counts the anti-affinity.
func TestScheduleRequiredAntiAffinityOnePerNode(t *testing.T) {
	nodes := nodeInfos(testNode("node-1"), testNode("node-2"))
	fw := DefaultFramework()
	r := rand.New(rand.NewPCG(1, 1))
	var d Decision
	for i, name := range []string{"web-a", "web-b", "web-c"} {
		pi := NewPodInfo(testPod(name, "100m", "", withLabels("app", "web"), ownedBy("rs"),
			antiAffinity(term(corev1.LabelHostname, "app", "web"))))
		fw.Schedule(context.Background(), pi, nodes, 0, r, &d)
		if i == 2 {
			require.Empty(t, d.Chosen)
			assert.Equal(t, "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.", d.FitError().Error())
			assert.Equal(t, "node-1: node(s) didn't match pod anti-affinity rules | node-2: node(s) didn't match pod anti-affinity rules", d.String())
			break
		}
		require.NotEmpty(t, d.Chosen)
		for _, ni := range nodes {
			if ni.Node.Name == d.Chosen {
				pi.Pod.Spec.NodeName = d.Chosen
				ni.AddPod(pi)
			}
		}
	}
	assert.Len(t, nodes[0].Pods, 1)
	assert.Len(t, nodes[1].Pods, 1)
}

// Preemption's dry run takes the victim out of the PreFilter state: a
// high-priority pod kept off both nodes by low-priority pods' anti-affinity
// (and its own) preempts one of them.
func TestPreemptionRemovesAntiAffinityVictims(t *testing.T) {
	fw := DefaultFramework()
	low := func(name, node string) *corev1.Pod {
		return testPod(name, "", "", priority(0), withLabels("app", "web"), onNode(node),
			antiAffinity(term(corev1.LabelHostname, "app", "web")))
	}
	pods := []*corev1.Pod{low("web-1", "node-1"), low("web-2", "node-2")}
	nodes := cluster([]*corev1.Node{testNode("node-1"), testNode("node-2")}, pods...)
	podsOn := map[string][]*PodInfo{}
	for _, ni := range nodes {
		podsOn[ni.Node.Name] = append(podsOn[ni.Node.Name], ni.Pods...)
	}
	pod := NewPodInfo(testPod("vip", "", "", priority(100), withLabels("app", "web"), antiAffinity(term(corev1.LabelHostname, "app", "web"))))
	var d Decision
	fw.Schedule(context.Background(), pod, nodes, 0, rand.New(rand.NewPCG(1, 1)), &d)
	require.Empty(t, d.Chosen)
	c, ok := fw.SelectCandidate(pod, nodes, 0, podsOn, nil)
	require.True(t, ok)
	assert.Equal(t, "node-1", c.Node)
	assert.Equal(t, []string{"web-1"}, victimNames(c))
	assert.Len(t, nodes[0].Pods, 1, "the dry run changed a copy")
}

// A pod waiting for its affinity is woken by the pod it waits for landing
// on a node, not by the safety-net timer; a pod waiting for cpu is not.
func TestAffinityWaiterIsWokenByAPodLanding(t *testing.T) {
	e := newEnv(t, 1)
	e.createNode("node-1", "4", "8Gi")
	e.createNode("node-2", "4", "8Gi")
	e.createPod(testPod("web", "", "", affinity(term(corev1.LabelHostname, "app", "db"))))
	e.createPod(testPod("huge", "64", ""))
	e.run()
	require.Empty(t, e.pod("web").Spec.NodeName)
	assert.Equal(t, "0/2 nodes are available: 2 node(s) didn't match pod affinity rules.", condition(e.pod("web"), corev1.PodScheduled).Message)

	e.createPod(testPod("db", "", "", withLabels("app", "db")))
	steps := e.run()
	assert.Equal(t, apiservertest.Start, e.Clock.Now(), "woken by the event, not the timer")
	db := e.pod("db").Spec.NodeName
	require.NotEmpty(t, db)
	assert.Equal(t, db, e.pod("web").Spec.NodeName, "web follows db")
	var keys []string
	for _, s := range steps {
		keys = append(keys, s.Key)
	}
	assert.Equal(t, []string{"default/db", "default/web"}, keys, "huge, waiting for cpu, stays asleep")
}

// The scheduler keeps the nodes with pods that have terms, so that their
// anti-affinity is seen without a look at every node: a running guard
// keeps web pods off its node, and once it is gone they may go there.
func TestSchedulerSeesRunningPodsAntiAffinity(t *testing.T) {
	e := newEnv(t, 1)
	e.createNode("node-1", "4", "8Gi")
	e.createNode("node-2", "4", "8Gi")
	e.createPod(testPod("guard", "", "", onNode("node-1"), antiAffinity(term(corev1.LabelHostname, "app", "web"))))
	e.run()
	for _, name := range []string{"web-1", "web-2"} {
		e.createPod(testPod(name, "", "", withLabels("app", "web")))
		e.run()
		assert.Equal(t, "node-2", e.pod(name).Spec.NodeName, name)
	}
	d := e.sched.LastDecision()
	assert.Equal(t, "node-1: node(s) didn't satisfy existing pods anti-affinity rules | node-2: score "+
		scoreOf(d, "node-2")+" (chosen)", d.String())

	zero := int64(0)
	require.NoError(t, e.Client.Pods().Delete(e.ctx, "default", "guard", &metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	e.run()
	e.createPod(testPod("web-3", "", "", withLabels("app", "web")))
	e.run()
	d = e.sched.LastDecision()
	assert.Equal(t, "default/web-3", d.Pod)
	for _, n := range d.Nodes {
		assert.True(t, n.Feasible(), "%s: %v", n.Node, n.Reasons)
	}
}

func scoreOf(d Decision, node string) string {
	for _, n := range d.Nodes {
		if n.Node == node {
			return fmt.Sprint(n.Score)
		}
	}
	return ""
}
