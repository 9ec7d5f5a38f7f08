package kinds

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/labels"
)

// validateAffinity is core validation's validateAffinity: for node
// affinity a required node selector with at least one term, preferred
// terms weighted 1-100, and every requirement well formed; inter-pod
// affinity in validatePodAffinity.
func validateAffinity(a *corev1.Affinity, p *field.Path) field.ErrorList {
	if a == nil {
		return nil
	}
	errs := validatePodAffinity(a, p) // podscheduling.go
	if a.NodeAffinity == nil {
		return errs
	}
	np := p.Child("nodeAffinity")
	if req := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
		errs = append(errs, ValidateNodeSelector(req, np.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
	}
	pp := np.Child("preferredDuringSchedulingIgnoredDuringExecution")
	for i, term := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		if term.Weight <= 0 || term.Weight > 100 {
			errs = append(errs, field.Invalid(pp.Index(i).Child("weight"), term.Weight, "must be in the range 1-100"))
		}
		errs = append(errs, validateNodeSelectorTerm(term.Preference, pp.Index(i).Child("preference"))...)
	}
	return errs
}

// ValidateNodeSelector is core validation's ValidateNodeSelector: at least
// one term, each term's requirements well formed.
func ValidateNodeSelector(ns *corev1.NodeSelector, p *field.Path) field.ErrorList {
	tp := p.Child("nodeSelectorTerms")
	if len(ns.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(tp, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i, term := range ns.NodeSelectorTerms {
		errs = append(errs, validateNodeSelectorTerm(term, tp.Index(i))...)
	}
	return errs
}

func validateNodeSelectorTerm(term corev1.NodeSelectorTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for j, req := range term.MatchExpressions {
		errs = append(errs, validateNodeSelectorRequirement(req, p.Child("matchExpressions").Index(j))...)
	}
	for j, req := range term.MatchFields {
		errs = append(errs, validateNodeFieldSelectorRequirement(req, p.Child("matchFields").Index(j))...)
	}
	return errs
}

// validateNodeSelectorRequirement is ValidateNodeSelectorRequirement: the
// operator's values, and a label name as key.
func validateNodeSelectorRequirement(rq corev1.NodeSelectorRequirement, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch rq.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(rq.Values) == 0 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(rq.Values) > 0 {
			errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(rq.Values) != 1 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), rq.Operator, "not a valid selector operator"))
	}
	for _, msg := range labels.IsQualifiedName(rq.Key) {
		errs = append(errs, field.Invalid(p.Child("key"), rq.Key, msg))
	}
	return errs
}

// validateNodeFieldSelectorRequirement is
// ValidateNodeFieldSelectorRequirement: metadata.name, In or NotIn, one
// node name.
func validateNodeFieldSelectorRequirement(rq corev1.NodeSelectorRequirement, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch rq.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(rq.Values) != 1 {
			errs = append(errs, field.Required(p.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), rq.Operator, "not a valid selector operator"))
	}
	if rq.Key != metav1.ObjectNameField {
		return append(errs, field.Invalid(p.Child("key"), rq.Key, "not a valid field selector key"))
	}
	for i, v := range rq.Values {
		for _, msg := range labels1123Subdomain(v) {
			errs = append(errs, field.Invalid(p.Child("values").Index(i), v, msg))
		}
	}
	return errs
}
