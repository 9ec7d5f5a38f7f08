package policy

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// The type-checking example of the ValidatingAdmissionPolicy docs: a
// policy for deployments whose expression reads object.replicas (the field
// is spec.replicas) gets a warning, worded as the status controller words
// it; the policy itself is not refused.
func TestTypeCheck(t *testing.T) {
	deployments := api.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	pods := api.GroupVersionResource{Version: "v1", Resource: "pods"}
	resolve := func(gvr api.GroupVersionResource) (api.GroupVersionKind, *api.JSONSchemaProps, bool) {
		switch gvr {
		case deployments:
			return api.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, schema.FromGoType(reflect.TypeOf(api.Deployment{})), true
		case pods:
			return api.GroupVersionKind{Version: "v1", Kind: "Pod"}, schema.FromGoType(reflect.TypeOf(api.Pod{})), true
		}
		return api.GroupVersionKind{}, nil, false
	}
	tc, err := NewTypeChecker(resolve)
	require.NoError(t, err)
	policy := func(resources []string, exprs ...string) *api.ValidatingAdmissionPolicy {
		p := &api.ValidatingAdmissionPolicy{Spec: api.ValidatingAdmissionPolicySpec{MatchConstraints: &api.MatchResources{
			ResourceRules: []api.NamedRuleWithOperations{{RuleWithOperations: api.RuleWithOperations{
				Operations: []api.OperationType{"CREATE"},
				Rule:       api.Rule{APIGroups: []string{"apps", ""}, APIVersions: []string{"v1"}, Resources: resources}}}}}}}
		for _, e := range exprs {
			p.Spec.Validations = append(p.Spec.Validations, api.Validation{Expression: e})
		}
		return p
	}

	got := tc.Check(policy([]string{"deployments"}, "object.replicas > 1", "object.spec.replicas > 1 && object.metadata.name != ''"))
	assert.Equal(t, []api.ExpressionWarning{{FieldRef: "spec.validations[0].expression",
		Warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^\n"}}, got)

	got = tc.Check(policy([]string{"deployments", "pods"}, "object.spec.replicas > 1"))
	assert.Equal(t, []api.ExpressionWarning{{FieldRef: "spec.validations[0].expression",
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
