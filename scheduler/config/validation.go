package config

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kubesim/kubesim/scheduler"
)

// Validate checks a defaulted configuration as kube-scheduler's
// ValidateKubeSchedulerConfiguration does, with its messages, and returns
// them all as one aggregate (nil when it is valid). Left out: the client
// connection's and leader election's own fields (kubesim's flags set
// those). The extenders are checked by scheduler.ValidateExtenders.
func Validate(kc *configv1.KubeSchedulerConfiguration) error {
	var errs []error
	if kc.LeaderElection.LeaderElect != nil && *kc.LeaderElection.LeaderElect && kc.LeaderElection.ResourceLock != "leases" {
		errs = append(errs, field.Invalid(field.NewPath("leaderElection", "resourceLock"), kc.LeaderElection.ResourceLock, `resourceLock value must be "leases"`))
	}
	if kc.Parallelism != nil && *kc.Parallelism <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("parallelism"), *kc.Parallelism, "should be an integer value greater than zero"))
	}
	profilesPath := field.NewPath("profiles")
	if len(kc.Profiles) == 0 {
		errs = append(errs, field.Required(profilesPath, ""))
	} else {
		seen := map[string]int{}
		for i := range kc.Profiles {
			prof := &kc.Profiles[i]
			path := profilesPath.Index(i)
			errs = append(errs, validateProfile(path, kc.APIVersion, prof)...)
			name := ptrString(prof.SchedulerName)
			if _, ok := seen[name]; ok {
				// kube-scheduler passes the first profile's path as the
				// value, which prints as "{}"; the name says more.
				errs = append(errs, field.Duplicate(path.Child("schedulerName"), name))
			}
			seen[name] = i
		}
		errs = append(errs, validateCommonQueueSort(profilesPath, kc.Profiles)...)
	}
	errs = append(errs, validatePercentageOfNodesToScore(field.NewPath("percentageOfNodesToScore"), kc.PercentageOfNodesToScore)...)
	if kc.PodInitialBackoffSeconds != nil && *kc.PodInitialBackoffSeconds <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("podInitialBackoffSeconds"), *kc.PodInitialBackoffSeconds, "must be greater than 0"))
	}
	if kc.PodInitialBackoffSeconds != nil && kc.PodMaxBackoffSeconds != nil && *kc.PodMaxBackoffSeconds < *kc.PodInitialBackoffSeconds {
		errs = append(errs, field.Invalid(field.NewPath("podMaxBackoffSeconds"), *kc.PodMaxBackoffSeconds, "must be greater than or equal to PodInitialBackoffSeconds"))
	}
	for _, e := range scheduler.ValidateExtenders(kc.Extenders) {
		errs = append(errs, e)
	}
	return utilerrors.Flatten(utilerrors.NewAggregate(errs))
}

func ptrString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func validatePercentageOfNodesToScore(path *field.Path, p *int32) []error {
	if p != nil && (*p < 0 || *p > 100) {
		return []error{field.Invalid(path, *p, "not in valid range [0-100]")}
	}
	return nil
}

// invalidPlugins are the plugins removed by configuration version v1
// (invalidPluginsByVersion): naming one is an error.
var invalidPlugins = []string{"AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"}

func invalidPluginError(path *field.Path, name, apiVersion string) error {
	return field.Invalid(path, name, fmt.Sprintf("was invalid in version %q (KubeSchedulerConfiguration is version %q)",
		configv1.SchemeGroupVersion.String(), apiVersion))
}

