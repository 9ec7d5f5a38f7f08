package scheduler

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
)

// The reasons filters give, worded as kube-scheduler's plugins word them
// (each plugin's ErrReason constant); FailedScheduling counts them.
const (
	// ErrReasonUnschedulable is NodeUnschedulable's reason.
	ErrReasonUnschedulable = "node(s) were unschedulable"
	// ErrReasonNodeName is NodeName's reason.
	ErrReasonNodeName = "node(s) didn't match the requested node name"
	// ErrReasonNotReady is NodeReady's reason (kubesim's own filter; the
	// wording of the CheckNodeCondition predicate Kubernetes once had).
	ErrReasonNotReady = "node(s) were not ready"
	// ErrReasonNodeSelector is NodeAffinity's reason.
	ErrReasonNodeSelector = "node(s) didn't match Pod's node affinity/selector"
	// ErrReasonTooManyPods is NodeResourcesFit's reason for a full node.
	ErrReasonTooManyPods = "Too many pods"
	// ErrReasonInsufficientCPU is NodeResourcesFit's reason for cpu.
	ErrReasonInsufficientCPU = "Insufficient cpu"
	// ErrReasonInsufficientMemory is NodeResourcesFit's reason for memory.
	ErrReasonInsufficientMemory = "Insufficient memory"
)

// NodeUnschedulable rejects a cordoned node (spec.unschedulable) unless the
// pod tolerates the node.kubernetes.io/unschedulable:NoSchedule taint that
// cordoning implies.
func NodeUnschedulable(pod *PodInfo, node *NodeInfo) []string {
	if !node.Node.Spec.Unschedulable {
		return nil
	}
	taint := corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
	if TolerationsTolerateTaint(pod.Pod.Spec.Tolerations, &taint) {
		return nil
	}
	return []string{ErrReasonUnschedulable}
}

// NodeName rejects every node but the one the pod names in spec.nodeName,
// if it names one. (A pod that names a node is bound already and never
// queued; the filter is here because the framework has it.)
func NodeName(pod *PodInfo, node *NodeInfo) []string {
	if pod.Pod.Spec.NodeName == "" || pod.Pod.Spec.NodeName == node.Node.Name {
		return nil
	}
	return []string{ErrReasonNodeName}
}

// NodeReady rejects a node whose Ready condition is not True. In Kubernetes
// the node lifecycle controller turns that condition into the
// node.kubernetes.io/not-ready taint (unreachable when Unknown) and
// TaintToleration does the rejecting; so a pod that tolerates that taint
// with NoSchedule passes here too.
func NodeReady(pod *PodInfo, node *NodeInfo) []string {
	if node.Ready == corev1.ConditionTrue {
		return nil
	}
	taint := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	if node.Ready != corev1.ConditionFalse {
		taint.Key = corev1.TaintNodeUnreachable
	}
	if TolerationsTolerateTaint(pod.Pod.Spec.Tolerations, &taint) {
		return nil
	}
	return []string{ErrReasonNotReady}
}

// TaintToleration rejects a node with a NoSchedule or NoExecute taint the
// pod does not tolerate, naming the first such taint as Kubernetes 1.32
// does: "node(s) had untolerated taint {key: value}".
func TaintToleration(pod *PodInfo, node *NodeInfo) []string {
	for i := range node.Node.Spec.Taints {
		t := &node.Node.Spec.Taints[i]
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !TolerationsTolerateTaint(pod.Pod.Spec.Tolerations, t) {
			return []string{fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)}
		}
	}
	return nil
}

// TolerationsTolerateTaint reports whether any of tolerations tolerates
// taint.
func TolerationsTolerateTaint(tolerations []corev1.Toleration, taint *corev1.Taint) bool {
	for i := range tolerations {
		if api.ToleratesTaint(&tolerations[i], taint) {
			return true
		}
	}
	return false
}

// NodeAffinity rejects a node whose labels lack one of the pod's
// spec.nodeSelector pairs or that the pod's required node affinity does
// not select (its matchFields too: a DaemonSet pod names its node with
// metadata.name). Preferred affinity is not scored.
func NodeAffinity(pod *PodInfo, node *NodeInfo) []string {
	if api.PodMatchesNodeAffinity(&pod.Pod.Spec, node.Node) {
		return nil
	}
	return []string{ErrReasonNodeSelector}
}

// NodeResourcesFit rejects a node without room for the pod: one more pod
// than allocatable pods, or more cpu or memory than allocatable minus what
// the pods already on the node (running, or bound and not yet running)
// request. A pod that requests no cpu fits any cpu, as in Kubernetes.
// Extended resources are counted the same way ("Insufficient
// example.com/gpu"); a node that does not list one has none of it.
func NodeResourcesFit(pod *PodInfo, node *NodeInfo) []string {
	return nodeResourcesFit(pod, node, nil)
}

// nodeResourcesFit is NodeResourcesFit leaving out the extended resources
// in ignored (the plugin's ignoredResources).
func nodeResourcesFit(pod *PodInfo, node *NodeInfo, ignored map[corev1.ResourceName]bool) []string {
	var reasons []string
	if node.Requested.Pods+1 > node.Allocatable.Pods {
		reasons = append(reasons, ErrReasonTooManyPods)
	}
	req := pod.Requests
	if req.MilliCPU > 0 && req.MilliCPU > node.Allocatable.MilliCPU-node.Requested.MilliCPU {
		reasons = append(reasons, ErrReasonInsufficientCPU)
	}
	if req.Memory > 0 && req.Memory > node.Allocatable.Memory-node.Requested.Memory {
		reasons = append(reasons, ErrReasonInsufficientMemory)
	}
	if len(req.Scalar) == 0 {
		// Most pods ask for no extended resource: no sorted copy of an
		// empty map for each of them on each node (10.8 M allocations of
		// the 10,000-pod run).
		return reasons
	}
	// Extended resources (a device plugin's example.com/gpu), in order of
	// name so that the message is stable.
	for _, name := range slices.Sorted(maps.Keys(req.Scalar)) {
		if v := req.Scalar[name]; v > 0 && v > node.Allocatable.Scalar[name]-node.Requested.Scalar[name] && !ignored[name] {
			reasons = append(reasons, "Insufficient "+string(name))
		}
	}
	return reasons
}

// ignoringResources returns f with its NodeResourcesFit leaving out the
// extended resources in ignored (those an extender manages with
// ignoredByScheduler), or f itself when there are none. The copy shares
// f's runtime: it is the same profile.
func (f *Framework) ignoringResources(ignored map[corev1.ResourceName]bool) *Framework {
	if len(ignored) == 0 {
		return f
	}
	c := *f
	c.Filter = slices.Clone(f.Filter)
	for i, p := range c.Filter {
		if fit, ok := p.(*fitPlugin); ok {
			cp := *fit
			cp.ignored = ignored
			c.Filter[i] = &cp
		}
	}
	return &c
}
