package scheduler

import (
	"context"
	"errors"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/client"
)

// The scheduling framework's extension points as Go interfaces, named and
// shaped as kube-scheduler's pkg/scheduler/framework/interface.go names
// them, so that a plugin written here reads like one written for
// kube-scheduler: a context first, the cycle's CycleState, the pod (a
// *PodInfo where kube-scheduler passes a *v1.Pod: the parsed pod kubesim's
// cache keeps), the node (a *NodeInfo). kubesim's built-in plugins
// implement them (plugins.go); an out-of-tree plugin does too and is
// registered by name (scheduler/config's Registry, scheduler/app's
// WithPlugin).

// Code is a Status's code (framework.Code).
type Code int

// The codes of kube-scheduler's framework.
const (
	// Success: the plugin ran and the pod may go on. A nil *Status is
	// Success too, and is what the built-in plugins return.
	Success Code = iota
	// Error: an internal error; the cycle fails and the pod is retried
	// after a back-off.
	Error
	// Unschedulable: the pod does not fit (on this node); preemption may
	// help.
	Unschedulable
	// UnschedulableAndUnresolvable: the pod does not fit and preemption
	// would not help.
	UnschedulableAndUnresolvable
	// Wait: a Permit plugin holds the pod until it is allowed or rejected.
	Wait
	// Skip: the plugin has nothing to do for this pod: a PreFilter's Skip
	// skips its Filter, a PreScore's its Score, a Bind plugin's the next
	// bind plugin binds.
	Skip
)

var codeNames = [...]string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip"}

// String is the code's name, as kube-scheduler prints it.
func (c Code) String() string {
	if c < 0 || int(c) >= len(codeNames) {
		return "Unknown"
	}
	return codeNames[c]
}

// Status is a plugin's verdict: a code and the reasons (framework.Status).
// nil is Success.
type Status struct {
	code    Code
	reasons []string
	err     error
	plugin  string
}

// NewStatus returns a status of code with the reasons.
func NewStatus(code Code, reasons ...string) *Status {
	s := &Status{code: code, reasons: reasons}
	if code == Error && len(reasons) > 0 {
		s.err = errors.New(s.Message())
	}
	return s
}

// AsStatus wraps err in a status of code Error (nil: nil).
func AsStatus(err error) *Status {
	if err == nil {
		return nil
	}
	return &Status{code: Error, reasons: []string{err.Error()}, err: err}
}

// Code is the status's code; a nil status is Success.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// Reasons are the status's reasons.
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	return s.reasons
}

// Message is the reasons joined with ", ".
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.reasons, ", ")
}

// IsSuccess reports whether the status is Success (or nil).
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// IsWait reports whether the status is Wait.
func (s *Status) IsWait() bool { return s.Code() == Wait }

// IsSkip reports whether the status is Skip.
func (s *Status) IsSkip() bool { return s.Code() == Skip }

// IsRejected reports whether the status says the pod does not fit:
// Unschedulable or UnschedulableAndUnresolvable.
func (s *Status) IsRejected() bool {
	c := s.Code()
	return c == Unschedulable || c == UnschedulableAndUnresolvable
}

// AsError is the status as an error: nil for Success, Skip and Wait.
func (s *Status) AsError() error {
	switch s.Code() {
	case Success, Skip, Wait:
		return nil
	}
	if s.err != nil {
		return s.err
	}
	return errors.New(s.Message())
}

// Plugin is the name of the plugin that gave the status, when the
// framework has recorded it (WithPlugin).
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// WithPlugin records the plugin's name on s and returns s.
func (s *Status) WithPlugin(name string) *Status {
	if s != nil {
		s.plugin = name
	}
	return s
}

// MaxPermitTimeout bounds the timeout a Permit plugin may ask for
// (kube-scheduler's maxTimeout, 15 minutes).
const MaxPermitTimeout = 15 * time.Minute

