package daemonset

import (
	"fmt"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
)

// ActionType is what an Action does.
type ActionType string

// The actions of a sync.
const (
	// Create makes a daemon pod for a node.
	Create ActionType = "create"
	// Delete removes a daemon pod.
	Delete ActionType = "delete"
)

// Action is one write Plan decides on.
type Action struct {
	Type ActionType
	// Node the pod to create is for.
	Node string
	// Pod to delete.
	Pod string
	// Why, for logs and tests: "missing", "failed", "excess", "not
	// eligible", "update", "surge".
	Why string
}

// String renders an action for logs and tests.
func (a Action) String() string {
	if a.Type == Create {
		return fmt.Sprintf("create on %s (%s)", a.Node, a.Why)
	}
	return fmt.Sprintf("delete %s (%s)", a.Pod, a.Why)
}

// PodsByNode groups the set's pods by the node they are for
// (getNodesToDaemonPods), leaving out finished pods already being
// deleted: the controller has nothing more to do with those.
func PodsByNode(pods []*corev1.Pod) map[string][]*corev1.Pod {
	out := map[string][]*corev1.Pod{}
	for _, p := range pods {
		if p.DeletionTimestamp != nil && isTerminal(p) {
			continue
		}
		if n := TargetNodeName(p); n != "" {
			out[n] = append(out[n], p)
		}
	}
	return out
}

func isTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded
}

// byAge sorts pods oldest first, a scheduled one before one that is not
// (podByCreationTimestampAndPhase), then by name.
func byAge(pods []*corev1.Pod) {
	sort.SliceStable(pods, func(i, j int) bool {
		a, b := pods[i], pods[j]
		if (a.Spec.NodeName != "") != (b.Spec.NodeName != "") {
			return a.Spec.NodeName != ""
		}
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Time.Before(b.CreationTimestamp.Time)
		}
		return a.Name < b.Name
	})
}

// IsPodUpdated reports whether a pod is of the current template
// (IsPodUpdated, by the hash).
func IsPodUpdated(p *corev1.Pod, hash string) bool {
	return hash != "" && p.Labels[appsv1.ControllerRevisionHashLabelKey] == hash
}

func allowsSurge(ds *appsv1.DaemonSet) bool {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType || ru == nil || ru.MaxSurge == nil {
		return false
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxSurge, 1, true)
	return err == nil && n > 0
}

// Manage is manage's podsShouldBeOnNode for every node, in name order:
// a node that should run the daemon and has no pod gets one; failed pods
// go; a node with more than one running pod keeps the oldest (with surge,
// the oldest new one, and the oldest old one while the new one is not yet
// available); a node the daemon may no longer run on loses its pods.
// Nodes that are gone are left to the pod garbage collector.
func Manage(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, hash string, now time.Time) []Action {
	byNode := PodsByNode(pods)
	var out []Action
	for _, node := range sortedNodes(nodes) {
		shouldRun, shouldContinueRunning := NodeShouldRunDaemonPod(node, ds)
		daemonPods := byNode[node.Name]
		switch {
		case shouldRun && len(daemonPods) == 0:
			out = append(out, Action{Type: Create, Node: node.Name, Why: "missing"})
		case shouldContinueRunning:
			var running []*corev1.Pod
			for _, p := range daemonPods {
				if p.DeletionTimestamp != nil {
					continue
				}
				if p.Status.Phase == corev1.PodFailed {
					// The next sync creates its replacement.
					out = append(out, Action{Type: Delete, Pod: p.Name, Why: "failed"})
					continue
				}
				running = append(running, p)
			}
			out = append(out, excess(ds, running, hash, now)...)
		case len(daemonPods) > 0:
			for _, p := range daemonPods {
				if p.DeletionTimestamp == nil {
					out = append(out, Action{Type: Delete, Pod: p.Name, Why: "not eligible"})
				}
			}
		}
	}
	return out
}

// excess is which of a node's running pods go: all but the oldest, or
// with surge all but the oldest new and (while that one is not
// available and the old one is ready) the oldest old one.
func excess(ds *appsv1.DaemonSet, running []*corev1.Pod, hash string, now time.Time) []Action {
	if len(running) <= 1 {
		return nil
	}
	byAge(running)
	var out []Action
	if !allowsSurge(ds) {
		for _, p := range running[1:] {
			out = append(out, Action{Type: Delete, Pod: p.Name, Why: "excess"})
		}
		return out
	}
	var oldestNew, oldestOld *corev1.Pod
	for _, p := range running {
		switch {
		case IsPodUpdated(p, hash) && oldestNew == nil:
			oldestNew = p
		case !IsPodUpdated(p, hash) && oldestOld == nil:
			oldestOld = p
		default:
			out = append(out, Action{Type: Delete, Pod: p.Name, Why: "excess"})
		}
	}
	if oldestNew != nil && oldestOld != nil &&
		(!api.IsPodReady(oldestOld) || api.IsPodAvailable(oldestNew, ds.Spec.MinReadySeconds, now)) {
		out = append(out, Action{Type: Delete, Pod: oldestOld.Name, Why: "surge"})
	}
	return out
}

