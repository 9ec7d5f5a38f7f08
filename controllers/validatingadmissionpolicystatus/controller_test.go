package validatingadmissionpolicystatus_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "replicas.example.com"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{"CREATE"},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "object.replicas > 1"}}}}
	_, err = cl.ValidatingAdmissionPolicies().Create(bg, p)
	require.NoError(t, err)
	settle()
	got, err := cl.ValidatingAdmissionPolicies().Get(bg, "", p.Name)
	require.NoError(t, err)
	assert.Equal(t, int64(1), got.Status.ObservedGeneration)
	require.NotNil(t, got.Status.TypeChecking)
	assert.Equal(t, []admissionregistrationv1.ExpressionWarning{{FieldRef: "spec.validations[0].expression",
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
