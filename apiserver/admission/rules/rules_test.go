package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver/admission"
)

// The cases of the Kubernetes documentation ("Dynamic Admission Control",
// matching requests: rules) and of the Rule type's comments.
func TestRuleMatching(t *testing.T) {
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	nodes := schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	namespaces := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	ns := admissionregistrationv1.ScopeType("Namespaced")
	cluster := admissionregistrationv1.ScopeType("Cluster")
	rule := func(ops []admissionregistrationv1.OperationType, groups, versions, resources []string, scope *admissionregistrationv1.ScopeType) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources, Scope: scope}}
	}
	create := []admissionregistrationv1.OperationType{"CREATE"}
	all := []admissionregistrationv1.OperationType{"*"}
	cases := []struct {
		name       string
		rule       admissionregistrationv1.RuleWithOperations
		op         admission.Operation
		gvr        schema.GroupVersionResource
		sub        string
		namespaced bool
		want       bool
	}{
		{"exact pods create", rule(create, []string{""}, []string{"v1"}, []string{"pods"}, nil), admission.Create, pods, "", true, true},
		{"other operation", rule(create, []string{""}, []string{"v1"}, []string{"pods"}, nil), admission.Update, pods, "", true, false},
		{"operation *", rule(all, []string{""}, []string{"v1"}, []string{"pods"}, nil), admission.Delete, pods, "", true, true},
		{"other group", rule(create, []string{"apps"}, []string{"v1"}, []string{"pods"}, nil), admission.Create, pods, "", true, false},
		{"group and version *", rule(create, []string{"*"}, []string{"*"}, []string{"deployments"}, nil), admission.Create, deployments, "", true, true},
		{"pods does not match pods/status", rule(all, []string{""}, []string{"v1"}, []string{"pods"}, nil), admission.Update, pods, "status", true, false},
		{"pods/status", rule(all, []string{""}, []string{"v1"}, []string{"pods/status"}, nil), admission.Update, pods, "status", true, true},
		{"pods/* matches pods/log", rule(all, []string{""}, []string{"v1"}, []string{"pods/*"}, nil), admission.Connect, pods, "exec", true, true},
		{"pods/* does not match pods", rule(all, []string{""}, []string{"v1"}, []string{"pods/*"}, nil), admission.Create, pods, "", true, false},
		{"* matches every resource", rule(all, []string{"*"}, []string{"*"}, []string{"*"}, nil), admission.Create, nodes, "", false, true},
		{"* does not match subresources", rule(all, []string{"*"}, []string{"*"}, []string{"*"}, nil), admission.Update, deployments, "scale", true, false},
		{"*/scale", rule(all, []string{"*"}, []string{"*"}, []string{"*/scale"}, nil), admission.Update, deployments, "scale", true, true},
		{"*/status not scale", rule(all, []string{"*"}, []string{"*"}, []string{"*/status"}, nil), admission.Update, deployments, "scale", true, false},
		{"*/* matches a resource", rule(all, []string{"*"}, []string{"*"}, []string{"*/*"}, nil), admission.Create, pods, "", true, true},
		{"*/* matches a subresource", rule(all, []string{"*"}, []string{"*"}, []string{"*/*"}, nil), admission.Create, pods, "eviction", true, true},
		{"scope Namespaced, namespaced", rule(all, []string{"*"}, []string{"*"}, []string{"*"}, &ns), admission.Create, pods, "", true, true},
		{"scope Namespaced, cluster", rule(all, []string{"*"}, []string{"*"}, []string{"*"}, &ns), admission.Create, nodes, "", false, false},
		{"scope Cluster, cluster", rule(all, []string{"*"}, []string{"*"}, []string{"*"}, &cluster), admission.Create, nodes, "", false, true},
		{"scope Cluster, namespaced", rule(all, []string{"*"}, []string{"*"}, []string{"*"}, &cluster), admission.Create, pods, "", true, false},
		{"a Namespace is cluster-scoped", rule(all, []string{""}, []string{"v1"}, []string{"namespaces"}, &cluster), admission.Create, namespaces, "", true, true},
		{"a Namespace is not namespaced", rule(all, []string{""}, []string{"v1"}, []string{"namespaces"}, &ns), admission.Create, namespaces, "", true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := &admission.Attributes{Operation: tc.op, Resource: tc.gvr, Subresource: tc.sub}
			if tc.namespaced {
				a.Namespace = "default"
			}
			assert.Equal(t, tc.want, (&Matcher{Rule: tc.rule, Attr: a}).Matches())
		})
	}
}
