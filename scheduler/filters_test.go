package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
)

// testNode is a Ready node with cpu 4, memory 8Gi and 110 pods, changed
// by the options.
func testNode(name string, opts ...func(*api.Node)) *api.Node {
	n := &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{api.LabelHostname: name}},
		Status: api.NodeStatus{
			Allocatable: api.ResourceList{
				api.ResourceCPU:    resource.MustParse("4"),
				api.ResourceMemory: resource.MustParse("8Gi"),
				api.ResourcePods:   resource.MustParse("110"),
			},
			Conditions: []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}},
		},
	}
	for _, o := range opts {
		o(n)
	}
	return n
}

// testPod is a pod of one container requesting cpu and memory ("" for
// none), changed by the options.
func testPod(name, cpu, mem string, opts ...func(*api.Pod)) *api.Pod {
	req := api.ResourceList{}
	if cpu != "" {
		req[api.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		req[api.ResourceMemory] = resource.MustParse(mem)
	}
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx",
			Resources: api.ResourceRequirements{Requests: req}}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func ownedBy(uid string) func(*api.Pod) {
	return func(p *api.Pod) {
		yes := true
		p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs-" + uid, UID: types.UID(uid), Controller: &yes}}
	}
}

func tolerate(t api.Toleration) func(*api.Pod) {
	return func(p *api.Pod) { p.Spec.Tolerations = append(p.Spec.Tolerations, t) }
}

func taint(key, value string, effect api.TaintEffect) func(*api.Node) {
	return func(n *api.Node) {
		n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: key, Value: value, Effect: effect})
	}
}

func ready(status api.ConditionStatus) func(*api.Node) {
	return func(n *api.Node) { n.Status.Conditions[0].Status = status }
}

// withPods counts pods already on the node.
func withPods(ni *NodeInfo, pods ...*api.Pod) *NodeInfo {
	for _, p := range pods {
		ni.AddPod(NewPodInfo(p))
	}
	return ni
}

func TestNodeUnschedulable(t *testing.T) {
	cordoned := func(n *api.Node) { n.Spec.Unschedulable = true }
	for _, tc := range []struct {
		name string
		pod  *api.Pod
		node *api.Node
		want []string
	}{
		{"schedulable", testPod("p", "", ""), testNode("n"), nil},
		{"cordoned", testPod("p", "", ""), testNode("n", cordoned), []string{"node(s) were unschedulable"}},
		{"cordoned but tolerated", testPod("p", "", "", tolerate(api.Toleration{Key: api.TaintNodeUnschedulable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule})), testNode("n", cordoned), nil},
		{"tolerating every taint", testPod("p", "", "", tolerate(api.Toleration{Operator: api.TolerationOpExists})), testNode("n", cordoned), nil},
		{"toleration of another effect", testPod("p", "", "", tolerate(api.Toleration{Key: api.TaintNodeUnschedulable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute})), testNode("n", cordoned), []string{ErrReasonUnschedulable}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, NodeUnschedulable(NewPodInfo(tc.pod), NewNodeInfo(tc.node)))
		})
	}
}

func TestNodeName(t *testing.T) {
	on := func(node string) func(*api.Pod) { return func(p *api.Pod) { p.Spec.NodeName = node } }
	for _, tc := range []struct {
		name string
		pod  *api.Pod
		want []string
	}{
		{"no node named", testPod("p", "", ""), nil},
		{"this node", testPod("p", "", "", on("n")), nil},
		{"another node", testPod("p", "", "", on("m")), []string{"node(s) didn't match the requested node name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, NodeName(NewPodInfo(tc.pod), NewNodeInfo(testNode("n"))))
		})
	}
}

func TestNodeReady(t *testing.T) {
	noConditions := func(n *api.Node) { n.Status.Conditions = nil }
	notReady := api.Toleration{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists}
	unreachable := api.Toleration{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists}
	for _, tc := range []struct {
		name string
		pod  *api.Pod
		node *api.Node
		want []string
	}{
		{"ready", testPod("p", "", ""), testNode("n"), nil},
		{"not ready", testPod("p", "", ""), testNode("n", ready(api.ConditionFalse)), []string{"node(s) were not ready"}},
		{"unknown", testPod("p", "", ""), testNode("n", ready(api.ConditionUnknown)), []string{ErrReasonNotReady}},
		{"no condition yet", testPod("p", "", ""), testNode("n", noConditions), []string{ErrReasonNotReady}},
		{"not ready, tolerated", testPod("p", "", "", tolerate(notReady)), testNode("n", ready(api.ConditionFalse)), nil},
		{"unknown needs the unreachable toleration", testPod("p", "", "", tolerate(notReady)), testNode("n", ready(api.ConditionUnknown)), []string{ErrReasonNotReady}},
		{"unknown, tolerated", testPod("p", "", "", tolerate(unreachable)), testNode("n", ready(api.ConditionUnknown)), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, NodeReady(NewPodInfo(tc.pod), NewNodeInfo(tc.node)))
		})
	}
}

