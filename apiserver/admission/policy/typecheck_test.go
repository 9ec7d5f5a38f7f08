package policy

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// The type-checking example of the ValidatingAdmissionPolicy docs: a
// policy for deployments whose expression reads object.replicas (the field
// is spec.replicas) gets a warning, worded as the status controller words
// it; the policy itself is not refused.
func TestTypeCheck(t *testing.T) {
	deployments := k8sschema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	pods := k8sschema.GroupVersionResource{Version: "v1", Resource: "pods"}
	resolve := func(gvr k8sschema.GroupVersionResource) (k8sschema.GroupVersionKind, *api.JSONSchemaProps, bool) {
		switch gvr {
		case deployments:
			return k8sschema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, schema.FromGoType(reflect.TypeOf(appsv1.Deployment{})), true
		case pods:
			return k8sschema.GroupVersionKind{Version: "v1", Kind: "Pod"}, schema.FromGoType(reflect.TypeOf(corev1.Pod{})), true
		}
		return k8sschema.GroupVersionKind{}, nil, false
	}
	tc, err := NewTypeChecker(resolve)
	require.NoError(t, err)
	policy := func(resources []string, exprs ...string) *admissionregistrationv1.ValidatingAdmissionPolicy {
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{MatchConstraints: &admissionregistrationv1.MatchResources{
			ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{"CREATE"},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps", ""}, APIVersions: []string{"v1"}, Resources: resources}}}}}}}
		for _, e := range exprs {
			p.Spec.Validations = append(p.Spec.Validations, admissionregistrationv1.Validation{Expression: e})
		}
		return p
	}

	got := tc.Check(policy([]string{"deployments"}, "object.replicas > 1", "object.spec.replicas > 1 && object.metadata.name != ''"))
	assert.Equal(t, []admissionregistrationv1.ExpressionWarning{{FieldRef: "spec.validations[0].expression",
		Warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^\n"}}, got)

	got = tc.Check(policy([]string{"deployments", "pods"}, "object.spec.replicas > 1"))
	assert.Equal(t, []admissionregistrationv1.ExpressionWarning{{FieldRef: "spec.validations[0].expression",
		Warning: "/v1, Kind=Pod: ERROR: <input>:1:12: undefined field 'replicas'\n | object.spec.replicas > 1\n | ...........^\n"}}, got, "checked against each kind")

	assert.Empty(t, tc.Check(policy([]string{"*"}, "object.replicas > 1")), "wildcards are not checked")
	assert.Empty(t, tc.Check(policy([]string{"deployments/scale"}, "object.replicas > 1")), "nor subresources")

	p := policy([]string{"deployments"}, "true")
	p.Spec.Validations[0].MessageExpression = "'replicas: ' + object.spec.replicas"
	got = tc.Check(p)
	require.Len(t, got, 1)
	assert.Equal(t, "spec.validations[0].messageExpression", got[0].FieldRef)
	assert.Contains(t, got[0].Warning, "apps/v1, Kind=Deployment: ERROR: <input>:1:14: found no matching overload for '_+_' applied to '(string, int)'")
}
