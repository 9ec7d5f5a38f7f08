package scheduler

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// kubesim's built-in plugins as types implementing the framework's
// interfaces (interface.go), each named as its kube-scheduler plugin.
// Their checks are the functions of filters.go, scores.go and the
// plugins' own files, which tests call directly; the types adapt them to
// the interfaces. A built-in's state lives in CycleState's typed fields,
// so the state argument is the pod's own (&pod.state) and they read it
// through the pod.

// staticStatuses are the built-in filters' one-reason rejections, made
// once: a rejected node costs no Status of its own. They are never
// changed (the framework does not call WithPlugin on a Filter's status).
var staticStatuses = func() map[string]*Status {
	m := map[string]*Status{}
	for _, r := range []string{ErrReasonUnschedulable, ErrReasonNodeName, ErrReasonNotReady, ErrReasonNodeSelector,
		ErrReasonTooManyPods, ErrReasonInsufficientCPU, ErrReasonInsufficientMemory, ErrReasonNodePorts,
		ErrReasonNodeConflict, ErrReasonBindConflict, ErrReasonConstraintsNotMatch, ErrReasonNodeLabelNotMatch,
		ErrReasonAffinityRulesNotMatch, ErrReasonAntiAffinityRulesNotMatch, ErrReasonExistingAntiAffinityRulesNotMatch} {
		m[r] = NewStatus(Unschedulable, r)
	}
	return m
}()

// statusSkip is the built-ins' Skip.
var statusSkip = NewStatus(Skip)

// rejection turns a filter function's reasons into its status: nil when
// there are none, Unschedulable with them otherwise.
func rejection(reasons []string) *Status {
	switch len(reasons) {
	case 0:
		return nil
	case 1:
		if s, ok := staticStatuses[reasons[0]]; ok {
			return s
		}
	}
	return NewStatus(Unschedulable, reasons...)
}

// preFilterStatus turns a PreFilter function's message into its status.
func preFilterStatus(msg string) *Status {
	if msg == "" {
		return nil
	}
	return NewStatus(UnschedulableAndUnresolvable, msg)
}

// The plugins whose one extension point is Filter, each a type of its
// own calling its function directly: a filter runs on every node of every
// cycle, where an indirect call and a call that finds nothing to report
// cost a decision over 1,000 nodes measurably. So each method also
// answers the common case (nothing to check) itself, without the call.

type nodeUnschedulable struct{}

// NewNodeUnschedulable is the NodeUnschedulable plugin (a cordoned node).
func NewNodeUnschedulable() FilterPlugin { return nodeUnschedulable{} }

func (nodeUnschedulable) Name() string { return "NodeUnschedulable" }

func (nodeUnschedulable) Filter(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) *Status {
	if !node.Node.Spec.Unschedulable {
		return nil
	}
	if r := NodeUnschedulable(pod, node); r != nil {
		return rejection(r)
	}
	return nil
}

type nodeName struct{}

// NewNodeName is the NodeName plugin (spec.nodeName).
func NewNodeName() FilterPlugin { return nodeName{} }

func (nodeName) Name() string { return "NodeName" }

func (nodeName) Filter(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) *Status {
	if r := NodeName(pod, node); r != nil {
		return rejection(r)
	}
	return nil
}

type nodeReady struct{}

// NewNodeReady is kubesim's NodeReady filter (doc.go: where the not-ready
// taint would stop the pod in TaintToleration).
func NewNodeReady() FilterPlugin { return nodeReady{} }

func (nodeReady) Name() string { return "NodeReady" }

func (nodeReady) Filter(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) *Status {
	if node.Ready == corev1.ConditionTrue {
		return nil
	}
	if r := NodeReady(pod, node); r != nil {
		return rejection(r)
	}
	return nil
}

type taintToleration struct{}

// NewTaintToleration is TaintToleration's filter (its score is left out).
func NewTaintToleration() FilterPlugin { return taintToleration{} }

func (taintToleration) Name() string { return "TaintToleration" }

func (taintToleration) Filter(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) *Status {
	if len(node.Node.Spec.Taints) == 0 {
		return nil
	}
	if r := TaintToleration(pod, node); r != nil {
		return rejection(r)
	}
	return nil
}

type nodeAffinity struct{}

// NewNodeAffinity is NodeAffinity's filter (nodeSelector and required
// node affinity; preferred affinity is not scored).
func NewNodeAffinity() FilterPlugin { return nodeAffinity{} }

func (nodeAffinity) Name() string { return "NodeAffinity" }

