package nodelifecycle

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

// controllerTaintKeys are the taints this controller owns.
var controllerTaintKeys = []string{corev1.TaintNodeUnreachable, corev1.TaintNodeNotReady}

// taintKeyFor is the taint a node's Ready condition calls for: Unknown
// (no heartbeat) → unreachable, False → not-ready, True → none.
func taintKeyFor(ready *corev1.NodeCondition) string {
	switch {
	case ready == nil || ready.Status == corev1.ConditionUnknown:
		return corev1.TaintNodeUnreachable
	case ready.Status == corev1.ConditionFalse:
		return corev1.TaintNodeNotReady
	}
	return ""
}

// desiredTaints returns taints with the controller's taints made to match
// key (both effects of key, none of the other keys), and whether anything
// changed. Taints already there keep their timeAdded; new ones get now.
func desiredTaints(taints []corev1.Taint, key string, now time.Time) ([]corev1.Taint, bool) {
	var out []corev1.Taint
	changed := false
	has := map[corev1.TaintEffect]bool{}
	for _, t := range taints {
		owned := false
		for _, k := range controllerTaintKeys {
			owned = owned || t.Key == k
		}
		switch {
		case !owned:
			out = append(out, t)
		case t.Key == key && (t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute) && !has[t.Effect]:
			has[t.Effect] = true
			out = append(out, t)
		default:
			changed = true
		}
	}
	if key != "" {
		for _, effect := range []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute} {
			if !has[effect] {
				added := metav1.NewTime(now)
				out = append(out, corev1.Taint{Key: key, Effect: effect, TimeAdded: &added})
				changed = true
			}
		}
	}
	return out, changed
}

// evictionTime is when the taint eviction controller deletes pod from a
// node with taints: for each NoExecute taint, the time it was added
// (added) plus the pod's tolerationSeconds for it (the smallest of its
// matching tolerations; a matching toleration without seconds tolerates
// it forever). A NoExecute taint the pod does not tolerate evicts it at
// once. There is no timeout of the controller's own: a pod stays on a
// silent node for as long as its tolerations say, which for most pods is
// the 300 seconds the DefaultTolerationSeconds admission plugin gave them.
// ok is false when the pod stays.
func evictionTime(pod *corev1.Pod, taints []corev1.Taint, added func(corev1.Taint) time.Time) (at time.Time, ok bool) {
	for _, taint := range taints {
		if taint.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		var seconds *int64
		tolerated, forever := false, false
		for _, tol := range pod.Spec.Tolerations {
			if !api.ToleratesTaint(&tol, &taint) {
				continue
			}
			tolerated = true
			if tol.TolerationSeconds == nil {
				forever = true
				continue
			}
			if seconds == nil || *tol.TolerationSeconds < *seconds {
				s := *tol.TolerationSeconds
				seconds = &s
			}
		}
		var when time.Time
		switch {
		case tolerated && seconds != nil:
			when = added(taint).Add(time.Duration(max(*seconds, 0)) * time.Second)
		case tolerated && forever:
			continue
		default:
			when = added(taint)
		}
		if !ok || when.Before(at) {
			at, ok = when, true
		}
	}
	return at, ok
}

// probeTime is the last sign of life of a node: the newer of its lease's
// renewTime and its Ready condition's lastHeartbeatTime, or its creation
// when it has neither.
func probeTime(node *corev1.Node, lease *coordinationv1.Lease) time.Time {
	t := node.CreationTimestamp.Time
	if ready := readyCondition(node); ready != nil && ready.LastHeartbeatTime.Time.After(t) {
		t = ready.LastHeartbeatTime.Time
	}
	if lease != nil && lease.Spec.RenewTime != nil && lease.Spec.RenewTime.Time.After(t) {
		t = lease.Spec.RenewTime.Time
	}
	return t
}

func readyCondition(node *corev1.Node) *corev1.NodeCondition {
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			return &node.Status.Conditions[i]
		}
	}
	return nil
}
