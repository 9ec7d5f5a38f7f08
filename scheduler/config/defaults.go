package config

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"
)

// DefaultPlugins is kube-scheduler's default profile
// (pkg/scheduler/apis/config/v1/default_plugins.go, with its default
// feature gates: DynamicResources is on): every plugin at MultiPoint, in
// order, the score plugins with their weights.
func DefaultPlugins() *configv1.Plugins {
	return &configv1.Plugins{MultiPoint: configv1.PluginSet{Enabled: []configv1.Plugin{
		{Name: "SchedulingGates"},
		{Name: "PrioritySort"},
		{Name: "NodeUnschedulable"},
		{Name: "NodeName"},
		{Name: "TaintToleration", Weight: ptr.To[int32](3)},
		{Name: "NodeAffinity", Weight: ptr.To[int32](2)},
		{Name: "NodePorts"},
		{Name: "NodeResourcesFit", Weight: ptr.To[int32](1)},
		{Name: "VolumeRestrictions"},
		{Name: "NodeVolumeLimits"},
		{Name: "VolumeBinding"},
		{Name: "VolumeZone"},
		{Name: "PodTopologySpread", Weight: ptr.To[int32](2)},
		{Name: "InterPodAffinity", Weight: ptr.To[int32](2)},
		{Name: "DynamicResources"},
		{Name: "DefaultPreemption"},
		{Name: "NodeResourcesBalancedAllocation", Weight: ptr.To[int32](1)},
		{Name: "ImageLocality", Weight: ptr.To[int32](1)},
		{Name: "DefaultBinder"},
	}}}
}

// SetDefaults applies kube-scheduler's defaults to kc
// (SetDefaults_KubeSchedulerConfiguration): one profile when there is
// none, named default-scheduler when it is the only one and unnamed; each
// profile's plugins merged into the default set; an args entry, defaulted,
// for each enabled plugin that takes args; and the scalar fields'
// defaults.
func SetDefaults(kc *configv1.KubeSchedulerConfiguration) {
	if kc.Parallelism == nil {
		kc.Parallelism = ptr.To[int32](16)
	}
	if len(kc.Profiles) == 0 {
		kc.Profiles = append(kc.Profiles, configv1.KubeSchedulerProfile{})
	}
	// Only a lone profile gets the default name; validation wants every
	// other one named.
	if len(kc.Profiles) == 1 && kc.Profiles[0].SchedulerName == nil {
		kc.Profiles[0].SchedulerName = ptr.To(corev1.DefaultSchedulerName)
	}
	for i := range kc.Profiles {
		setProfileDefaults(&kc.Profiles[i])
	}
	if kc.PercentageOfNodesToScore == nil {
		// 0: the adaptive percentage (scheduler.NumFeasibleNodesToFind).
		kc.PercentageOfNodesToScore = ptr.To[int32](0)
	}
	if kc.LeaderElection.ResourceLock == "" {
		kc.LeaderElection.ResourceLock = "leases"
	}
	if kc.LeaderElection.ResourceNamespace == "" {
		kc.LeaderElection.ResourceNamespace = configv1.SchedulerDefaultLockObjectNamespace
	}
	if kc.LeaderElection.ResourceName == "" {
		kc.LeaderElection.ResourceName = configv1.SchedulerDefaultLockObjectName
	}
	if kc.ClientConnection.ContentType == "" {
		kc.ClientConnection.ContentType = "application/vnd.kubernetes.protobuf"
	}
	if kc.ClientConnection.QPS == 0 {
		kc.ClientConnection.QPS = 50
	}
	if kc.ClientConnection.Burst == 0 {
		kc.ClientConnection.Burst = 100
	}
	componentbaseconfigv1alpha1.RecommendedDefaultLeaderElectionConfiguration(&kc.LeaderElection)
	if kc.PodInitialBackoffSeconds == nil {
		kc.PodInitialBackoffSeconds = ptr.To[int64](1)
	}
	if kc.PodMaxBackoffSeconds == nil {
		kc.PodMaxBackoffSeconds = ptr.To[int64](10)
	}
	if kc.EnableProfiling == nil {
		kc.EnableProfiling = ptr.To(true)
	}
	if *kc.EnableProfiling && kc.EnableContentionProfiling == nil {
		kc.EnableContentionProfiling = ptr.To(true)
	}
}

// setProfileDefaults merges the profile's plugins into the default set and
// gives every enabled plugin that takes args its defaulted args.
func setProfileDefaults(prof *configv1.KubeSchedulerProfile) {
	prof.Plugins = mergePlugins(DefaultPlugins(), prof.Plugins)
	have := map[string]bool{}
	for i := range prof.PluginConfig {
		have[prof.PluginConfig[i].Name] = true
		setArgsDefaults(prof.PluginConfig[i].Args.Object)
	}
	for _, name := range enabledNames(prof.Plugins) {
		if have[name] {
			continue
		}
		args := newArgs(name)
		if args == nil {
			continue // out of tree, or takes no args
		}
		setArgsDefaults(args)
		args.GetObjectKind().SetGroupVersionKind(configv1.SchemeGroupVersion.WithKind(name + "Args"))
		prof.PluginConfig = append(prof.PluginConfig, configv1.PluginConfig{Name: name, Args: runtime.RawExtension{Object: args}})
	}
}

// pluginSet is one of a Plugins' sets: its field name in the
// configuration, the extension point it lists (ExtensionPoint; "" for
// multiPoint and the pod group points kubesim has no plugin for), and the
// set.
type pluginSet struct {
	field string
	point ExtensionPoint
	set   *configv1.PluginSet
}

