package policy

import (
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/admission/rules"
)

// request is what matching needs to know about the request.
type request struct {
	a *admission.Attributes
	// nsLabels are the labels of the request's namespace (or of the
	// namespace being written); nil for other cluster-scoped objects.
	nsLabels map[string]string
	isNS     bool
}

// matches reports whether m selects the request (matching.Matcher): a
// resource rule matches, no exclude rule does, and both selectors accept.
// An empty resourceRules list (allowed in a binding) matches every
// request the policy matched.
func matches(m *admissionregistrationv1.MatchResources, r request) (bool, error) {
	if m == nil {
		return true, nil
	}
	if len(m.ResourceRules) > 0 && !slices.ContainsFunc(m.ResourceRules, func(rule admissionregistrationv1.NamedRuleWithOperations) bool { return ruleMatches(rule, r.a) }) {
		return false, nil
	}
	if slices.ContainsFunc(m.ExcludeResourceRules, func(rule admissionregistrationv1.NamedRuleWithOperations) bool { return ruleMatches(rule, r.a) }) {
		return false, nil
	}
	if ok, err := namespaceMatches(m.NamespaceSelector, r); !ok || err != nil {
		return false, err
	}
	return objectMatches(m.ObjectSelector, r.a)
}

// ruleMatches: resourceNames (a policy's own field), then the rule as
// webhooks match it.
func ruleMatches(r admissionregistrationv1.NamedRuleWithOperations, a *admission.Attributes) bool {
	if len(r.ResourceNames) > 0 && !slices.Contains(r.ResourceNames, a.Name) {
		return false
	}
	return (&rules.Matcher{Rule: r.RuleWithOperations, Attr: a}).Matches()
}

// namespaceMatches: cluster-scoped objects other than namespaces always
// match; a namespace is matched by its own labels.
func namespaceMatches(sel *metav1.LabelSelector, r request) (bool, error) {
	if sel == nil || (len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
		return true, nil
	}
	if r.a.Namespace == "" && !r.isNS {
		return true, nil
	}
	s, err := api.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, err
	}
	return s.Matches(labels.Set(r.nsLabels)), nil
}

// objectMatches: the object or the old object has matching labels.
func objectMatches(sel *metav1.LabelSelector, a *admission.Attributes) (bool, error) {
	if sel == nil || (len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
		return true, nil
	}
	s, err := api.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, err
	}
	for _, o := range []api.Object{a.Object, a.OldObject} {
		if o != nil && s.Matches(labels.Set(api.Meta(o).Labels)) {
			return true, nil
		}
	}
	return false, nil
}