func TestTaintToleration(t *testing.T) {
	for _, tc := range []struct {
		name string
		pod  *api.Pod
		node *api.Node
		want []string
	}{
		{"no taints", testPod("p", "", ""), testNode("n"), nil},
		{"NoSchedule", testPod("p", "", ""), testNode("n", taint("dedicated", "gpu", api.TaintEffectNoSchedule)),
			[]string{"node(s) had untolerated taint {dedicated: gpu}"}},
		{"NoExecute without value", testPod("p", "", ""), testNode("n", taint(api.TaintNodeNotReady, "", api.TaintEffectNoExecute)),
			[]string{"node(s) had untolerated taint {node.kubernetes.io/not-ready: }"}},
		{"PreferNoSchedule is not a filter", testPod("p", "", ""), testNode("n", taint("a", "b", api.TaintEffectPreferNoSchedule)), nil},
		{"tolerated by Equal", testPod("p", "", "", tolerate(api.Toleration{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule})),
			testNode("n", taint("dedicated", "gpu", api.TaintEffectNoSchedule)), nil},
		{"Equal with another value", testPod("p", "", "", tolerate(api.Toleration{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "cpu"})),
			testNode("n", taint("dedicated", "gpu", api.TaintEffectNoSchedule)), []string{"node(s) had untolerated taint {dedicated: gpu}"}},
		{"Exists on the key, any effect", testPod("p", "", "", tolerate(api.Toleration{Key: "dedicated", Operator: api.TolerationOpExists})),
			testNode("n", taint("dedicated", "gpu", api.TaintEffectNoExecute)), nil},
		{"the first untolerated taint is named", testPod("p", "", "", tolerate(api.Toleration{Key: "a", Operator: api.TolerationOpExists})),
			testNode("n", taint("a", "1", api.TaintEffectNoSchedule), taint("b", "2", api.TaintEffectNoSchedule), taint("c", "3", api.TaintEffectNoSchedule)),
			[]string{"node(s) had untolerated taint {b: 2}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, TaintToleration(NewPodInfo(tc.pod), NewNodeInfo(tc.node)))
		})
	}
}

func TestNodeAffinity(t *testing.T) {
	selector := func(kv ...string) func(*api.Pod) {
		return func(p *api.Pod) {
			p.Spec.NodeSelector = map[string]string{}
			for i := 0; i < len(kv); i += 2 {
				p.Spec.NodeSelector[kv[i]] = kv[i+1]
			}
		}
	}
	ssd := func(n *api.Node) { n.Labels["disk"] = "ssd" }
	required := func(term api.NodeSelectorTerm) func(*api.Pod) {
		return func(p *api.Pod) {
			p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{term}}}}
		}
	}
	pinned := func(node string) func(*api.Pod) {
		return required(api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{{Key: api.ObjectNameField, Operator: api.NodeSelectorOpIn, Values: []string{node}}}})
	}
	expr := func(key string, op api.NodeSelectorOperator, values ...string) func(*api.Pod) {
		return required(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}})
	}
	for _, tc := range []struct {
		name string
		pod  *api.Pod
		node *api.Node
		want []string
	}{
		{"no selector", testPod("p", "", ""), testNode("n"), nil},
		{"matching", testPod("p", "", "", selector("disk", "ssd")), testNode("n", ssd), nil},
		{"two pairs, both match", testPod("p", "", "", selector("disk", "ssd", api.LabelHostname, "n")), testNode("n", ssd), nil},
		{"other value", testPod("p", "", "", selector("disk", "hdd")), testNode("n", ssd), []string{"node(s) didn't match Pod's node affinity/selector"}},
		{"missing label", testPod("p", "", "", selector("disk", "ssd")), testNode("n"), []string{ErrReasonNodeSelector}},
		{"one pair of two missing", testPod("p", "", "", selector("disk", "ssd", "zone", "a")), testNode("n", ssd), []string{ErrReasonNodeSelector}},
		{"empty value must exist", testPod("p", "", "", selector("zone", "")), testNode("n"), []string{ErrReasonNodeSelector}},
		{"matchFields names this node", testPod("p", "", "", pinned("n")), testNode("n"), nil},
		{"matchFields names another node", testPod("p", "", "", pinned("m")), testNode("n"), []string{ErrReasonNodeSelector}},
		{"matchFields and a selector that fails", testPod("p", "", "", pinned("n"), selector("disk", "ssd")), testNode("n"), []string{ErrReasonNodeSelector}},
		{"label expression", testPod("p", "", "", expr("disk", api.NodeSelectorOpIn, "ssd", "nvme")), testNode("n", ssd), nil},
		{"label expression NotIn", testPod("p", "", "", expr("disk", api.NodeSelectorOpNotIn, "ssd")), testNode("n", ssd), []string{ErrReasonNodeSelector}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, NodeAffinity(NewPodInfo(tc.pod), NewNodeInfo(tc.node)))
		})
	}
}