func (nodeAffinity) Filter(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) *Status {
	if r := NodeAffinity(pod, node); r != nil {
		return rejection(r)
	}
	return nil
}

type nodePorts struct{}

// NewNodePorts is the NodePorts plugin.
func NewNodePorts() FilterPlugin { return nodePorts{} }

func (nodePorts) Name() string { return "NodePorts" }

func (nodePorts) Filter(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) *Status {
	if !hasHostPorts(pod.Pod) {
		return nil
	}
	if r := NodePorts(pod, node); r != nil {
		return rejection(r)
	}
	return nil
}

// fitPlugin is the NodeResourcesFit plugin: its Filter and, with
// its scoring strategy, its Score.
type fitPlugin struct {
	// ignored are the extended resources an extender manages
	// (ignoredByScheduler): the filter leaves them out.
	ignored map[corev1.ResourceName]bool
	// score is the scoring strategy's; nil for the default,
	// LeastAllocated, called directly (it scores every feasible node of
	// every cycle).
	score func(pod *PodInfo, node *NodeInfo) int64
}

// NodeResourcesFitPlugin is what NewNodeResourcesFit returns: a Filter
// and a Score.
type NodeResourcesFitPlugin interface {
	FilterPlugin
	ScorePlugin
}

// NewNodeResourcesFit is the NodeResourcesFit plugin with args' scoring
// strategy (nil: LeastAllocated over cpu and memory; scoringstrategy.go).
func NewNodeResourcesFit(args *configv1.NodeResourcesFitArgs) NodeResourcesFitPlugin {
	return &fitPlugin{score: scoringStrategy(args)}
}

func (p *fitPlugin) Name() string { return "NodeResourcesFit" }

func (p *fitPlugin) Filter(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) *Status {
	if req := &pod.Requests; len(req.Scalar) == 0 && node.Requested.Pods+1 <= node.Allocatable.Pods &&
		req.MilliCPU <= node.Allocatable.MilliCPU-node.Requested.MilliCPU && req.Memory <= node.Allocatable.Memory-node.Requested.Memory {
		return nil // room for it (nodeResourcesFit's checks, without the call)
	}
	if r := nodeResourcesFit(pod, node, p.ignored); r != nil {
		return rejection(r)
	}
	return nil
}

func (p *fitPlugin) Score(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) (int64, *Status) {
	if p.score == nil {
		return LeastAllocated(pod, node), nil
	}
	return p.score(pod, node), nil
}

func (p *fitPlugin) ScoreExtensions() ScoreExtensions { return nil }

// volumeBinding is VolumeBinding's PreFilter (a missing or unbound
// Immediate claim rejects every node) and Filter. Its Reserve and PreBind
// (the claims get the node, and the binding waits until the PV controller
// has bound them) are the scheduler's own (volumes.go): that wait lasts
// across reconciles, where a PreBindPlugin's call returns once.
type volumeBinding struct{}

// VolumeBindingPlugin is what NewVolumeBinding returns.
type VolumeBindingPlugin interface {
	PreFilterPlugin
	FilterPlugin
}

// NewVolumeBinding is the VolumeBinding plugin. A profile that has it
// gets the pod's claims looked at (PodInfo.Volumes).
func NewVolumeBinding() VolumeBindingPlugin { return volumeBinding{} }

func (volumeBinding) Name() string { return "VolumeBinding" }

func (volumeBinding) PreFilter(_ context.Context, _ *CycleState, pod *PodInfo, _ []*NodeInfo) *Status {
	if pod.Volumes == nil {
		return nil
	}
	return preFilterStatus(pod.Volumes.PreFilterMsg)
}

func (volumeBinding) PreFilterExtensions() PreFilterExtensions { return nil }

func (volumeBinding) Filter(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) *Status {
	if pod.Volumes == nil {
		return nil
	}
	return rejection(VolumeBinding(pod, node))
}

// podTopologySpread is the PodTopologySpread plugin: PreFilter (counting
// the domains), Filter, PreScore, Score and NormalizeScore.
type podTopologySpread struct {
	// defaults are the constraints of a pod without its own (nil: the
	// system's).
	defaults []corev1.TopologySpreadConstraint
}

// PodTopologySpreadPlugin is what NewPodTopologySpread returns.
type PodTopologySpreadPlugin interface {
	PreFilterPlugin
	FilterPlugin
	PreScorePlugin
	ScorePlugin
}

