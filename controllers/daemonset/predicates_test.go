package daemonset

import (
	"testing"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestNodeShouldRunDaemonPod(t *testing.T) {
	taint := func(key string, effect corev1.TaintEffect) func(*corev1.Node) {
		return func(n *corev1.Node) { n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Effect: effect}) }
	}
	label := func(k, v string) func(*corev1.Node) { return func(n *corev1.Node) { n.Labels[k] = v } }
	hostNetwork := func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.HostNetwork = true }
	for _, tc := range []struct {
		name               string
		ds                 *appsv1.DaemonSet
		node               *corev1.Node
		run, continueToRun bool
	}{
		{"plain node", daemonSet(), node("a"), true, true},
		{"template names another node", daemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeName = "b" }), node("a"), false, false},
		{"nodeSelector matches", daemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"} }),
			node("a", label("disk", "ssd")), true, true},
		{"nodeSelector does not match", daemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"} }),
			node("a"), false, false},
		{"required node affinity", daemonSet(func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"z1"}}}}}}}}
		}), node("a", label("zone", "z1")), false, false},
		{"untolerated NoSchedule: no new pod, the old one stays", daemonSet(), node("a", taint("dedicated", corev1.TaintEffectNoSchedule)), false, true},
		{"untolerated NoExecute: neither", daemonSet(), node("a", taint("dedicated", corev1.TaintEffectNoExecute)), false, false},
		{"PreferNoSchedule is no bar", daemonSet(), node("a", taint("dedicated", corev1.TaintEffectPreferNoSchedule)), true, true},
		{"tolerated by the template", daemonSet(func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
		}), node("a", taint("dedicated", corev1.TaintEffectNoExecute)), true, true},
		{"unreachable NoExecute is tolerated", daemonSet(), node("a", taint(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute)), true, true},
		{"not-ready NoSchedule is not: a pod stays but none is added", daemonSet(),
			node("a", taint(corev1.TaintNodeNotReady, corev1.TaintEffectNoSchedule), taint(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute)), false, true},
		{"cordoned and under pressure", daemonSet(), node("a", taint(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule),
			taint(TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule), taint(TaintNodeDiskPressure, corev1.TaintEffectNoSchedule), taint(TaintNodePIDPressure, corev1.TaintEffectNoSchedule)), true, true},
		{"network-unavailable only for hostNetwork", daemonSet(), node("a", taint(TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule)), false, true},
		{"network-unavailable with hostNetwork", daemonSet(hostNetwork), node("a", taint(TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule)), true, true},
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
	ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}
	ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpExists}}}}}}}
	p := NewPod(ds, PodTemplate(ds, "h1"), "node-7")
	assert.Equal(t, "agent-", p.GenerateName)
	assert.Equal(t, "h1", p.Labels[appsv1.ControllerRevisionHashLabelKey])
	assert.Equal(t, "", p.Spec.NodeName, "the scheduler binds it")
	assert.Equal(t, []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-7"}}}}},
		p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, "the terms are replaced by the node's name")
	assert.Equal(t, "node-7", TargetNodeName(p))
	assert.Len(t, p.Spec.Tolerations, 6, "the template's not-ready toleration is not added twice")
	assert.NotContains(t, ds.Spec.Template.Labels, appsv1.ControllerRevisionHashLabelKey, "the set's template is not changed")
	assert.Nil(t, ds.Spec.Template.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields)
	bound := p.DeepCopy()
	bound.Spec.NodeName = "node-8"
	assert.Equal(t, "node-8", TargetNodeName(bound), "once bound, nodeName wins")
	assert.Equal(t, "", TargetNodeName(&corev1.Pod{}))
}
