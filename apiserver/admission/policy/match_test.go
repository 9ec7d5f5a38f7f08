package policy

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
)

// A policy's rules match as a webhook's do (package rules), plus
// resourceNames, and excludeResourceRules take requests back out.
func TestPolicyRuleMatching(t *testing.T) {
	deployments := api.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	rule := func(names ...string) api.NamedRuleWithOperations {
		return api.NamedRuleWithOperations{ResourceNames: names, RuleWithOperations: api.RuleWithOperations{
			Operations: []api.OperationType{"CREATE", "UPDATE"},
			Rule:       api.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments", "deployments/scale"}}}}
	}
	cases := []struct {
		name  string
		match *api.MatchResources
		a     admission.Attributes
		want  bool
	}{
		{"rule", &api.MatchResources{ResourceRules: []api.NamedRuleWithOperations{rule()}},
			admission.Attributes{Operation: admission.Create, Resource: deployments, Namespace: "default", Name: "web"}, true},
		{"subresource", &api.MatchResources{ResourceRules: []api.NamedRuleWithOperations{rule()}},
			admission.Attributes{Operation: admission.Update, Resource: deployments, Subresource: "scale", Namespace: "default", Name: "web"}, true},
		{"other operation", &api.MatchResources{ResourceRules: []api.NamedRuleWithOperations{rule()}},
			admission.Attributes{Operation: admission.Delete, Resource: deployments, Namespace: "default", Name: "web"}, false},
		{"resourceNames", &api.MatchResources{ResourceRules: []api.NamedRuleWithOperations{rule("db")}},
			admission.Attributes{Operation: admission.Create, Resource: deployments, Namespace: "default", Name: "web"}, false},
		{"excluded", &api.MatchResources{ResourceRules: []api.NamedRuleWithOperations{rule()}, ExcludeResourceRules: []api.NamedRuleWithOperations{rule("web")}},
			admission.Attributes{Operation: admission.Create, Resource: deployments, Namespace: "default", Name: "web"}, false},
		{"not excluded", &api.MatchResources{ResourceRules: []api.NamedRuleWithOperations{rule()}, ExcludeResourceRules: []api.NamedRuleWithOperations{rule("web")}},
			admission.Attributes{Operation: admission.Create, Resource: deployments, Namespace: "default", Name: "api"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := matches(tc.match, request{a: &tc.a})
			assert.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