// RollingUpdate is rollingUpdate's decision, given the actions Manage
// already took (nothing is decided twice for a node Manage acts on):
// without surge, delete old pods — unavailable ones at once, available
// ones while fewer than maxUnavailable nodes lack an available pod; with
// surge, create a new pod beside an old one on up to maxSurge nodes at a
// time, and delete the old pod once the new one is available.
func RollingUpdate(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, hash string, now time.Time) []Action {
	byNode := PodsByNode(pods)
	desired := 0
	var names []string
	for _, node := range sortedNodes(nodes) {
		if shouldRun, _ := NodeShouldRunDaemonPod(node, ds); shouldRun {
			desired++
			if _, ok := byNode[node.Name]; !ok {
				byNode[node.Name] = nil
			}
		}
	}
	for n := range byNode {
		names = append(names, n)
	}
	sort.Strings(names)
	maxSurge, maxUnavailable := UpdateLimits(ds, desired)
	minReady := ds.Spec.MinReadySeconds
	var out []Action
	if maxSurge == 0 {
		numUnavailable := 0
		var allowed, candidates []string
		for _, n := range names {
			newPod, oldPod, ok := findUpdatedPodsOnNode(byNode[n], hash)
			switch {
			case !ok || (oldPod == nil) == (newPod == nil):
				// Several pods, or none, or an old and a new: Manage sorts
				// that out; the node counts as unavailable meanwhile.
				numUnavailable++
			case newPod != nil:
				if !api.IsPodAvailable(newPod, minReady, now) {
					numUnavailable++
				}
			case !api.IsPodAvailable(oldPod, minReady, now):
				allowed = append(allowed, oldPod.Name)
			case numUnavailable >= maxUnavailable:
			default:
				candidates = append(candidates, oldPod.Name)
			}
		}
		remaining := min(max(maxUnavailable-numUnavailable, 0), len(candidates))
		for _, p := range append(allowed, candidates[:remaining]...) {
			out = append(out, Action{Type: Delete, Pod: p, Why: "update"})
		}
		return out
	}
	numSurge := 0
	var allowedNodes, candidateNodes []string
	for _, n := range names {
		newPod, oldPod, ok := findUpdatedPodsOnNode(byNode[n], hash)
		switch {
		case !ok:
			numSurge++
		case oldPod == nil:
			// Nothing to update here; Manage creates a missing pod.
		case newPod == nil:
			switch {
			case !api.IsPodAvailable(oldPod, minReady, now):
				allowedNodes = append(allowedNodes, n)
			case numSurge >= maxSurge:
			default:
				candidateNodes = append(candidateNodes, n)
			}
		case !api.IsPodAvailable(newPod, minReady, now):
			numSurge++
		default:
			out = append(out, Action{Type: Delete, Pod: oldPod.Name, Why: "update"})
		}
	}
	remaining := min(max(maxSurge-numSurge, 0), len(candidateNodes))
	for _, n := range append(allowedNodes, candidateNodes[:remaining]...) {
		out = append(out, Action{Type: Create, Node: n, Why: "surge"})
	}
	return out
}

// UpdateLimits are maxSurge and maxUnavailable resolved against the
// number of nodes that should run the daemon, percentages rounded up
// (SurgeCount, UnavailableCount); an impossible 0 and 0 is taken as
// maxUnavailable 1.
func UpdateLimits(ds *appsv1.DaemonSet, desired int) (maxSurge, maxUnavailable int) {
	if ru := ds.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		if ru.MaxSurge != nil {
			maxSurge, _ = intstr.GetScaledValueFromIntOrPercent(ru.MaxSurge, desired, true)
		}
		if ru.MaxUnavailable != nil {
			maxUnavailable, _ = intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, desired, true)
		}
	}
	if desired > 0 && maxSurge == 0 && maxUnavailable == 0 {
		maxUnavailable = 1
	}
	return maxSurge, maxUnavailable
}

// findUpdatedPodsOnNode splits a node's live pods into one new and one
// old; ok is false when there are two of either.
func findUpdatedPodsOnNode(pods []*corev1.Pod, hash string) (newPod, oldPod *corev1.Pod, ok bool) {
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		if IsPodUpdated(p, hash) {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = p
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = p
		}
	}
	return newPod, oldPod, true
}

// ComputeStatus counts nodes as updateDaemonSetStatus does: for each node
// that should run the daemon, whether it has a pod (the oldest counts),
// whether that pod is ready, available and of the current template; a
// node with a pod that should not run it is misscheduled.
func ComputeStatus(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod, hash string, now time.Time) appsv1.DaemonSetStatus {
	byNode := PodsByNode(pods)
	st := appsv1.DaemonSetStatus{ObservedGeneration: ds.Generation, CollisionCount: ds.Status.CollisionCount,
		Conditions: ds.Status.Conditions}
	for _, node := range sortedNodes(nodes) {
		shouldRun, _ := NodeShouldRunDaemonPod(node, ds)
		daemonPods := byNode[node.Name]
		if !shouldRun {
			if len(daemonPods) > 0 {
				st.NumberMisscheduled++
			}
			continue
		}
		st.DesiredNumberScheduled++
		if len(daemonPods) == 0 {
			continue
		}
		st.CurrentNumberScheduled++
		byAge(daemonPods)
		p := daemonPods[0]
		if api.IsPodReady(p) {
			st.NumberReady++
			if api.IsPodAvailable(p, ds.Spec.MinReadySeconds, now) {
				st.NumberAvailable++
			}
		}
		if IsPodUpdated(p, hash) {
			st.UpdatedNumberScheduled++
		}
	}
	st.NumberUnavailable = st.DesiredNumberScheduled - st.NumberAvailable
	return st
}

func sortedNodes(nodes []*corev1.Node) []*corev1.Node {
	out := append([]*corev1.Node(nil), nodes...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
