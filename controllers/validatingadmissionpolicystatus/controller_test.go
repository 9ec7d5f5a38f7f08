package validatingadmissionpolicystatus_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

var bg = context.Background()

// A policy whose expression misspells a field is stored, and the status
// controller writes the type-checking warning with the generation it
// checked; fixed (a new generation), the warning goes.
func TestStatusTypeChecking(t *testing.T) {
	c, err := cluster.New(cluster.Config{Mode: runmode.Step, Seed: 1, NodeCount: 1})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	cl := c.Client("test")
	settle := func() {
		_, err := c.RunUntilStable(bg, stepper.Limits{})
		require.NoError(t, err)
	}
	p := &api.ValidatingAdmissionPolicy{ObjectMeta: api.ObjectMeta{Name: "replicas.example.com"},
		Spec: api.ValidatingAdmissionPolicySpec{
			MatchConstraints: &api.MatchResources{ResourceRules: []api.NamedRuleWithOperations{{RuleWithOperations: api.RuleWithOperations{
				Operations: []api.OperationType{"CREATE"},
				Rule:       api.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}},
			Validations: []api.Validation{{Expression: "object.replicas > 1"}}}}
	_, err = cl.ValidatingAdmissionPolicies().Create(bg, p)
	require.NoError(t, err)
	settle()
	got, err := cl.ValidatingAdmissionPolicies().Get(bg, "", p.Name)
	require.NoError(t, err)
	assert.Equal(t, int64(1), got.Status.ObservedGeneration)
	require.NotNil(t, got.Status.TypeChecking)
	assert.Equal(t, []api.ExpressionWarning{{FieldRef: "spec.validations[0].expression",
		Warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^\n"}},
		got.Status.TypeChecking.ExpressionWarnings)

	got.Spec.Validations[0].Expression = "object.spec.replicas > 1"
	_, err = cl.ValidatingAdmissionPolicies().Update(bg, got)
	require.NoError(t, err)
	settle()
	got, err = cl.ValidatingAdmissionPolicies().Get(bg, "", p.Name)
	require.NoError(t, err)
	assert.Equal(t, int64(2), got.Status.ObservedGeneration)
	require.NotNil(t, got.Status.TypeChecking)
	assert.Empty(t, got.Status.TypeChecking.ExpressionWarnings)
}