// Plugin is what every plugin is: a name, the one a configuration lists
// it by.
type Plugin interface {
	Name() string
}

// PreEnqueuePlugin decides whether a pod may enter the scheduling queue at
// all (SchedulingGates holds a gated pod back). A pod it refuses is held
// until an update of the pod lets it in.
type PreEnqueuePlugin interface {
	Plugin
	PreEnqueue(ctx context.Context, pod *corev1.Pod) *Status
}

// QueuedPodInfo is a pod in the scheduling queue, as QueueSort compares
// them.
type QueuedPodInfo struct {
	Pod *corev1.Pod
	// Timestamp is when the pod was queued.
	Timestamp time.Time
}

// QueueSortPlugin orders the scheduling queue. A profile has exactly one
// (PrioritySort by default). kubesim's queue is its controllers' FIFO work
// queue: the configuration must name one, as kube-scheduler's must, but
// the order it gives is not applied (doc.go).
type QueueSortPlugin interface {
	Plugin
	Less(a, b *QueuedPodInfo) bool
}

// PreFilterPlugin looks at the pod and every node once, before any node
// is filtered, and keeps what its Filter needs in the CycleState. A
// rejection (Unschedulable...) ends the cycle with no node tried; Skip
// skips the plugin's Filter for this pod. kube-scheduler's PreFilter also
// returns a PreFilterResult narrowing the nodes; kubesim's does not.
type PreFilterPlugin interface {
	Plugin
	PreFilter(ctx context.Context, state *CycleState, pod *PodInfo, nodes []*NodeInfo) *Status
	// PreFilterExtensions are AddPod and RemovePod (nil: none):
	// preemption's dry run calls them as it takes victims off a node and
	// puts them back, so that the PreFilter state counts them right.
	PreFilterExtensions() PreFilterExtensions
}

// PreFilterExtensions update a PreFilter's state for a pod added to or
// removed from a node in preemption's dry run.
type PreFilterExtensions interface {
	AddPod(ctx context.Context, state *CycleState, podToSchedule, podInfoToAdd *PodInfo, nodeInfo *NodeInfo) *Status
	RemovePod(ctx context.Context, state *CycleState, podToSchedule, podInfoToRemove *PodInfo, nodeInfo *NodeInfo) *Status
}

// FilterPlugin decides whether the pod may run on the node: nil (Success)
// when it may, else Unschedulable (or UnschedulableAndUnresolvable) with
// the reasons, which the FailedScheduling message counts. Filters run in
// the profile's order; the first to reject a node decides its reasons.
type FilterPlugin interface {
	Plugin
	Filter(ctx context.Context, state *CycleState, pod *PodInfo, nodeInfo *NodeInfo) *Status
}

// PostFilterPlugin runs when no node fits (DefaultPreemption).
// filteredNodeStatusMap has each node's rejection.
type PostFilterPlugin interface {
	Plugin
	PostFilter(ctx context.Context, state *CycleState, pod *PodInfo, filteredNodeStatusMap map[string]*Status) (*PostFilterResult, *Status)
}

// PostFilterResult is what a PostFilter found: the node the pod may go to
// once victims are gone.
type PostFilterResult struct {
	NominatedNodeName string
}

// PreScorePlugin runs once per cycle on the nodes that passed the
// filters, before Score; Skip skips the plugin's Score for this pod (it
// adds 0 to every node).
type PreScorePlugin interface {
	Plugin
	PreScore(ctx context.Context, state *CycleState, pod *PodInfo, nodes []*NodeInfo) *Status
}

// ScorePlugin rates a feasible node, 0 to MaxNodeScore (any count before
// its NormalizeScore). The profile gives it a weight.
type ScorePlugin interface {
	Plugin
	Score(ctx context.Context, state *CycleState, pod *PodInfo, nodeInfo *NodeInfo) (int64, *Status)
	// ScoreExtensions is NormalizeScore (nil: none).
	ScoreExtensions() ScoreExtensions
}

