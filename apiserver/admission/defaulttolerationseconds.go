package admission

import (
	"context"

	corev1 "k8s.io/api/core/v1"
)

// The DefaultTolerationSeconds admission plugin
// (plugin/pkg/admission/defaulttolerationseconds): a new pod that does
// not tolerate the node.kubernetes.io/not-ready or unreachable NoExecute
// taints gets a toleration of each for 300 seconds, so that it is evicted
// five minutes after its node stops answering rather than at once (the
// node lifecycle controller's taint-based eviction reads them). That is
// why kubectl describe pod shows two tolerations no manifest wrote.

// DefaultTolerationSecondsValue is the seconds each added toleration
// gives by default (kube-apiserver's --default-not-ready-toleration-seconds
// and --default-unreachable-toleration-seconds).
const DefaultTolerationSecondsValue = 300

// DefaultTolerationSeconds is the plugin.
type DefaultTolerationSeconds struct {
	// Seconds is what each added toleration gives; 0 is
	// DefaultTolerationSecondsValue. One value for both taints (the two
	// flags of kube-apiserver).
	Seconds int64
}

// Admit implements Mutator: it adds the tolerations a new pod lacks.
func (d DefaultTolerationSeconds) Admit(_ context.Context, a *Attributes) error {
	if !isPodCreate(a) {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil
	}
	// A toleration with no key (or no effect) tolerates every taint (or
	// every effect) of its key.
	tolerates := func(key string) bool {
		for _, t := range pod.Spec.Tolerations {
			if (t.Key == key || t.Key == "") && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") {
				return true
			}
		}
		return false
	}
	var add []corev1.Toleration
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		if !tolerates(key) {
			seconds := d.Seconds
			if seconds == 0 {
				seconds = DefaultTolerationSecondsValue
			}
			add = append(add, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute,
				TolerationSeconds: &seconds})
		}
	}
	pod.Spec.Tolerations = append(pod.Spec.Tolerations, add...)
	return nil
}