func TestNodeResourcesFit(t *testing.T) {
	bound := func(p *api.Pod) { p.Spec.NodeName = "n" }
	threePods := func(n *api.Node) { n.Status.Allocatable[api.ResourcePods] = resource.MustParse("3") }
	for _, tc := range []struct {
		name string
		pod  *api.Pod
		node *NodeInfo
		want []string
	}{
		{"empty node", testPod("p", "1", "1Gi"), NewNodeInfo(testNode("n")), nil},
		{"exactly full", testPod("p", "4", "8Gi"), NewNodeInfo(testNode("n")), nil},
		{"too much cpu", testPod("p", "64", "1Gi"), NewNodeInfo(testNode("n")), []string{"Insufficient cpu"}},
		{"too much memory", testPod("p", "1", "9Gi"), NewNodeInfo(testNode("n")), []string{"Insufficient memory"}},
		{"both", testPod("p", "5", "9Gi"), NewNodeInfo(testNode("n")), []string{ErrReasonInsufficientCPU, ErrReasonInsufficientMemory}},
		{"counts pods already there", testPod("p", "2", ""),
			withPods(NewNodeInfo(testNode("n")), testPod("a", "1500m", "", bound), testPod("b", "1", "", bound)), []string{ErrReasonInsufficientCPU}},
		{"fits beside pods already there", testPod("p", "1500m", ""),
			withPods(NewNodeInfo(testNode("n")), testPod("a", "1500m", "", bound), testPod("b", "1", "", bound)), nil},
		{"a pod requesting nothing fits a full node", testPod("p", "", ""),
			withPods(NewNodeInfo(testNode("n")), testPod("a", "4", "8Gi", bound)), nil},
		{"too many pods", testPod("p", "", ""),
			withPods(NewNodeInfo(testNode("n", threePods)), testPod("a", "", ""), testPod("b", "", ""), testPod("c", "", "")), []string{"Too many pods"}},
		{"too many pods and no cpu", testPod("p", "5", ""),
			withPods(NewNodeInfo(testNode("n", threePods)), testPod("a", "", ""), testPod("b", "", ""), testPod("c", "", "")), []string{ErrReasonTooManyPods, ErrReasonInsufficientCPU}},
		{"allocatable falls back to capacity", testPod("p", "2", ""), NewNodeInfo(testNode("n", func(n *api.Node) {
			n.Status.Capacity, n.Status.Allocatable = n.Status.Allocatable, nil
		})), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, NodeResourcesFit(NewPodInfo(tc.pod), tc.node))
		})
	}
}

func TestNewPodInfoRequests(t *testing.T) {
	p := testPod("p", "500m", "1Gi")
	p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "sidecar", Image: "x"})
	p.Spec.InitContainers = []api.Container{{Name: "init", Image: "x", Resources: api.ResourceRequirements{Requests: api.ResourceList{
		api.ResourceCPU: resource.MustParse("2"),
	}}}}
	ownedBy("u1")(p)
	pi := NewPodInfo(p)
	assert.Equal(t, "default/p", pi.Key)
	assert.Equal(t, "u1", pi.OwnerUID)
	// cpu: the init container's 2 beats the containers' 500m; memory: 1Gi.
	assert.Equal(t, Resources{MilliCPU: 2000, Memory: 1 << 30, Pods: 1}, pi.Requests)
	// The sidecar asks nothing: it counts 100m and 200Mi for scoring.
	assert.Equal(t, Resources{MilliCPU: 2000, Memory: 1<<30 + DefaultMemoryRequest, Pods: 1}, pi.NonZeroRequests)
}

func TestNodeInfoAddRemovePod(t *testing.T) {
	ni := NewNodeInfo(testNode("n"))
	a, b := NewPodInfo(testPod("a", "1", "1Gi", ownedBy("u"))), NewPodInfo(testPod("b", "", "", ownedBy("u")))
	ni.AddPod(a)
	ni.AddPod(b)
	assert.Equal(t, Resources{MilliCPU: 1000, Memory: 1 << 30, Pods: 2}, ni.Requested)
	assert.Equal(t, Resources{MilliCPU: 1100, Memory: 1<<30 + DefaultMemoryRequest, Pods: 2}, ni.NonZeroRequested)
	assert.Equal(t, int64(2), ni.PodsOfOwner("u"))
	assert.Equal(t, int64(0), ni.PodsOfOwner(""))
	ni.RemovePod(a)
	ni.RemovePod(b)
	assert.Equal(t, Resources{}, ni.Requested)
	assert.Equal(t, Resources{}, ni.NonZeroRequested)
	assert.Equal(t, int64(0), ni.PodsOfOwner("u"))
}

func resourceMust(s string) resource.Quantity { return resource.MustParse(s) }