// ScoreExtensions rewrites the raw scores of all the feasible nodes, in
// the order the nodes were scored, into 0..MaxNodeScore. kube-scheduler
// passes a NodeScoreList of names and scores; kubesim the scores alone,
// so that a cycle allocates nothing for them.
type ScoreExtensions interface {
	NormalizeScore(ctx context.Context, state *CycleState, pod *PodInfo, scores []int64) *Status
}

// ReservePlugin is told of the node picked (Reserve), before Permit and
// the binding, and of a failure after it (Unreserve, in the reverse
// order of Reserve), so that it can keep and drop what it reserved. An
// error from Reserve fails the cycle.
type ReservePlugin interface {
	Plugin
	Reserve(ctx context.Context, state *CycleState, pod *PodInfo, nodeName string) *Status
	Unreserve(ctx context.Context, state *CycleState, pod *PodInfo, nodeName string)
}

// PermitPlugin approves the binding (Success), rejects it, or holds the
// pod (Wait, with a timeout of at most MaxPermitTimeout): the pod stays
// assumed on its node until every plugin that said Wait calls Allow on
// its WaitingPod (Handle.GetWaitingPod), one calls Reject, or the timeout
// passes (rejected).
type PermitPlugin interface {
	Plugin
	Permit(ctx context.Context, state *CycleState, pod *PodInfo, nodeName string) (*Status, time.Duration)
}

// PreBindPlugin runs before the binding (Success to go on); an error
// fails the binding: the pod is unreserved, forgotten and retried.
type PreBindPlugin interface {
	Plugin
	PreBind(ctx context.Context, state *CycleState, pod *PodInfo, nodeName string) *Status
}

// BindPlugin binds the pod to the node; Skip passes to the next bind
// plugin (DefaultBinder posts pods/binding).
type BindPlugin interface {
	Plugin
	Bind(ctx context.Context, state *CycleState, pod *PodInfo, nodeName string) *Status
}

// PostBindPlugin is told the pod was bound.
type PostBindPlugin interface {
	Plugin
	PostBind(ctx context.Context, state *CycleState, pod *PodInfo, nodeName string)
}

// WaitingPod is a pod a Permit plugin holds (framework.WaitingPod).
type WaitingPod interface {
	// GetPod is the pod.
	GetPod() *corev1.Pod
	// NodeName is the node it is assumed on.
	NodeName() string
	// GetPendingPlugins are the Permit plugins it still waits for.
	GetPendingPlugins() []string
	// Allow is plugin's approval; the pod is bound once every plugin
	// that made it wait has allowed it.
	Allow(pluginName string)
	// Reject rejects the pod with msg: it is unreserved, forgotten and
	// queued again.
	Reject(pluginName, msg string)
}

// NodeInfoLister lists the nodes of the scheduler's cache as the cycle
// sees them (SharedLister's NodeInfos).
type NodeInfoLister interface {
	List() []*NodeInfo
}

// Handle is what a plugin gets at construction: the framework's services
// (framework.Handle, the part kubesim has). The Framework is the Handle
// of its profile's plugins.
type Handle interface {
	// ClientSet talks to the API server (nil before the scheduler is
	// built with the framework).
	ClientSet() *client.Client
	// SnapshotSharedLister lists the nodes of the cache. Read it only
	// within an extension point's call: the scheduler holds its cache
	// still only then.
	SnapshotSharedLister() NodeInfoLister
	// GetWaitingPod is the pod of uid waiting in Permit, or nil.
	GetWaitingPod(uid types.UID) WaitingPod
	// IterateOverWaitingPods calls f for each pod waiting in Permit.
	IterateOverWaitingPods(f func(WaitingPod))
	// RejectWaitingPod rejects the waiting pod of uid, and reports
	// whether there was one.
	RejectWaitingPod(uid types.UID) bool
}
