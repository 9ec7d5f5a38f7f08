package rules

import (
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver/admission"
)

// namespacesResource is the Namespace resource: cluster-scoped, though its
// requests carry the namespace's own name as their namespace.
var namespacesResource = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// Matcher decides whether Rule covers the request Attr.
type Matcher struct {
	Rule admissionregistrationv1.RuleWithOperations
	Attr *admission.Attributes
}

// Matches reports whether every part of the rule matches the request.
func (m *Matcher) Matches() bool {
	return m.scope() && m.operation() &&
		exactOrWildcard(m.Rule.APIGroups, m.Attr.Resource.Group) &&
		exactOrWildcard(m.Rule.APIVersions, m.Attr.Resource.Version) &&
		m.resource()
}

func exactOrWildcard(items []string, requested string) bool {
	return slices.Contains(items, "*") || slices.Contains(items, requested)
}

func (m *Matcher) operation() bool {
	return slices.ContainsFunc(m.Rule.Operations, func(o admissionregistrationv1.OperationType) bool {
		return o == admissionregistrationv1.OperationAll || string(o) == string(m.Attr.Operation)
	})
}

// resource: "pods" is the pods themselves, "pods/status" one subresource,
// "pods/*" every subresource of pods (not pods), "*" every resource (no
// subresources), "*/status" that subresource of every resource, "*/*"
// everything.
func (m *Matcher) resource() bool {
	res, sub := m.Attr.Resource.Resource, m.Attr.Subresource
	want := res
	if sub != "" {
		want += "/" + sub
	}
	for _, r := range m.Rule.Resources {
		switch {
		case r == "*/*" || r == want:
			return true
		case r == "*" && sub == "":
			return true
		}
		rres, rsub, ok := strings.Cut(r, "/")
		if ok && sub != "" && (rres == "*" || rres == res) && (rsub == "*" || rsub == sub) {
			return true
		}
	}
	return false
}

// scope: a Namespace is cluster-scoped even though its requests name it as
// their namespace.
func (m *Matcher) scope() bool {
	s := m.Rule.Scope
	if s == nil || *s == admissionregistrationv1.AllScopes {
		return true
	}
	namespaced := m.Attr.Namespace != "" && m.Attr.Resource != namespacesResource
	if *s == admissionregistrationv1.NamespacedScope {
		return namespaced
	}
	return !namespaced
}
