package kinds

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/labels"
)

// What a pod's spec says to the scheduler and to its readiness, beyond
// node affinity (affinity.go): inter-pod affinity, topology spread
// constraints, scheduling gates and readiness gates; validated as core
// validation (pkg/apis/core/validation) validates them, and
// matchLabelKeys merged as the pod strategy merges them.

// The messages of core validation these checks share.
const (
	isNotPositiveErrorMsg = "must be greater than zero"
	emptyTopologyKeyMsg   = "can not be empty"
)

// validatePodAffinity is validatePodAffinity and validatePodAntiAffinity:
// each required term well formed, each preferred one weighted 1-100.
func validatePodAffinity(a *corev1.Affinity, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	check := func(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, p *field.Path) {
		rp := p.Child("requiredDuringSchedulingIgnoredDuringExecution")
		for i := range required {
			errs = append(errs, validatePodAffinityTerm(&required[i], rp.Index(i))...)
		}
		pp := p.Child("preferredDuringSchedulingIgnoredDuringExecution")
		for i := range preferred {
			if w := preferred[i].Weight; w <= 0 || w > 100 {
				errs = append(errs, field.Invalid(pp.Index(i).Child("weight"), w, "must be in the range 1-100"))
			}
			errs = append(errs, validatePodAffinityTerm(&preferred[i].PodAffinityTerm, pp.Index(i).Child("podAffinityTerm"))...)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		check(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("podAffinity"))
	}
	if paa := a.PodAntiAffinity; paa != nil {
		check(paa.RequiredDuringSchedulingIgnoredDuringExecution, paa.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("podAntiAffinity"))
	}
	return errs
}

// validatePodAffinityTerm is validatePodAffinityTerm: the selectors, the
// namespace names, matchLabelKeys and mismatchLabelKeys, and a topology
// key that is a label name.
func validatePodAffinityTerm(t *corev1.PodAffinityTerm, p *field.Path) field.ErrorList {
	errs := validateLabelSelector(t.LabelSelector, p.Child("labelSelector"))
	errs = append(errs, validateLabelSelector(t.NamespaceSelector, p.Child("namespaceSelector"))...)
	for _, ns := range t.Namespaces {
		// Core validation reports these at "namespace", not "namespaces".
		errs = append(errs, validateDNS1123Label(ns, p.Child("namespace"))...)
	}
	errs = append(errs, validateLabelKeys(t.MatchLabelKeys, t.LabelSelector, p.Child("matchLabelKeys"))...)
	errs = append(errs, validateLabelKeys(t.MismatchLabelKeys, t.LabelSelector, p.Child("mismatchLabelKeys"))...)
	mismatch := map[string]bool{}
	for _, k := range t.MismatchLabelKeys {
		mismatch[k] = true
	}
	for i, k := range t.MatchLabelKeys {
		if mismatch[k] {
			errs = append(errs, field.Invalid(p.Child("matchLabelKeys").Index(i), k, "exists in both matchLabelKeys and mismatchLabelKeys"))
		}
	}
	if t.TopologyKey == "" {
		errs = append(errs, field.Required(p.Child("topologyKey"), emptyTopologyKeyMsg))
	}
	return append(errs, validateLabelName(t.TopologyKey, p.Child("topologyKey"))...)
}

// validateLabelKeys is validateLabelKeys: label names, and only with a
// labelSelector to add them to.
func validateLabelKeys(keys []string, sel *metav1.LabelSelector, p *field.Path) field.ErrorList {
	if len(keys) == 0 {
		return nil
	}
	if sel == nil {
		return field.ErrorList{field.Forbidden(p, "must not be specified when labelSelector is not set")}
	}
	var errs field.ErrorList
	for i, k := range keys {
		errs = append(errs, validateLabelName(k, p.Index(i))...)
	}
	return errs
}

// validateLabelName is ValidateLabelName: a qualified name.
func validateLabelName(name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range labels.IsQualifiedName(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

// validateTopologySpreadConstraints is validateTopologySpreadConstraints.
func validateTopologySpreadConstraints(cs []corev1.TopologySpreadConstraint, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range cs {
		c := &cs[i]
		cp := p.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(cp.Child("maxSkew"), c.MaxSkew, isNotPositiveErrorMsg))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(cp.Child("topologyKey"), emptyTopologyKeyMsg))
		}
		switch c.WhenUnsatisfiable {
		case corev1.DoNotSchedule, corev1.ScheduleAnyway:
		default:
			errs = append(errs, field.NotSupported(cp.Child("whenUnsatisfiable"), c.WhenUnsatisfiable,
				[]string{string(corev1.DoNotSchedule), string(corev1.ScheduleAnyway)}))
		}
		// {topologyKey, whenUnsatisfiable} names one constraint.
		for _, rest := range cs[i+1:] {
			if rest.TopologyKey == c.TopologyKey && rest.WhenUnsatisfiable == c.WhenUnsatisfiable {
				errs = append(errs, field.Duplicate(cp.Child("{topologyKey, whenUnsatisfiable}"), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
		if c.MinDomains != nil {
			if *c.MinDomains <= 0 {
				errs = append(errs, field.Invalid(cp.Child("minDomains"), *c.MinDomains, isNotPositiveErrorMsg))
			}
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				errs = append(errs, field.Invalid(cp.Child("minDomains"), *c.MinDomains,
					fmt.Sprintf("can only use minDomains if whenUnsatisfiable=%s, not %s", corev1.DoNotSchedule, c.WhenUnsatisfiable)))
			}
		}
		for _, pol := range []struct {
			name   string
			policy *corev1.NodeInclusionPolicy
		}{{"nodeAffinityPolicy", c.NodeAffinityPolicy}, {"nodeTaintsPolicy", c.NodeTaintsPolicy}} {
			if pol.policy != nil && *pol.policy != corev1.NodeInclusionPolicyHonor && *pol.policy != corev1.NodeInclusionPolicyIgnore {
				errs = append(errs, field.NotSupported(cp.Child(pol.name), *pol.policy,
					[]string{string(corev1.NodeInclusionPolicyHonor), string(corev1.NodeInclusionPolicyIgnore)}))
			}
		}
		errs = append(errs, validateSpreadMatchLabelKeys(c, cp.Child("matchLabelKeys"))...)
		errs = append(errs, validateLabelSelector(c.LabelSelector, cp.Child("labelSelector"))...)
	}
	return errs
}

// validateSpreadMatchLabelKeys is validateMatchLabelKeysInTopologySpread:
// the scheduler adds the keys to the selector, so they may not be in it
// already.
func validateSpreadMatchLabelKeys(c *corev1.TopologySpreadConstraint, p *field.Path) field.ErrorList {
	if len(c.MatchLabelKeys) == 0 {
		return nil
	}
	var errs field.ErrorList
	inSelector := map[string]bool{}
	if c.LabelSelector == nil {
		errs = append(errs, field.Forbidden(p, "must not be specified when labelSelector is not set"))
	} else {
		for k := range c.LabelSelector.MatchLabels {
			inSelector[k] = true
		}
		for _, e := range c.LabelSelector.MatchExpressions {
			inSelector[e.Key] = true
		}
	}
	for i, k := range c.MatchLabelKeys {
		errs = append(errs, validateLabelName(k, p.Index(i))...)
		if inSelector[k] {
			errs = append(errs, field.Invalid(p.Index(i), k, "exists in both matchLabelKeys and labelSelector"))
		}
	}
	return errs
}

// validateSchedulingGates is validateSchedulingGates: qualified names,
// no name twice.
func validateSchedulingGates(gates []corev1.PodSchedulingGate, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, g := range gates {
		errs = append(errs, validateLabelName(g.Name, p.Index(i))...)
		if seen[g.Name] {
			errs = append(errs, field.Duplicate(p.Index(i), g.Name))
		}
		seen[g.Name] = true
	}
	return errs
}

// validateOnlyDeletedSchedulingGates is the update rule: gates may be
// removed (whoever holds the pod back lets it go), never added.
func validateOnlyDeletedSchedulingGates(gates, old []corev1.PodSchedulingGate, p *field.Path) field.ErrorList {
	was := map[string]bool{}
	for _, g := range old {
		was[g.Name] = true
	}
	var errs field.ErrorList
	for i, g := range gates {
		if !was[g.Name] {
			errs = append(errs, field.Forbidden(p.Index(i).Child("name"), fmt.Sprintf("only deletion is allowed, but found new scheduling gate '%s'", g.Name)))
		}
	}
	return errs
}

// validateReadinessGates is validateReadinessGates: each condition type a
// qualified name.
func validateReadinessGates(gates []corev1.PodReadinessGate, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, g := range gates {
		errs = append(errs, validateLabelName(string(g.ConditionType), p.Index(i).Child("conditionType"))...)
	}
	return errs
}

// applyMatchLabelKeys is the pod strategy's
// applyMatchLabelKeysAndMismatchLabelKeys, run when a pod is created: each
// inter-pod affinity term's matchLabelKeys become "key In (the pod's
// value)" and its mismatchLabelKeys "key NotIn (the pod's value)" in the
// term's labelSelector, so that the scheduler, and whoever reads the pod,
// sees one selector. Keys the pod has no label for add nothing; a term
// without labelSelector selects nothing and is left alone.
func applyMatchLabelKeys(pod *corev1.Pod) {
	a := pod.Spec.Affinity
	if a == nil {
		return
	}
	apply := func(t *corev1.PodAffinityTerm) {
		if t.LabelSelector == nil || len(t.MatchLabelKeys)+len(t.MismatchLabelKeys) == 0 {
			return
		}
		for _, k := range t.MatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				t.LabelSelector.MatchExpressions = append(t.LabelSelector.MatchExpressions,
					metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpIn, Values: []string{v}})
			}
		}
		for _, k := range t.MismatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				t.LabelSelector.MatchExpressions = append(t.LabelSelector.MatchExpressions,
					metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpNotIn, Values: []string{v}})
			}
		}
	}
	each := func(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm) {
		for i := range required {
			apply(&required[i])
		}
		for i := range preferred {
			apply(&preferred[i].PodAffinityTerm)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		each(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if paa := a.PodAntiAffinity; paa != nil {
		each(paa.RequiredDuringSchedulingIgnoredDuringExecution, paa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
}
