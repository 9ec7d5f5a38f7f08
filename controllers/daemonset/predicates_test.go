package daemonset

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/api"
)

func TestNodeShouldRunDaemonPod(t *testing.T) {
	taint := func(key string, effect api.TaintEffect) func(*api.Node) {
		return func(n *api.Node) { n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: key, Effect: effect}) }
	}
	label := func(k, v string) func(*api.Node) { return func(n *api.Node) { n.Labels[k] = v } }
	hostNetwork := func(ds *api.DaemonSet) { ds.Spec.Template.Spec.HostNetwork = true }
	for _, tc := range []struct {
		name               string
		ds                 *api.DaemonSet
		node               *api.Node
		run, continueToRun bool
	}{
		{"plain node", daemonSet(), node("a"), true, true},
		{"template names another node", daemonSet(func(ds *api.DaemonSet) { ds.Spec.Template.Spec.NodeName = "b" }), node("a"), false, false},
		{"nodeSelector matches", daemonSet(func(ds *api.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"} }),
			node("a", label("disk", "ssd")), true, true},
		{"nodeSelector does not match", daemonSet(func(ds *api.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"} }),
			node("a"), false, false},
		{"required node affinity", daemonSet(func(ds *api.DaemonSet) {
			ds.Spec.Template.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
				NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpNotIn, Values: []string{"z1"}}}}}}}}
		}), node("a", label("zone", "z1")), false, false},
		{"untolerated NoSchedule: no new pod, the old one stays", daemonSet(), node("a", taint("dedicated", api.TaintEffectNoSchedule)), false, true},
		{"untolerated NoExecute: neither", daemonSet(), node("a", taint("dedicated", api.TaintEffectNoExecute)), false, false},
		{"PreferNoSchedule is no bar", daemonSet(), node("a", taint("dedicated", api.TaintEffectPreferNoSchedule)), true, true},
		{"tolerated by the template", daemonSet(func(ds *api.DaemonSet) {
			ds.Spec.Template.Spec.Tolerations = []api.Toleration{{Key: "dedicated", Operator: api.TolerationOpExists}}
		}), node("a", taint("dedicated", api.TaintEffectNoExecute)), true, true},
		{"unreachable NoExecute is tolerated", daemonSet(), node("a", taint(api.TaintNodeUnreachable, api.TaintEffectNoExecute)), true, true},
		{"not-ready NoSchedule is not: a pod stays but none is added", daemonSet(),
			node("a", taint(api.TaintNodeNotReady, api.TaintEffectNoSchedule), taint(api.TaintNodeNotReady, api.TaintEffectNoExecute)), false, true},
		{"cordoned and under pressure", daemonSet(), node("a", taint(api.TaintNodeUnschedulable, api.TaintEffectNoSchedule),
			taint(TaintNodeMemoryPressure, api.TaintEffectNoSchedule), taint(TaintNodeDiskPressure, api.TaintEffectNoSchedule), taint(TaintNodePIDPressure, api.TaintEffectNoSchedule)), true, true},
		{"network-unavailable only for hostNetwork", daemonSet(), node("a", taint(TaintNodeNetworkUnavailable, api.TaintEffectNoSchedule)), false, true},
		{"network-unavailable with hostNetwork", daemonSet(hostNetwork), node("a", taint(TaintNodeNetworkUnavailable, api.TaintEffectNoSchedule)), true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, cont := NodeShouldRunDaemonPod(tc.node, tc.ds)
			assert.Equal(t, tc.run, run, "shouldRun")
			assert.Equal(t, tc.continueToRun, cont, "shouldContinueRunning")
		})
	}
}

func TestNewPodIsPinnedToItsNode(t *testing.T) {
	ds := daemonSet()
	ds.Spec.Template.Spec.Tolerations = []api.Toleration{{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute}}
	ds.Spec.Template.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
		NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpExists}}}}}}}
	p := NewPod(ds, PodTemplate(ds, "h1"), "node-7")
	assert.Equal(t, "agent-", p.GenerateName)
	assert.Equal(t, "h1", p.Labels[api.ControllerRevisionHashLabelKey])
	assert.Equal(t, "", p.Spec.NodeName, "the scheduler binds it")
	assert.Equal(t, []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{"node-7"}}}}},
		p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, "the terms are replaced by the node's name")
	assert.Equal(t, "node-7", TargetNodeName(p))
	assert.Len(t, p.Spec.Tolerations, 6, "the template's not-ready toleration is not added twice")
	assert.NotContains(t, ds.Spec.Template.Labels, api.ControllerRevisionHashLabelKey, "the set's template is not changed")
	assert.Nil(t, ds.Spec.Template.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields)
	bound := p.DeepCopy()
	bound.Spec.NodeName = "node-8"
	assert.Equal(t, "node-8", TargetNodeName(bound), "once bound, nodeName wins")
	assert.Equal(t, "", TargetNodeName(&api.Pod{}))
}
