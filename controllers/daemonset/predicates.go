package daemonset

import (
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
func DaemonTolerations(spec *api.PodSpec) []api.Toleration {
	out := []api.Toleration{
		{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
		{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
		{Key: TaintNodeDiskPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		{Key: TaintNodeMemoryPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		{Key: TaintNodePIDPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeUnschedulable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
	}
	if spec.HostNetwork {
		out = append(out, api.Toleration{Key: TaintNodeNetworkUnavailable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule})
	}
	return out
}

// addTolerations adds each toleration the spec lacks (one with the same
// key, operator, value and effect), as AddOrUpdateTolerationInPodSpec.
func addTolerations(spec *api.PodSpec, tols []api.Toleration) {
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
func PodTemplate(ds *api.DaemonSet, hash string) *api.PodTemplateSpec {
	t := ds.Spec.Template.DeepCopy()
	addTolerations(&t.Spec, DaemonTolerations(&t.Spec))
	if hash != "" {
		if t.Labels == nil {
			t.Labels = map[string]string{}
		}
		t.Labels[api.ControllerRevisionHashLabelKey] = hash
	}
	return t
}

// NewPod is the pod the set would run on node (NewPod, then
// ReplaceDaemonSetPodNodeNameNodeAffinity): the template with its
// tolerations, pinned to the node by a required node affinity on
// metadata.name, so that the scheduler binds it there. The controller
// itself never sets spec.nodeName: the scheduler does, and it checks the
// node's resources as for any pod.
func NewPod(ds *api.DaemonSet, template *api.PodTemplateSpec, nodeName string) *api.Pod {
	t := template.DeepCopy()
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{GenerateName: ds.Name + "-", Namespace: ds.Namespace, Labels: t.Labels,
			Annotations: t.Annotations, Finalizers: t.Finalizers},
		Spec: t.Spec,
	}
	pod.Spec.Affinity = PinToNode(pod.Spec.Affinity, nodeName)
	return pod
}

// PinToNode is ReplaceDaemonSetPodNodeNameNodeAffinity: the required node
// affinity becomes one term, metadata.name In [nodeName]. The other terms
// go: the controller has checked them against this node already.
func PinToNode(affinity *api.Affinity, nodeName string) *api.Affinity {
	sel := &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
		MatchFields: []api.NodeSelectorRequirement{{Key: api.ObjectNameField, Operator: api.NodeSelectorOpIn, Values: []string{nodeName}}},
	}}}
	if affinity == nil {
		affinity = &api.Affinity{}
	}
	if affinity.NodeAffinity == nil {
		affinity.NodeAffinity = &api.NodeAffinity{}
	}
	affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = sel
	return affinity
}

// TargetNodeName is the node a daemon pod is for (GetTargetNodeName): its
// spec.nodeName once bound, else the node its metadata.name affinity
// names; "" when neither.
func TargetNodeName(p *api.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, r := range term.MatchFields {
			if r.Key == api.ObjectNameField && r.Operator == api.NodeSelectorOpIn && len(r.Values) == 1 {
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
func NodeShouldRunDaemonPod(node *api.Node, ds *api.DaemonSet) (shouldRun, shouldContinueRunning bool) {
	spec := &ds.Spec.Template.Spec
	if spec.NodeName != "" && spec.NodeName != node.Name {
		return false, false
	}
	if !api.PodMatchesNodeAffinity(spec, node) {
		return false, false
	}
	tols := append(append([]api.Toleration(nil), spec.Tolerations...), DaemonTolerations(spec)...)
	if !untolerated(node.Spec.Taints, tols, api.TaintEffectNoSchedule, api.TaintEffectNoExecute) {
		return true, true
	}
	return false, !untolerated(node.Spec.Taints, tols, api.TaintEffectNoExecute)
}

// untolerated reports whether some taint of one of effects is tolerated
// by none of tols (FindMatchingUntoleratedTaint).
func untolerated(taints []api.Taint, tols []api.Toleration, effects ...api.TaintEffect) bool {
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