// extensionPointSets returns the plugin sets of p, MultiPoint first, then
// the points in kube-scheduler's order (getExtensionPoints).
func extensionPointSets(p *configv1.Plugins) []pluginSet {
	return []pluginSet{
		{"multiPoint", "", &p.MultiPoint},
		{"preFilter", PreFilter, &p.PreFilter}, {"filter", Filter, &p.Filter}, {"postFilter", PostFilter, &p.PostFilter},
		{"reserve", Reserve, &p.Reserve}, {"preScore", PreScore, &p.PreScore}, {"score", Score, &p.Score},
		{"preBind", PreBind, &p.PreBind}, {"bind", Bind, &p.Bind}, {"postBind", PostBind, &p.PostBind},
		{"permit", Permit, &p.Permit}, {"preEnqueue", PreEnqueue, &p.PreEnqueue}, {"queueSort", QueueSort, &p.QueueSort},
		{"placementGenerate", "", &p.PlacementGenerate}, {"placementScore", "", &p.PlacementScore},
		{"podGroupPostFilter", "", &p.PodGroupPostFilter},
	}
}

// enabledNames lists the plugins enabled anywhere in p, sorted.
func enabledNames(p *configv1.Plugins) []string {
	var names []string
	for _, e := range extensionPointSets(p) {
		for _, pl := range e.set.Enabled {
			if !slices.Contains(names, pl.Name) {
				names = append(names, pl.Name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// mergePlugins merges the custom sets into the default ones, extension
// point by extension point (mergePlugins in kube-scheduler).
func mergePlugins(defaults, custom *configv1.Plugins) *configv1.Plugins {
	if custom == nil {
		return defaults
	}
	d, c := extensionPointSets(defaults), extensionPointSets(custom)
	for i := range d {
		*d[i].set = mergePluginSet(*d[i].set, *c[i].set)
	}
	return defaults
}

// mergePluginSet is kube-scheduler's mergePluginSet: the default plugins
// not disabled ("*" disables them all), in their order, each replaced in
// place by a custom entry of the same name (its weight then counts); then
// the other custom plugins, in their order. The disabled list is kept, so
// that MultiPoint's expansion skips what a point disabled.
func mergePluginSet(defaults, custom configv1.PluginSet) configv1.PluginSet {
	disabled := map[string]bool{}
	var disabledList []configv1.Plugin
	for _, p := range custom.Disabled {
		disabledList = append(disabledList, configv1.Plugin{Name: p.Name})
		disabled[p.Name] = true
	}
	for _, p := range defaults.Disabled {
		disabledList = append(disabledList, configv1.Plugin{Name: p.Name})
		disabled[p.Name] = true
	}
	customIndex := map[string]int{}
	for i, p := range custom.Enabled {
		customIndex[p.Name] = i
	}
	replaced := map[int]bool{}
	var enabled []configv1.Plugin
	if !disabled["*"] {
		for _, p := range defaults.Enabled {
			if disabled[p.Name] {
				continue
			}
			if i, ok := customIndex[p.Name]; ok {
				p = custom.Enabled[i]
				replaced[i] = true
			}
			enabled = append(enabled, p)
		}
	}
	for i, p := range custom.Enabled {
		if !replaced[i] {
			enabled = append(enabled, p)
		}
	}
	return configv1.PluginSet{Enabled: enabled, Disabled: disabledList}
}

// defaultResourceSpec is the scoring strategies' default: cpu and memory,
// weight 1 each.
func defaultResourceSpec() []configv1.ResourceSpec {
	return []configv1.ResourceSpec{{Name: string(corev1.ResourceCPU), Weight: 1}, {Name: string(corev1.ResourceMemory), Weight: 1}}
}

// setArgsDefaults applies the defaults of the in-tree plugins' args
// (SetDefaults_*Args); other objects are left alone.
func setArgsDefaults(args runtime.Object) {
	switch a := args.(type) {
	case *configv1.DefaultPreemptionArgs:
		if a.MinCandidateNodesPercentage == nil {
			a.MinCandidateNodesPercentage = ptr.To[int32](10)
		}
		if a.MinCandidateNodesAbsolute == nil {
			a.MinCandidateNodesAbsolute = ptr.To[int32](100)
		}
	case *configv1.InterPodAffinityArgs:
		if a.HardPodAffinityWeight == nil {
			a.HardPodAffinityWeight = ptr.To[int32](1)
		}
	case *configv1.VolumeBindingArgs:
		if a.BindTimeoutSeconds == nil {
			a.BindTimeoutSeconds = ptr.To[int64](600)
		}
	case *configv1.NodeResourcesBalancedAllocationArgs:
		if len(a.Resources) == 0 {
			a.Resources = defaultResourceSpec()
			return
		}
		for i := range a.Resources {
			if a.Resources[i].Weight == 0 {
				a.Resources[i].Weight = 1
			}
		}
	case *configv1.PodTopologySpreadArgs:
		if a.DefaultingType == "" {
			a.DefaultingType = configv1.SystemDefaulting
		}
	case *configv1.NodeResourcesFitArgs:
		if a.ScoringStrategy == nil {
			a.ScoringStrategy = &configv1.ScoringStrategy{Type: configv1.LeastAllocated, Resources: defaultResourceSpec()}
		}
		if len(a.ScoringStrategy.Resources) == 0 {
			a.ScoringStrategy.Resources = defaultResourceSpec()
		}
		for i := range a.ScoringStrategy.Resources {
			if a.ScoringStrategy.Resources[i].Weight == 0 {
				a.ScoringStrategy.Resources[i].Weight = 1
			}
		}
	case *configv1.DynamicResourcesArgs:
		if a.FilterTimeout == nil {
			a.FilterTimeout = &metav1.Duration{Duration: 10 * time.Second}
		}
	}
}
