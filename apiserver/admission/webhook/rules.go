package webhook

import (
	"slices"
	"strings"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
)

// ruleMatches reports whether r covers a request for op on the resource
// gvr, its subresource sub, of the given scope (as rules.Matcher does).
func ruleMatches(r api.RuleWithOperations, op admission.Operation, gvr api.GroupVersionResource, sub string, namespaced bool) bool {
	return operationMatches(r.Operations, op) &&
		listMatches(r.APIGroups, gvr.Group) &&
		listMatches(r.APIVersions, gvr.Version) &&
		resourceMatches(r.Resources, gvr.Resource, sub) &&
		scopeMatches(r.Scope, namespaced)
}

func operationMatches(ops []api.OperationType, op admission.Operation) bool {
	for _, o := range ops {
		if o == api.OperationAll || string(o) == string(op) {
			return true
		}
	}
	return false
}

func listMatches(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}

// resourceMatches: "pods" is the pods themselves, "pods/status" one
// subresource, "pods/*" every subresource of pods (not pods), "*" every
// resource (no subresources), "*/status" a subresource of every resource,
// "*/*" everything.
func resourceMatches(list []string, resource, sub string) bool {
	want := resource
	if sub != "" {
		want += "/" + sub
	}
	for _, r := range list {
		switch {
		case r == "*/*" || r == want:
			return true
		case r == "*" && sub == "":
			return true
		}
		res, rsub, ok := strings.Cut(r, "/")
		if !ok || sub == "" {
			continue
		}
		if (res == "*" || res == resource) && (rsub == "*" || rsub == sub) {
			return true
		}
	}
	return false
}

func scopeMatches(scope *api.ScopeType, namespaced bool) bool {
	if scope == nil || *scope == api.AllScopes {
		return true
	}
	if *scope == api.NamespacedScope {
		return namespaced
	}
	return !namespaced
}
