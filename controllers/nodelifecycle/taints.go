package nodelifecycle

import (
	"time"

	"github.com/kubesim/kubesim/api"
)

// controllerTaintKeys are the taints this controller owns.
var controllerTaintKeys = []string{api.TaintNodeUnreachable, api.TaintNodeNotReady}

// taintKeyFor is the taint a node's Ready condition calls for: Unknown
// (no heartbeat) → unreachable, False → not-ready, True → none.
func taintKeyFor(ready *api.NodeCondition) string {
	switch {
	case ready == nil || ready.Status == api.ConditionUnknown:
		return api.TaintNodeUnreachable
	case ready.Status == api.ConditionFalse:
		return api.TaintNodeNotReady
	}
	return ""
}

// desiredTaints returns taints with the controller's taints made to match
// key (both effects of key, none of the other keys), and whether anything
// changed. Taints already there keep their timeAdded; new ones get now.
func desiredTaints(taints []api.Taint, key string, now time.Time) ([]api.Taint, bool) {
	var out []api.Taint
	changed := false
	has := map[api.TaintEffect]bool{}
	for _, t := range taints {
		owned := false
		for _, k := range controllerTaintKeys {
			owned = owned || t.Key == k
		}
		switch {
		case !owned:
			out = append(out, t)
		case t.Key == key && (t.Effect == api.TaintEffectNoSchedule || t.Effect == api.TaintEffectNoExecute) && !has[t.Effect]:
			has[t.Effect] = true
			out = append(out, t)
		default:
			changed = true
		}
	}
	if key != "" {
		for _, effect := range []api.TaintEffect{api.TaintEffectNoSchedule, api.TaintEffectNoExecute} {
			if !has[effect] {
				added := api.NewTime(now)
				out = append(out, api.Taint{Key: key, Effect: effect, TimeAdded: &added})
				changed = true
			}
		}
	}
	return out, changed
}

// evictionTime is when the taint eviction controller deletes pod from a
// node with taints: for each NoExecute taint, the time it was added plus
// the pod's tolerationSeconds for it (the smallest of its matching
// tolerations; none means forever). A taint the pod does not tolerate
// evicts it at once, except unreachable and not-ready, for which the pod
// gets defaultTimeout, as the DefaultTolerationSeconds admission plugin
// would have given it a toleration. ok is false when the pod stays.
func evictionTime(pod *api.Pod, taints []api.Taint, defaultTimeout time.Duration) (at time.Time, ok bool) {
	for _, taint := range taints {
		if taint.Effect != api.TaintEffectNoExecute {
			continue
		}
		added := time.Time{}
		if taint.TimeAdded != nil {
			added = taint.TimeAdded.Time
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
			when = added.Add(time.Duration(max(*seconds, 0)) * time.Second)
		case tolerated && forever:
			continue
		case taint.Key == api.TaintNodeUnreachable || taint.Key == api.TaintNodeNotReady:
			when = added.Add(defaultTimeout)
		default:
			when = added
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
func probeTime(node *api.Node, lease *api.Lease) time.Time {
	t := node.CreationTimestamp.Time
	if ready := readyCondition(node); ready != nil && ready.LastHeartbeatTime.Time.After(t) {
		t = ready.LastHeartbeatTime.Time
	}
	if lease != nil && lease.Spec.RenewTime != nil && lease.Spec.RenewTime.Time.After(t) {
		t = lease.Spec.RenewTime.Time
	}
	return t
}

func readyCondition(node *api.Node) *api.NodeCondition {
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == api.NodeReady {
			return &node.Status.Conditions[i]
		}
	}
	return nil
}