// NewPodTopologySpread is the plugin with PodTopologySpreadArgs: a pod
// without constraints of its own is spread by defaultConstraints under
// defaultingType List (none when the list is empty) or by
// SystemDefaultConstraints under System (and when args is nil).
func NewPodTopologySpread(args *configv1.PodTopologySpreadArgs) PodTopologySpreadPlugin {
	var defaults []corev1.TopologySpreadConstraint // nil: the system's
	if args != nil && args.DefaultingType == configv1.ListDefaulting {
		defaults = append([]corev1.TopologySpreadConstraint{}, args.DefaultConstraints...)
	}
	return &podTopologySpread{defaults: defaults}
}

func (p *podTopologySpread) Name() string { return "PodTopologySpread" }

func (p *podTopologySpread) PreFilter(_ context.Context, _ *CycleState, pod *PodInfo, nodes []*NodeInfo) *Status {
	return preFilterStatus(podTopologySpreadPreFilter(pod, nodes, p.defaults))
}

func (p *podTopologySpread) PreFilterExtensions() PreFilterExtensions { return p }

func (p *podTopologySpread) AddPod(_ context.Context, state *CycleState, pod, add *PodInfo, node *NodeInfo) *Status {
	if state.topologySpread != nil {
		state.topologySpread.updateWithPod(pod, add, node, 1)
	}
	return nil
}

func (p *podTopologySpread) RemovePod(_ context.Context, state *CycleState, pod, remove *PodInfo, node *NodeInfo) *Status {
	if state.topologySpread != nil {
		state.topologySpread.updateWithPod(pod, remove, node, -1)
	}
	return nil
}

func (p *podTopologySpread) Filter(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) *Status {
	if pod.state.topologySpread == nil {
		return nil
	}
	if r := PodTopologySpreadFilter(pod, node); r != nil {
		return rejection(r)
	}
	return nil
}

func (p *podTopologySpread) PreScore(_ context.Context, state *CycleState, pod *PodInfo, feasible []*NodeInfo) *Status {
	if podTopologySpreadPreScore(pod, feasible, state.allNodes, p.defaults) {
		return statusSkip
	}
	return nil
}

func (p *podTopologySpread) Score(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) (int64, *Status) {
	return PodTopologySpreadScore(pod, node), nil
}

func (p *podTopologySpread) ScoreExtensions() ScoreExtensions { return p }

func (p *podTopologySpread) NormalizeScore(_ context.Context, _ *CycleState, pod *PodInfo, scores []int64) *Status {
	NormalizePodTopologySpread(pod, scores)
	return nil
}

// interPodAffinity is the InterPodAffinity plugin: PreFilter, Filter,
// PreScore, Score and NormalizeScore.
type interPodAffinity struct {
	hardPodAffinityWeight int64
}

// InterPodAffinityPlugin is what NewInterPodAffinity returns.
type InterPodAffinityPlugin interface {
	PreFilterPlugin
	FilterPlugin
	PreScorePlugin
	ScorePlugin
}

// NewInterPodAffinity is the plugin with InterPodAffinityArgs'
// hardPodAffinityWeight: how much each required affinity term of a pod
// on a node that the pod matches adds to that node's domain's score (0:
// nothing; HardPodAffinityWeight by default).
func NewInterPodAffinity(hardPodAffinityWeight int64) InterPodAffinityPlugin {
	return &interPodAffinity{hardPodAffinityWeight: hardPodAffinityWeight}
}

func (p *interPodAffinity) Name() string { return "InterPodAffinity" }

func (p *interPodAffinity) PreFilter(_ context.Context, _ *CycleState, pod *PodInfo, nodes []*NodeInfo) *Status {
	return preFilterStatus(InterPodAffinityPreFilter(pod, nodes))
}

func (p *interPodAffinity) PreFilterExtensions() PreFilterExtensions { return p }

func (p *interPodAffinity) AddPod(_ context.Context, state *CycleState, pod, add *PodInfo, node *NodeInfo) *Status {
	if state.interPodAffinity != nil {
		state.interPodAffinity.updateWithPod(pod, add, node.Node, 1)
	}
	return nil
}

func (p *interPodAffinity) RemovePod(_ context.Context, state *CycleState, pod, remove *PodInfo, node *NodeInfo) *Status {
	if state.interPodAffinity != nil {
		state.interPodAffinity.updateWithPod(pod, remove, node.Node, -1)
	}
	return nil
}

func (p *interPodAffinity) Filter(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) *Status {
	if pod.state.interPodAffinity == nil {
		return nil
	}
	if r := InterPodAffinityFilter(pod, node); r != nil {
		return rejection(r)
	}
	return nil
}

