// Package scheduler is kubesim's kube-scheduler: it watches pods that have
// no spec.nodeName and whose spec.schedulerName names one of its profiles
// (default-scheduler, or empty, without a configuration), picks a node for
// each and binds the pod to it through the pods/binding subresource,
// exactly as the real scheduler does: it is an API client like every other
// loop and never writes spec.nodeName itself. A pod naming a scheduler no
// profile has is left Pending untouched (no event, no condition, not
// counted as pending), for that other scheduler to bind.
//
// Profiles (Config.Profiles; scheduler/config builds them from a
// KubeSchedulerConfiguration): one Scheduler, one queue, one cache serve
// them all, as in kube-scheduler; the pod's schedulerName picks the
// profile's Framework, and the profile's name signs its events (source
// and reportingController) and labels its metrics. A profile decides its
// filters and their order, its scores and weights (and the scoring
// strategy of NodeResourcesFit, PodTopologySpread's default constraints,
// InterPodAffinity's hardPodAffinityWeight: scoringstrategy.go and the
// plugins' constructors), percentageOfNodesToScore, and whether
// VolumeBinding and DefaultPreemption run.
//
// The scheduling framework (interface.go): the extension points are Go
// interfaces named and shaped as kube-scheduler's
// pkg/scheduler/framework/interface.go names them — PreEnqueuePlugin,
// QueueSortPlugin, PreFilterPlugin (with PreFilterExtensions' AddPod and
// RemovePod, which preemption's dry run calls), FilterPlugin,
// PostFilterPlugin, PreScorePlugin, ScorePlugin (with ScoreExtensions'
// NormalizeScore), ReservePlugin, PermitPlugin, PreBindPlugin, BindPlugin,
// PostBindPlugin — each called with a context, the cycle's CycleState,
// the pod and the node, and answering a *Status with kube-scheduler's
// codes (Success as nil, Error, Unschedulable,
// UnschedulableAndUnresolvable, Wait, Skip). A Framework holds a
// profile's plugins point by point and runs each point's in order; it is
// the Handle its plugins are built with (ClientSet, SnapshotSharedLister,
// GetWaitingPod, IterateOverWaitingPods, RejectWaitingPod). kubesim's
// built-in plugins implement the interfaces (plugins.go); an out-of-tree
// plugin does too, registered by name in scheduler/config's Registry
// (scheduler/app's WithPlugin builds a scheduler command with it).
//
// The interfaces live in this package, not in a scheduler/framework one as
// in Kubernetes: they take the *PodInfo and *NodeInfo of the scheduler's
// cache, and the built-ins keep their state in CycleState's unexported
// fields and PodInfo's parsed terms, so a framework package would need
// this package (a cycle) or take those types with it. Where
// kube-scheduler passes a *v1.Pod, kubesim passes the *PodInfo (the pod
// is its Pod field); NormalizeScore gets the scores alone, in the order
// the nodes were scored, not a NodeScoreList; PreFilter returns no
// PreFilterResult. CycleState keeps kube-scheduler's Read/Write/Delete by
// StateKey for other plugins beside typed fields for the built-ins, so a
// cycle of the default profile allocates nothing for its state.
//
// One pod is scheduled in a cycle that follows the scheduling framework of
// k8s.io/kubernetes/pkg/scheduler:
//
//   - queue: a pod enters the queue when its informer sees it unbound; a pod
//     nothing fits waits among the unschedulable pods until a cluster event
//     could make it fit (a node added, or changed in what scheduling looks
//     at; a bound pod deleted or finished; for a pod InterPodAffinity or
//     PodTopologySpread rejected, a pod landing on a node or changing its
//     labels) or a safety-net timer runs out
//     (podMaxInUnschedulablePodsDuration, 5 minutes);
//   - PreFilter plugins look at every node once (InterPodAffinity and
//     PodTopologySpread count the pods of each topology domain) and keep
//     what they found in the cycle's CycleState (cyclestate.go);
//   - filter plugins, each a pure function with the reason kube-scheduler
//     gives, run in the default profile's order: NodeUnschedulable,
//     NodeName, NodeReady, TaintToleration, NodeAffinity (nodeSelector),
//     NodePorts (a host port another pod on the node already uses),
//     NodeResourcesFit (cpu, memory, pod count), VolumeBinding,
//     PodTopologySpread (topologySpreadConstraints, DoNotSchedule),
//     InterPodAffinity (required podAffinity and podAntiAffinity, and the
//     running pods' required anti-affinity);
//   - percentageOfNodesToScore (Framework.PercentageOfNodesToScore, the
//     profile's field): a cycle filters nodes only until it has found
//     NumFeasibleNodesToFind feasible ones — every node in a cluster of
//     100 nodes or fewer, else 50 % less one point per 125 nodes, at least 5 %
//     and at least 100 nodes (42 % at 1,000 nodes, 10 % at 5,000), or the
//     configured percentage (100: every node) — starting where the
//     previous cycle stopped (nextStartNodeIndex), so that every node gets
//     its turn; only the nodes found are scored. When fewer fit, every
//     node is tried, so the FailedScheduling message still counts them
//     all. Preemption likewise dry-runs only NumCandidates nodes (10 %, at
//     least 100) from a random offset;
//   - score plugins on the nodes that passed, each after its PreScore,
//     with the default profile's weights: NodeResourcesFit with the
//     LeastAllocated strategy (1), PodTopologySpread (2: ScheduleAnyway
//     constraints, or the system defaults that spread a controller's pods
//     by hostname and zone), InterPodAffinity (2: preferred terms); a
//     weighted sum; ties are broken by the injected random source, so a
//     seed gives the same placement every run;
//   - extenders, if configured: filter after the filter plugins,
//     prioritize beside the score plugins, bind instead of the POST
//     (below);
//   - Reserve, after the pick, with the pod assumed on the node; its
//     Unreserve, in reverse order, on any later failure (a Reserve or
//     Permit rejection, a PreBind or binding error, the pod deleted
//     while it waits);
//   - Permit (permit.go): a plugin may approve, reject, or hold the pod
//     (Wait, with a timeout of at most 15 minutes). A held pod stays
//     assumed on its node until every plugin that held it calls Allow on
//     its WaitingPod, one calls Reject, or the timeout passes on the
//     injected clock ("rejected due to timeout after waiting 30s at
//     plugin X"); rejected, it is unreserved, forgotten, marked
//     Unschedulable with the plugin's message and tried again after
//     the back-off. It waits as a key in the queue, not as a goroutine:
//     live mode goes on with the next pod, step mode keeps one trace,
//     and the trace shows the wait ("| permit: waiting on X (timeout
//     30s)");
//   - PreBind plugins, then bind: the first Bind plugin that does not
//     Skip; DefaultBinder POSTs pods/<name>/binding; the node's requested resources are
//     "assumed" at once, before the informer sees the bound pod, so the
//     next decision already counts it (the scheduler cache's AssumePod).
//     In live mode the binding runs in a goroutine of its own while the
//     next pod is scheduled (the binding cycle of scheduleOne); a failed
//     binding forgets the assumed pod and queues it again after 1 s
//     (podInitialBackoffDuration). Step mode binds within the cycle.
//
// When nothing fits the pod gets a FailedScheduling event and its
// PodScheduled condition turns False with reason Unschedulable, both worded
// as Kubernetes words them ("0/3 nodes are available: 3 Insufficient
// cpu."); on success a Scheduled event says "Successfully assigned
// default/web-abc to node-1". Each decision's per-node results are kept for
// the step trace (LastDecision) and the web page: the filter that
// rejected a node and its reasons, or the node's score plugin by plugin
// (Decision.PluginScores) and the extenders' part, a PreFilter's rejection, a
// Reserve or extender error, and the Permit wait with how it ended (the
// end of a wait is a decision of its own: "waiting on X (timeout 30s),
// then allowed"). Not recorded: the filters after the first that
// rejected a node (none runs), the PostFilter's outcome (its own events
// say it), PreBind and Bind (the Scheduled event, or the cycle's error).
//
// Requested resources per node are kept in a cache updated from pod events,
// never recomputed over all pods per decision, so a decision costs one pass
// over the nodes it tries (all of them in a cluster of 100 nodes or fewer).
//
// Differences from Kubernetes, on purpose:
//
//   - Filtering a sample of the nodes runs in one goroutine, node after
//     node, where kube-scheduler filters 16 nodes at once
//     (parallelism); the nodes found are therefore exactly the first
//     NumFeasibleNodesToFind from the start, and a decision lists the
//     nodes tried in name order, not in the order they were tried.
//     percentageOfNodesToScore is a setting (global or per profile), as
//     are the preemption arguments (minCandidateNodesPercentage and
//     Absolute); parallelism, the back-offs and the "only one feasible
//     node, no scoring" shortcut are not (the last gives the same node).
//     A pod with status.nominatedNodeName is not tried on that node first
//     (evaluateNominatedNode); every node is a "potential node" for
//     preemption, where kube-scheduler leaves out those rejected as
//     UnschedulableAndUnresolvable (kubesim's filters reject with
//     Unschedulable).
//   - NodeReady is kubesim's own filter ("node(s) were not ready", the
//     wording of the old CheckNodeCondition predicate). Kubernetes has no
//     such filter: the node lifecycle controller taints a not-ready node
//     with node.kubernetes.io/not-ready (or unreachable) and TaintToleration
//     keeps pods off it. kubesim checks the condition directly so a lesson
//     works even with the node lifecycle controller turned off; a pod that
//     tolerates the matching taint passes, as it would in Kubernetes.
//   - PodTopologySpread's system default constraints (for a pod without
//     constraints of its own) count the pods of the pod's controller,
//     where kube-scheduler counts the pods matching the selectors of the
//     Services, ReplicaSets, StatefulSets and ReplicationControllers that
//     select the pod: a map look-up per node instead of a pass over its
//     pods, the same pods for a ReplicaSet or StatefulSet, and no
//     spreading for a pod without a controller (podtopologyspread.go).
//     defaultingType List's defaultConstraints are counted the same way.
//   - VolumeBinding (volumes.go): a missing claim or an unbound Immediate
//     one rejects every node (PreFilter); a bound volume's node affinity
//     and the free or provisionable volumes of a WaitForFirstConsumer
//     claim filter nodes; after the choice the claims get the node
//     (selected-node) and the binding waits in PreBind until the PV
//     controller has bound them (10 minutes at most), the pod assumed on
//     the node meanwhile.
//   - Extenders (extender.go, extendercycle.go): the
//     KubeSchedulerConfiguration's extenders (Config.Extenders, built by
//     NewExtenders), web services called over HTTP(S) with the types of
//     k8s.io/kube-scheduler/extender/v1, in kube-scheduler's order: after
//     the filter plugins each interested extender's filter in turn (a
//     refused node's reason counts in the FailedScheduling message; the
//     trace says "node-2: extender URL: refused (reason)"), after the
//     score plugins every prioritize, score × weight ×
//     MaxNodeScore/MaxExtenderPriority added to the node's sum, and a
//     bind verb binding instead of the pods/binding POST. An ignorable
//     extender that fails is skipped; a filter or bind of one that is not
//     fails the cycle with the error's own text (reason SchedulerError,
//     the pod tried again after the back-off); a failed prioritize is
//     ignored. httpTimeout runs on the injected clock. The cycle lets the
//     cache lock go while the extenders answer, and runs the cycles one
//     at a time when there are extenders; a node deleted meanwhile is
//     dropped ("node(s) were deleted"), where kube-scheduler's snapshot
//     keeps it until the binding fails. The preempt verb gets
//     preemption's candidates and their victims (ProcessPreemption,
//     callExtenders) before one is picked. Left out: the nominated node
//     tried first,
//     and a filter answer's Nodes taken as they are: a node the extender
//     was not asked about is refused with kube-scheduler's "claims a
//     filtered node" error whether it came as a name or whole.
//   - Preemption (preemption.go) evicts lower-priority
//     pods when nothing fits, respecting PodDisruptionBudgets where it can.
//   - The queue is the controllers' FIFO work queue: a profile must have
//     one QueueSort plugin, as in kube-scheduler, but its Less is not
//     applied. PreEnqueue plugins are (SchedulingGates's is how a gated
//     pod is held back).
//   - A built-in plugin's PreFilter runs where its Filter is listed and
//     its PreScore where its Score is (scheduler/config's doc.go);
//     VolumeBinding's Reserve and PreBind are the scheduler's own
//     (volumes.go), since its wait for the claims lasts across
//     reconciles where a PreBindPlugin's call returns once; a
//     PreBindPlugin runs within the binding cycle (its goroutine in live
//     mode).
//   - Left out: the "preemption: ..." tail on the FailedScheduling
//     message, the PrioritySort queue order (the queue is FIFO), preferred
//     node affinity scoring, volume limits, PreferNoSchedule
//     scoring, BalancedAllocation and ImageLocality scores (a configuration may
//     list those plugins; they do nothing: scheduler/config's doc.go),
//     queueing hints (a pod-related event wakes every
//     pod the two pod-counting filters rejected), a namespace's labels
//     changing waking the pods whose terms select namespaces, and the
//     per-pod back-off before a requeued pod is retried.
//
// Metrics (metrics.go), kube-scheduler's names: scheduler_schedule_attempts_total
// and scheduler_scheduling_attempt_duration_seconds by result (scheduled,
// unschedulable, error) and profile (the scheduler's name), the duration
// from the cycle's start to the binding; scheduler_pending_pods by queue
// (active: ready in the queue; backoff: waiting in it for the back-off
// after a failed binding; unschedulable: tried, waiting for an event;
// gated: held by a scheduling gate, remembered but never queued, as the
// SchedulingGates plugin's PreEnqueue does). A pod waiting in Permit is
// counted in none of them. Left out: the framework's
// per-plugin and per-extension-point histograms, preemption's metrics.
//
// Read the real one in k8s.io/kubernetes/pkg/scheduler: schedule_one.go
// (the cycle, FitError's message, binding), framework/plugins/* (one
// directory per plugin), backend/queue (the scheduling queue) and
// backend/cache (the assume cache).
package scheduler
