package policy

import (
	"slices"
	"strings"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/admission"
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
func matches(m *api.MatchResources, r request) (bool, error) {
	if m == nil {
		return true, nil
	}
	if len(m.ResourceRules) > 0 && !slices.ContainsFunc(m.ResourceRules, func(rule api.NamedRuleWithOperations) bool { return ruleMatches(rule, r.a) }) {
		return false, nil
	}
	if slices.ContainsFunc(m.ExcludeResourceRules, func(rule api.NamedRuleWithOperations) bool { return ruleMatches(rule, r.a) }) {
		return false, nil
	}
	if ok, err := namespaceMatches(m.NamespaceSelector, r); !ok || err != nil {
		return false, err
	}
	return objectMatches(m.ObjectSelector, r.a)
}

func ruleMatches(r api.NamedRuleWithOperations, a *admission.Attributes) bool {
	if len(r.ResourceNames) > 0 && !slices.Contains(r.ResourceNames, a.Name) {
		return false
	}
	opOK := slices.ContainsFunc(r.Operations, func(o api.OperationType) bool { return o == api.OperationAll || string(o) == string(a.Operation) })
	return opOK &&
		inList(r.APIGroups, a.Resource.Group) &&
		inList(r.APIVersions, a.Resource.Version) &&
		resourceMatches(r.Resources, a.Resource.Resource, a.Subresource) &&
		scopeMatches(r.Scope, a.Namespace != "")
}

func inList(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}

// resourceMatches: "pods", "pods/status", "pods/*", "*", "*/status", "*/*".
func resourceMatches(list []string, resource, sub string) bool {
	want := resource
	if sub != "" {
		want += "/" + sub
	}
	for _, r := range list {
		if r == "*/*" || r == want || (r == "*" && sub == "") {
			return true
		}
		res, rsub, ok := strings.Cut(r, "/")
		if ok && sub != "" && (res == "*" || res == resource) && (rsub == "*" || rsub == sub) {
			return true
		}
	}
	return false
}

func scopeMatches(scope *api.ScopeType, namespaced bool) bool {
	switch {
	case scope == nil || *scope == api.AllScopes:
		return true
	case *scope == api.NamespacedScope:
		return namespaced
	}
	return !namespaced
}

// namespaceMatches: cluster-scoped objects other than namespaces always
// match; a namespace is matched by its own labels.
func namespaceMatches(sel *api.LabelSelector, r request) (bool, error) {
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
func objectMatches(sel *api.LabelSelector, a *admission.Attributes) (bool, error) {
	if sel == nil || (len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
		return true, nil
	}
	s, err := api.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, err
	}
	for _, o := range []api.Object{a.Object, a.OldObject} {
		if o != nil && s.Matches(labels.Set(o.GetObjectMeta().Labels)) {
			return true, nil
		}
	}
	return false, nil
}
