package policy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver/admission"
)

// A policy's rules match as a webhook's do (package rules), plus
// resourceNames, and excludeResourceRules take requests back out.
func TestPolicyRuleMatching(t *testing.T) {
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	rule := func(names ...string) admissionregistrationv1.NamedRuleWithOperations {
		return admissionregistrationv1.NamedRuleWithOperations{ResourceNames: names, RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{"CREATE", "UPDATE"},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments", "deployments/scale"}}}}
	}
	cases := []struct {
		name  string
		match *admissionregistrationv1.MatchResources
		a     admission.Attributes
		want  bool
	}{
		{"rule", &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule()}},
			admission.Attributes{Operation: admission.Create, Resource: deployments, Namespace: "default", Name: "web"}, true},
		{"subresource", &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule()}},
			admission.Attributes{Operation: admission.Update, Resource: deployments, Subresource: "scale", Namespace: "default", Name: "web"}, true},
		{"other operation", &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule()}},
			admission.Attributes{Operation: admission.Delete, Resource: deployments, Namespace: "default", Name: "web"}, false},
		{"resourceNames", &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule("db")}},
			admission.Attributes{Operation: admission.Create, Resource: deployments, Namespace: "default", Name: "web"}, false},
		{"excluded", &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule()}, ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule("web")}},
			admission.Attributes{Operation: admission.Create, Resource: deployments, Namespace: "default", Name: "web"}, false},
		{"not excluded", &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule()}, ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule("web")}},
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
