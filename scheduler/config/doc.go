// Package config is kube-scheduler's configuration for kubesim: it reads a
// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1, the types of
// k8s.io/kube-scheduler/config/v1) from YAML or JSON, applies
// kube-scheduler's defaults, validates it with kube-scheduler's messages
// (a field.ErrorList aggregate, as kube-scheduler prints it), and builds
// the scheduler's profiles from a Registry of plugins.
//
// What it does, as kube-scheduler does:
//
//   - decoding (config.go): strict (an unknown field is an error), the
//     plugins' args decoded into their types by the plugin's name; a
//     wrong apiVersion or kind, or a file that does not parse, is an error
//     naming the file (and the line, where the YAML decoder gives one);
//   - defaults (defaults.go): one profile, default-scheduler, when there
//     is none; each profile's plugins merged into the default set
//     (DefaultPlugins, all at multiPoint with the default weights) point
//     by point: a default plugin disabled ("*": all of them) is dropped,
//     one enabled again is replaced in place by the custom entry and its
//     weight, the other custom plugins follow; every enabled plugin that
//     takes args gets them, defaulted (LeastAllocated over cpu and memory;
//     System spreading; hardPodAffinityWeight 1; ...);
//     percentageOfNodesToScore 0, the adaptive one;
//   - validation (validation.go): profiles named and not twice;
//     percentageOfNodesToScore in [0, 100], global or per profile; a
//     pluginConfig given twice; the plugins version v1 removed; every
//     profile with the same queue sort; the args of DefaultPreemption,
//     InterPodAffinity, PodTopologySpread, NodeResourcesBalancedAllocation
//     and VolumeBinding; the back-offs and parallelism;
//   - profiles (profiles.go): as kube-scheduler's NewFramework, a plugin
//     the registry lacks ("FilterPlugin \"X\" does not exist"), one
//     listed at a point it does not have, or twice, or with bad args
//     (NodeResourcesFit's are checked here, when it is built, as its
//     constructor checks them), and a profile without one queue sort or a
//     bind plugin are errors; MultiPoint's plugins are spread over each
//     point they have, after the point's own overrides; score weights
//     come from the score point, else multiPoint, 0 meaning 1.
//
// Like kube-scheduler it accepts, without a word, a pluginConfig entry
// for a plugin no point enables (it is never built) and a negative score
// weight (the plugin then counts against a node).
//
// The registry (registry.go) maps each plugin name to a factory (as
// kube-scheduler's runtime.Registry) that takes the plugin's args and the
// profile's Framework (its Handle) and returns a scheduler.Plugin; the
// interfaces the plugin implements (scheduler.FilterPlugin,
// PermitPlugin, ...) are its extension points, and the profile's
// Framework runs it at each point that lists it, in the list's order
// (the score point with its weight). It is a value made by
// NewInTreeRegistry, so that a program can Register plugins of its own
// before building the profiles (scheduler/app's WithPlugin does); an
// out-of-tree plugin's pluginConfig args come as a *runtime.Unknown
// holding their JSON, for the plugin to decode. An in-tree plugin
// claims the extension points kube-scheduler's has, and runs those
// kubesim simulates.
// The plugins kubesim simulates, and what their args change:
//
//   - NodeUnschedulable, NodeName, NodeAffinity (filter: nodeSelector and
//     required node affinity; not its preferred-affinity score nor
//     NodeAffinityArgs' addedAffinity), TaintToleration (filter, with
//     kubesim's NodeReady check before it, which stands for the
//     node lifecycle controller's not-ready taint: disabling
//     TaintToleration disables both; not its PreferNoSchedule score);
//   - NodeResourcesFit: the filter, and the score by
//     NodeResourcesFitArgs' scoringStrategy: LeastAllocated, MostAllocated
//     or RequestedToCapacityRatio (its shape), over the resources and
//     weights listed (cpu, memory, extended resources); ignoredResources
//     and ignoredResourceGroups are not honoured;
//   - PodTopologySpread: defaultingType System (kubesim's system
//     defaults, by the pod's controller) or List (defaultConstraints,
//     none when empty) for pods without constraints of their own;
//   - InterPodAffinity: hardPodAffinityWeight, what an existing pod's
//     required affinity term that the pod matches adds to its domain's
//     score (0: nothing); ignorePreferredTermsOfExistingPods is not
//     honoured;
//   - VolumeBinding: its filter, PreFilter and PreBind together (disabled:
//     the pod's claims are not looked at); bindTimeoutSeconds bounds
//     PreBind's wait for the claims (0: the scheduler's BindTimeout);
//   - DefaultPreemption: preemption when nothing fits (disabled: none);
//     minCandidateNodesPercentage and minCandidateNodesAbsolute bound
//     how many candidate nodes its dry run looks for.
//
// Accepted where kube-scheduler has them and doing nothing in kubesim:
// PrioritySort (the queue is FIFO; a profile still needs exactly one
// queue sort), VolumeRestrictions, NodeVolumeLimits, VolumeZone,
// DynamicResources, NodeResourcesBalancedAllocation and ImageLocality.
// Enabling or disabling them, or changing their weights, changes no
// decision. SchedulingGates (a PreEnqueue: disabled, a gated pod is
// queued), DefaultBinder (the Bind: the pods/binding POST) and
// DefaultPreemption (the PostFilter) run where they are listed. A
// built-in plugin's PreFilter runs with its Filter, and its PreScore with
// its Score: enabling or disabling one of them alone changes nothing
// (an out-of-tree plugin's lists are taken as they are).
//
// Read the real one in k8s.io/kubernetes/pkg/scheduler: apis/config/v1
// (defaults, default_plugins.go), apis/config/validation,
// framework/runtime/framework.go (NewFramework) and profile/profile.go.
package config
