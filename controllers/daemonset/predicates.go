package daemonset

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

// The taints every daemon pod tolerates (AddOrUpdateDaemonPodTolerations):
// a daemon keeps running on a node that is not ready or unreachable, is
// placed on nodes under pressure and on cordoned nodes, and, with
// hostNetwork, on nodes whose network is not yet set up.
const (
	TaintNodeDiskPressure       = "node.kubernetes.io/disk-pressure"
	TaintNodeMemoryPressure     = "node.kubernetes.io/memory-pressure"
	TaintNodePIDPressure        = "node.kubernetes.io/pid-pressure"
	TaintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable"
)

// DaemonTolerations are the tolerations the controller adds to a pod spec.
func DaemonTolerations(spec *corev1.PodSpec) []corev1.Toleration {
	out := []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: TaintNodeDiskPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: TaintNodePIDPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	}
	if spec.HostNetwork {
		out = append(out, corev1.Toleration{Key: TaintNodeNetworkUnavailable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	return out
}

// addTolerations adds each toleration the spec lacks (one with the same
// key, operator, value and effect), as AddOrUpdateTolerationInPodSpec.
func addTolerations(spec *corev1.PodSpec, tols []corev1.Toleration) {
	for _, t := range tols {
		found := false
		for i := range spec.Tolerations {
			o := &spec.Tolerations[i]
			if o.Key == t.Key && o.Operator == t.Operator && o.Value == t.Value && o.Effect == t.Effect {
				found = true
				break
			}
		}
		if !found {
			spec.Tolerations = append(spec.Tolerations, t)
		}
	}
}

// PodTemplate is the template the controller makes pods from
// (CreatePodTemplate): the set's template with the daemon tolerations and
// the controller-revision-hash label.
func PodTemplate(ds *appsv1.DaemonSet, hash string) *corev1.PodTemplateSpec {
	t := ds.Spec.Template.DeepCopy()
	addTolerations(&t.Spec, DaemonTolerations(&t.Spec))
	if hash != "" {
		if t.Labels == nil {
			t.Labels = map[string]string{}
		}
		t.Labels[appsv1.ControllerRevisionHashLabelKey] = hash
	}
	return t
}

// NewPod is the pod the set would run on node (NewPod, then
// ReplaceDaemonSetPodNodeNameNodeAffinity): the template with its
// tolerations, pinned to the node by a required node affinity on
// metadata.name, so that the scheduler binds it there. The controller
// itself never sets spec.nodeName: the scheduler does, and it checks the
// node's resources as for any pod.
func NewPod(ds *appsv1.DaemonSet, template *corev1.PodTemplateSpec, nodeName string) *corev1.Pod {
	t := template.DeepCopy()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: ds.Name + "-", Namespace: ds.Namespace, Labels: t.Labels,
			Annotations: t.Annotations, Finalizers: t.Finalizers},
		Spec: t.Spec,
	}
	pod.Spec.Affinity = PinToNode(pod.Spec.Affinity, nodeName)
	return pod
}

// PinToNode is ReplaceDaemonSetPodNodeNameNodeAffinity: the required node
// affinity becomes one term, metadata.name In [nodeName]. The other terms
// go: the controller has checked them against this node already.
func PinToNode(affinity *corev1.Affinity, nodeName string) *corev1.Affinity {
	sel := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchFields: []corev1.NodeSelectorRequirement{{Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{nodeName}}},
	}}}
	if affinity == nil {
		affinity = &corev1.Affinity{}
	}
	if affinity.NodeAffinity == nil {
		affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = sel
	return affinity
}

// TargetNodeName is the node a daemon pod is for (GetTargetNodeName): its
// spec.nodeName once bound, else the node its metadata.name affinity
// names; "" when neither.
func TargetNodeName(p *corev1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, r := range term.MatchFields {
			if r.Key == metav1.ObjectNameField && r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
				return r.Values[0]
			}
		}
	}
	return ""
}

// NodeShouldRunDaemonPod decides for one node (NodeShouldRunDaemonPod):
// shouldRun when a new daemon pod belongs there, shouldContinueRunning
// when a daemon pod already there may stay. The template's nodeName,
// nodeSelector and required node affinity must match the node; a NoSchedule
// or NoExecute taint the pod (with the daemon tolerations) does not
// tolerate stops new pods, and only an untolerated NoExecute taint
// removes a running one.
func NodeShouldRunDaemonPod(node *corev1.Node, ds *appsv1.DaemonSet) (shouldRun, shouldContinueRunning bool) {
	spec := &ds.Spec.Template.Spec
	if spec.NodeName != "" && spec.NodeName != node.Name {
		return false, false
	}
	if !api.PodMatchesNodeAffinity(spec, node) {
		return false, false
	}
	tols := append(append([]corev1.Toleration(nil), spec.Tolerations...), DaemonTolerations(spec)...)
	if !untolerated(node.Spec.Taints, tols, corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute) {
		return true, true
	}
	return false, !untolerated(node.Spec.Taints, tols, corev1.TaintEffectNoExecute)
}

// untolerated reports whether some taint of one of effects is tolerated
// by none of tols (FindMatchingUntoleratedTaint).
func untolerated(taints []corev1.Taint, tols []corev1.Toleration, effects ...corev1.TaintEffect) bool {
	for i := range taints {
		taint := &taints[i]
		relevant := false
		for _, e := range effects {
			relevant = relevant || taint.Effect == e
		}
		if !relevant {
			continue
		}
		tolerated := false
		for j := range tols {
			if api.ToleratesTaint(&tols[j], taint) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			return true
		}
	}
	return false
}
