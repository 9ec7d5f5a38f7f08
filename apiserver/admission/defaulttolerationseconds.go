package admission

import (
	"context"

	corev1 "k8s.io/api/core/v1"
)

// DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds)
// gives every pod that does not already tolerate them a toleration of the
// node lifecycle controller's two NoExecute taints,
// node.kubernetes.io/not-ready and node.kubernetes.io/unreachable, for
// 300 seconds. That toleration is what keeps a pod on a node that stopped
// answering for five minutes: the taint eviction controller evicts a pod
// as soon as it tolerates a NoExecute taint no longer, and without these
// a pod would go the moment its node is tainted. It only mutates, on
// create and update, as kube-apiserver's.

// DefaultTolerationSecondsValue is the plugin's tolerationSeconds when
// not configured (kube-apiserver's --default-not-ready-toleration-seconds
// and --default-unreachable-toleration-seconds).
const DefaultTolerationSecondsValue int64 = 300

// DefaultTolerationSeconds is the plugin.
type DefaultTolerationSeconds struct {
	// NotReadySeconds and UnreachableSeconds are the tolerationSeconds
	// of the two tolerations (nil: DefaultTolerationSecondsValue).
	NotReadySeconds, UnreachableSeconds *int64
}

// PluginName is the name kube-apiserver gives the plugin, in the trace
// and the admission metrics.
func (*DefaultTolerationSeconds) PluginName() string { return "DefaultTolerationSeconds" }

// Handles implements Handler: creates and updates, as kube-apiserver's.
func (*DefaultTolerationSeconds) Handles(op Operation) bool { return op == Create || op == Update }

// Admit implements Mutator: the pod gets the tolerations it lacks.
func (d *DefaultTolerationSeconds) Admit(_ context.Context, a *Attributes) error {
	if a.Resource.Group != "" || a.Resource.Resource != "pods" || a.Subresource != "" {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil
	}
	notReady, unreachable := false, false
	for _, t := range pod.Spec.Tolerations {
		// A toleration with an empty key tolerates every taint, and one
		// with an empty effect every effect: those count too.
		noExecute := t.Effect == corev1.TaintEffectNoExecute || t.Effect == ""
		notReady = notReady || noExecute && (t.Key == corev1.TaintNodeNotReady || t.Key == "")
		unreachable = unreachable || noExecute && (t.Key == corev1.TaintNodeUnreachable || t.Key == "")
	}
	if !notReady {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, defaultToleration(corev1.TaintNodeNotReady, d.NotReadySeconds))
	}
	if !unreachable {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, defaultToleration(corev1.TaintNodeUnreachable, d.UnreachableSeconds))
	}
	return nil
}

func defaultToleration(key string, seconds *int64) corev1.Toleration {
	s := DefaultTolerationSecondsValue
	if seconds != nil {
		s = *seconds
	}
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &s}
}