func validateProfile(path *field.Path, apiVersion string, prof *configv1.KubeSchedulerProfile) []error {
	var errs []error
	if ptrString(prof.SchedulerName) == "" {
		errs = append(errs, field.Required(path.Child("schedulerName"), ""))
	}
	errs = append(errs, validatePercentageOfNodesToScore(path.Child("percentageOfNodesToScore"), prof.PercentageOfNodesToScore)...)
	if prof.Plugins != nil {
		for _, e := range extensionPointSets(prof.Plugins) {
			if e.field == "multiPoint" {
				continue // kube-scheduler checks the points, not MultiPoint
			}
			for i, p := range e.set.Enabled {
				if slices.Contains(invalidPlugins, p.Name) {
					errs = append(errs, invalidPluginError(path.Child("plugins", e.field, "enabled").Index(i), p.Name, apiVersion))
				}
			}
		}
	}
	seen := map[string]bool{}
	for i := range prof.PluginConfig {
		pc := &prof.PluginConfig[i]
		pcPath := path.Child("pluginConfig").Index(i)
		if seen[pc.Name] {
			errs = append(errs, field.Duplicate(pcPath, pc.Name))
		}
		seen[pc.Name] = true
		if slices.Contains(invalidPlugins, pc.Name) {
			errs = append(errs, invalidPluginError(pcPath, pc.Name, apiVersion))
			continue
		}
		if err := validateArgs(pcPath.Child("args"), pc.Args.Object); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// validateArgs checks the args kube-scheduler's configuration validation
// checks. NodeResourcesFit's are checked when the plugin is built (its
// factory), where kube-scheduler checks them too.
func validateArgs(path *field.Path, args any) error {
	switch a := args.(type) {
	case *configv1.DefaultPreemptionArgs:
		return ValidateDefaultPreemptionArgs(path, a)
	case *configv1.InterPodAffinityArgs:
		if w := a.HardPodAffinityWeight; w != nil && (*w < 0 || *w > 100) {
			return field.Invalid(path.Child("hardPodAffinityWeight"), *w, "not in valid range [0, 100]")
		}
	case *configv1.PodTopologySpreadArgs:
		return ValidatePodTopologySpreadArgs(path, a)
	case *configv1.NodeResourcesBalancedAllocationArgs:
		var errs field.ErrorList
		seen := map[string]bool{}
		for i, r := range a.Resources {
			if seen[r.Name] {
				errs = append(errs, field.Duplicate(path.Child("resources").Index(i).Child("name"), r.Name))
			}
			seen[r.Name] = true
			if r.Weight != 1 {
				errs = append(errs, field.Invalid(path.Child("resources").Index(i).Child("weight"), r.Weight, "must be 1"))
			}
		}
		return errs.ToAggregate()
	case *configv1.VolumeBindingArgs:
		var errs field.ErrorList
		if a.BindTimeoutSeconds != nil && *a.BindTimeoutSeconds < 0 {
			errs = append(errs, field.Invalid(path.Child("bindTimeoutSeconds"), *a.BindTimeoutSeconds, "invalid BindTimeoutSeconds, should not be a negative value"))
		}
		if a.Shape != nil {
			errs = append(errs, field.Invalid(path.Child("shape"), a.Shape, "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"))
		}
		return errs.ToAggregate()
	}
	return nil
}

// ValidateDefaultPreemptionArgs is kube-scheduler's check of
// DefaultPreemptionArgs.
func ValidateDefaultPreemptionArgs(path *field.Path, a *configv1.DefaultPreemptionArgs) error {
	var errs field.ErrorList
	pct, abs := int32(10), int32(100)
	if a.MinCandidateNodesPercentage != nil {
		pct = *a.MinCandidateNodesPercentage
	}
	if a.MinCandidateNodesAbsolute != nil {
		abs = *a.MinCandidateNodesAbsolute
	}
	pctPath, absPath := path.Child("minCandidateNodesPercentage"), path.Child("minCandidateNodesAbsolute")
	if pct < 0 || pct > 100 {
		errs = append(errs, field.Invalid(pctPath, pct, "not in valid range [0, 100]"))
	}
	if abs < 0 {
		errs = append(errs, field.Invalid(absPath, abs, "not in valid range [0, inf)"))
	}
	if pct == 0 && abs == 0 {
		errs = append(errs, field.Invalid(pctPath, pct, "cannot be zero at the same time as minCandidateNodesAbsolute"),
			field.Invalid(absPath, abs, "cannot be zero at the same time as minCandidateNodesPercentage"))
	}
	return errs.ToAggregate()
}

// ValidatePodTopologySpreadArgs is kube-scheduler's check of
// PodTopologySpreadArgs: System defaulting takes no constraints; each
// constraint has a positive maxSkew, a topology key, a whenUnsatisfiable,
// no selector (it is deduced per pod), and is not repeated.
func ValidatePodTopologySpreadArgs(path *field.Path, a *configv1.PodTopologySpreadArgs) error {
	var errs field.ErrorList
	dt := path.Child("defaultingType")
	switch {
	case a.DefaultingType != configv1.SystemDefaulting && a.DefaultingType != configv1.ListDefaulting:
		errs = append(errs, field.NotSupported(dt, a.DefaultingType, []string{string(configv1.SystemDefaulting), string(configv1.ListDefaulting)}))
	case a.DefaultingType == configv1.SystemDefaulting && len(a.DefaultConstraints) > 0:
		errs = append(errs, field.Invalid(dt, a.DefaultingType, "when .defaultConstraints are not empty"))
	}
	cPath := path.Child("defaultConstraints")
	for i, c := range a.DefaultConstraints {
		p := cPath.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(p.Child("maxSkew"), c.MaxSkew, "not in valid range (0, inf)"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
		} else {
			errs = append(errs, metav1validation.ValidateLabelName(c.TopologyKey, p.Child("topologyKey"))...)
		}
		switch c.WhenUnsatisfiable {
		case "":
			errs = append(errs, field.Required(p.Child("whenUnsatisfiable"), "can not be empty"))
		case corev1.DoNotSchedule, corev1.ScheduleAnyway:
		default:
			errs = append(errs, field.NotSupported(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, []string{string(corev1.DoNotSchedule), string(corev1.ScheduleAnyway)}))
		}
		if c.LabelSelector != nil {
			errs = append(errs, field.Forbidden(p.Child("labelSelector"), "constraint must not define a selector, as they deduced for each pod"))
		}
		for j := range a.DefaultConstraints[:i] {
			if o := a.DefaultConstraints[j]; o.TopologyKey == c.TopologyKey && o.WhenUnsatisfiable == c.WhenUnsatisfiable {
				errs = append(errs, field.Duplicate(cPath.Index(i), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
	}
	return errs.ToAggregate()
}

// ValidateNodeResourcesFitArgs is kube-scheduler's check of
// NodeResourcesFitArgs, made when the plugin is built (NewFit passes a nil
// path, so the fields are named from the args).
func ValidateNodeResourcesFitArgs(path *field.Path, a *configv1.NodeResourcesFitArgs) error {
	var errs field.ErrorList
	for i, res := range a.IgnoredResources {
		errs = append(errs, metav1validation.ValidateLabelName(res, path.Child("ignoredResources").Index(i))...)
	}
	sp := path.Child("scoringStrategy")
	st := a.ScoringStrategy
	if st == nil {
		errs = append(errs, field.Required(sp, "ScoringStrategy field is required"))
		return errs.ToAggregate()
	}
	supported := []string{string(configv1.LeastAllocated), string(configv1.MostAllocated), string(configv1.RequestedToCapacityRatio)}
	if !slices.Contains(supported, string(st.Type)) {
		errs = append(errs, field.NotSupported(sp.Child("type"), st.Type, supported))
	}
	for i, r := range st.Resources {
		if r.Weight <= 0 || r.Weight > 100 {
			errs = append(errs, field.Invalid(sp.Child("resources").Index(i).Child("weight"), r.Weight,
				fmt.Sprintf("resource weight of %v not in valid range (0, 100]", r.Name)))
		}
	}
	rtc := sp.Child("requestedToCapacityRatio")
	switch {
	case st.Type == configv1.RequestedToCapacityRatio && st.RequestedToCapacityRatio == nil:
		errs = append(errs, field.Required(rtc, "must be specified when type is RequestedToCapacityRatio"))
	case st.Type == configv1.RequestedToCapacityRatio:
		errs = append(errs, validateFunctionShape(st.RequestedToCapacityRatio.Shape, rtc.Child("shape"))...)
	case st.RequestedToCapacityRatio != nil:
		errs = append(errs, field.Forbidden(rtc, "must be nil when type is not RequestedToCapacityRatio"))
	}
	return errs.ToAggregate()
}

// validateFunctionShape checks a RequestedToCapacityRatio shape: at least
// one point, utilizations increasing within 0–100, scores within 0–10.
func validateFunctionShape(shape []configv1.UtilizationShapePoint, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(shape) == 0 {
		return append(errs, field.Required(path, "at least one point must be specified"))
	}
	for i := 1; i < len(shape); i++ {
		if shape[i-1].Utilization >= shape[i].Utilization {
			errs = append(errs, field.Invalid(path.Index(i).Child("utilization"), shape[i].Utilization, "values must be sorted in increasing order"))
			break
		}
	}
	for i, p := range shape {
		if p.Utilization < 0 || p.Utilization > 100 {
			errs = append(errs, field.Invalid(path.Index(i).Child("utilization"), p.Utilization, "not in valid range [0, 100]"))
		}
		if p.Score < 0 || p.Score > 10 {
			errs = append(errs, field.Invalid(path.Index(i).Child("score"), p.Score, "not in valid range [0, 10]"))
		}
	}
	return errs
}

// validateCommonQueueSort checks that every profile sorts the one queue
// the same way: kube-scheduler has one queue for all of them.
func validateCommonQueueSort(path *field.Path, profiles []configv1.KubeSchedulerProfile) []error {
	var errs []error
	var canon configv1.PluginSet
	if profiles[0].Plugins != nil {
		canon = profiles[0].Plugins.QueueSort
		if n := len(canon.Enabled); n > 1 {
			errs = append(errs, field.Invalid(path.Index(0).Child("plugins", "queueSort", "Enabled"), n, "only one queue sort plugin can be enabled"))
		}
	}
	for i := 1; i < len(profiles); i++ {
		var cur configv1.PluginSet
		if profiles[i].Plugins != nil {
			cur = profiles[i].Plugins.QueueSort
		}
		if !equality.Semantic.DeepEqual(canon, cur) {
			errs = append(errs, field.Invalid(path.Index(i).Child("plugins", "queueSort"), cur, "must be the same for all profiles"))
		}
	}
	return errs
}
