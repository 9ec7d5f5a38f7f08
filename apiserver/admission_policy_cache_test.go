package apiserver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
)

// The admission policies and their bindings are cached between writes
// (as the webhook configurations are), and each write of one of them is
// seen by the very next request: a binding created, a policy changed, a
// binding deleted.
func TestAdmissionPolicyChangesApplyAtOnce(t *testing.T) {
	env := apiservertest.New(t)
	ctx := context.Background()
	cl := env.Client
	bindings := client.For(cl, client.ResourceInfo{Group: api.AdmissionRegistrationGroupName, Version: "v1", Resource: "validatingadmissionpolicybindings"},
		func() *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
			return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
		})
	configMap := func(name string) error {
		_, err := cl.ConfigMaps().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}})
		return err
	}
	require.NoError(t, configMap("before"), "no policy yet (and the empty lists are cached)")

	rule := admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{"CREATE"},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}
	policy, err := cl.ValidatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "names"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule}},
			Validations: []admissionregistrationv1.Validation{{Expression: "object.metadata.name != 'bad'"}}}})
	require.NoError(t, err)
	require.NoError(t, configMap("bad"), "a policy without a binding does nothing")
	binding, err := bindings.Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "names"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "names", ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}})
	require.NoError(t, err)
	err = configMap("bad")
	require.Error(t, err, "the binding applies to the next request")
	assert.Contains(t, err.Error(), "failed expression: object.metadata.name != 'bad'")

	policy.Spec.Validations[0].Expression = "object.metadata.name != 'worse'"
	_, err = cl.ValidatingAdmissionPolicies().Update(ctx, policy)
	require.NoError(t, err)
	require.NoError(t, configMap("bad2"), "the changed policy applies to the next request")
	require.Error(t, configMap("worse"))

	require.NoError(t, bindings.Delete(ctx, "", binding.Name, nil))
	require.NoError(t, configMap("worse"), "the binding's deletion applies to the next request")
}