func (p *interPodAffinity) PreScore(_ context.Context, state *CycleState, pod *PodInfo, _ []*NodeInfo) *Status {
	if interPodAffinityPreScore(pod, state.allNodes, p.hardPodAffinityWeight) {
		return statusSkip
	}
	return nil
}

func (p *interPodAffinity) Score(_ context.Context, _ *CycleState, pod *PodInfo, node *NodeInfo) (int64, *Status) {
	return InterPodAffinityScore(pod, node), nil
}

func (p *interPodAffinity) ScoreExtensions() ScoreExtensions { return p }

func (p *interPodAffinity) NormalizeScore(_ context.Context, _ *CycleState, _ *PodInfo, scores []int64) *Status {
	NormalizeInterPodAffinity(scores)
	return nil
}

// schedulingGates is the SchedulingGates plugin: a pod with scheduling
// gates does not enter the queue.
type schedulingGates struct{}

// NewSchedulingGates is the SchedulingGates plugin.
func NewSchedulingGates() PreEnqueuePlugin { return schedulingGates{} }

func (schedulingGates) Name() string { return "SchedulingGates" }

func (schedulingGates) PreEnqueue(_ context.Context, pod *corev1.Pod) *Status {
	if !gated(pod) {
		return nil
	}
	return NewStatus(UnschedulableAndUnresolvable, "waiting for scheduling gates")
}

// prioritySort is PrioritySort: the higher priority first, then the
// earlier queued.
type prioritySort struct{}

// NewPrioritySort is the PrioritySort plugin.
func NewPrioritySort() QueueSortPlugin { return prioritySort{} }

func (prioritySort) Name() string { return "PrioritySort" }

func (prioritySort) Less(a, b *QueuedPodInfo) bool {
	pa, pb := PodPriority(a.Pod), PodPriority(b.Pod)
	return pa > pb || (pa == pb && a.Timestamp.Before(b.Timestamp))
}

// defaultBinder is DefaultBinder: it posts the pod's Binding, with the
// pod's uid as a precondition so that a pod recreated under the same
// name is not bound by mistake.
type defaultBinder struct{ h Handle }

// NewDefaultBinder is the DefaultBinder plugin, binding through h's
// client.
func NewDefaultBinder(h Handle) BindPlugin { return &defaultBinder{h: h} }

func (b *defaultBinder) Name() string { return "DefaultBinder" }

func (b *defaultBinder) Bind(ctx context.Context, _ *CycleState, pod *PodInfo, node string) *Status {
	cl := b.h.ClientSet()
	if cl == nil {
		return AsStatus(errors.New("DefaultBinder: the framework has no client"))
	}
	p := pod.Pod
	return AsStatus(cl.Pods().CreateSubresource(ctx, p.Namespace, p.Name, "binding", bindingFor(p, node)))
}

// defaultPreemption is DefaultPreemption, the PostFilter: preemption.go.
type defaultPreemption struct{ fw *Framework }

// NewDefaultPreemption is the DefaultPreemption plugin of the framework
// h, which must be a *Framework: it evicts through the scheduler that
// runs it.
func NewDefaultPreemption(h Handle) PostFilterPlugin {
	fw, _ := h.(*Framework)
	return &defaultPreemption{fw: fw}
}

func (p *defaultPreemption) Name() string { return "DefaultPreemption" }

func (p *defaultPreemption) PostFilter(ctx context.Context, _ *CycleState, pod *PodInfo, _ map[string]*Status) (*PostFilterResult, *Status) {
	if p.fw == nil || p.fw.rt == nil || p.fw.rt.sched == nil {
		return nil, NewStatus(Unschedulable, "preemption is not available")
	}
	node, err := p.fw.rt.sched.preempt(ctx, p.fw.rt.prof, pod.Pod, pod)
	if err != nil {
		return nil, AsStatus(err)
	}
	if node == "" {
		return nil, NewStatus(Unschedulable, "preemption: no candidate")
	}
	return &PostFilterResult{NominatedNodeName: node}, nil
}

// hasHostPorts reports whether a container of pod asks for a host port
// (what NodePorts checks).
func hasHostPorts(pod *corev1.Pod) bool {
	for i := range pod.Spec.Containers {
		for j := range pod.Spec.Containers[i].Ports {
			if pod.Spec.Containers[i].Ports[j].HostPort > 0 {
				return true
			}
		}
	}
	return false
}
