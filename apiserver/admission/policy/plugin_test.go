package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/authn"
)

// fakeSource serves fixed objects.
type fakeSource struct {
	policies   []*admissionregistrationv1.ValidatingAdmissionPolicy
	bindings   []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	namespaces map[string]*corev1.Namespace
	configMaps []api.Object
}

func (f *fakeSource) Policies(context.Context) ([]*admissionregistrationv1.ValidatingAdmissionPolicy, error) {
	return append([]*admissionregistrationv1.ValidatingAdmissionPolicy(nil), f.policies...), nil
}
func (f *fakeSource) Bindings(context.Context) ([]*admissionregistrationv1.ValidatingAdmissionPolicyBinding, error) {
	return append([]*admissionregistrationv1.ValidatingAdmissionPolicyBinding(nil), f.bindings...), nil
}
func (f *fakeSource) Namespace(_ context.Context, name string) (*corev1.Namespace, error) {
	if ns, ok := f.namespaces[name]; ok {
		return ns, nil
	}
	return nil, api.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
}
func (f *fakeSource) Params(_ context.Context, k admissionregistrationv1.ParamKind, _ string) ([]api.Object, bool, error) {
	if k.APIVersion == "v1" && k.Kind == "ConfigMap" {
		return f.configMaps, true, nil
	}
	return nil, false, fmt.Errorf("no kind %s", k.Kind)
}

func policyFrom(t *testing.T, js string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	t.Helper()
	var p admissionregistrationv1.ValidatingAdmissionPolicy
	require.NoError(t, json.Unmarshal([]byte(js), &p))
	SetPolicyDefaults(&p)
	c, err := NewCompiler()
	require.NoError(t, err)
	require.Empty(t, c.ValidatePolicy(&p))
	return &p
}

func bindingFrom(t *testing.T, js string) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	t.Helper()
	var b admissionregistrationv1.ValidatingAdmissionPolicyBinding
	require.NoError(t, json.Unmarshal([]byte(js), &b))
	SetBindingDefaults(&b)
	require.Empty(t, ValidateBinding(&b))
	return &b
}

// The documentation's example: at most 5 replicas for deployments, in
// namespaces labelled environment=test.
const replicaPolicy = `{"metadata":{"name":"demo-policy.example.com","resourceVersion":"1"},"spec":{
  "matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["deployments"]}]},
  "validations":[{"expression":"object.spec.replicas <= 5"}]}}`

func deployment(ns string, replicas int, lbls map[string]string) *admission.Attributes {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: ns, Labels: lbls}}
	r := int32(replicas)
	d.Spec.Replicas = &r
	return &admission.Attributes{
		Operation: admission.Create, Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Namespace: ns, Name: "nginx", Object: d,
		User: &authn.UserInfo{Name: "alice", Groups: []string{"devs"}},
	}
}

func TestPolicyDeniesWithBinding(t *testing.T) {
	src := &fakeSource{
		policies: []*admissionregistrationv1.ValidatingAdmissionPolicy{policyFrom(t, replicaPolicy)},
		bindings: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{bindingFrom(t, `{"metadata":{"name":"demo-binding-test.example.com"},"spec":{
		  "policyName":"demo-policy.example.com","validationActions":["Deny"],
		  "matchResources":{"namespaceSelector":{"matchLabels":{"environment":"test"}}}}}`)},
		namespaces: map[string]*corev1.Namespace{
			"test": {ObjectMeta: metav1.ObjectMeta{Name: "test", Labels: map[string]string{"environment": "test"}}},
			"prod": {ObjectMeta: metav1.ObjectMeta{Name: "prod"}},
		},
	}
	p, err := NewPlugin(src, nil)
	require.NoError(t, err)
	ctx := context.Background()

	err = p.Validate(ctx, deployment("test", 6, nil))
	require.Error(t, err)
	se, ok := err.(*api.StatusError)
	require.True(t, ok)
	assert.Equal(t, int32(422), se.ErrStatus.Code)
	assert.Equal(t, metav1.StatusReasonInvalid, se.ErrStatus.Reason)
	assert.Equal(t, `deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5`, se.ErrStatus.Message)
	require.Len(t, se.ErrStatus.Details.Causes, 1)
	assert.Equal(t, "ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5", se.ErrStatus.Details.Causes[0].Message)

	assert.NoError(t, p.Validate(ctx, deployment("test", 5, nil)), "within the limit")
	assert.NoError(t, p.Validate(ctx, deployment("prod", 9, nil)), "the binding's namespace selector does not match")
	pod := deployment("test", 9, nil)
	pod.Resource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	assert.NoError(t, p.Validate(ctx, pod), "the policy's resource rules do not match")
}

func TestPolicyWarnAndReason(t *testing.T) {
	pol := policyFrom(t, `{"metadata":{"name":"p","resourceVersion":"1"},"spec":{
	  "matchConstraints":{"resourceRules":[{"apiGroups":["*"],"apiVersions":["*"],"operations":["*"],"resources":["*"]}],
	    "objectSelector":{"matchLabels":{"checked":"yes"}}},
	  "variables":[{"name":"want","expression":"'team-' + request.userInfo.username"},{"name":"team","expression":"object.metadata.labels.team"}],
	  "validations":[
	    {"expression":"variables.team == variables.want","messageExpression":"'team must be ' + variables.want + ', not ' + variables.team","reason":"Forbidden"},
	    {"expression":"object.metadata.name.startsWith('x')","message":"names start with x"}]}}`)
	src := &fakeSource{policies: []*admissionregistrationv1.ValidatingAdmissionPolicy{pol}, namespaces: map[string]*corev1.Namespace{"ns": {ObjectMeta: metav1.ObjectMeta{Name: "ns"}}}}
	var warnings []string
	p, err := NewPlugin(src, func(_ context.Context, m string) { warnings = append(warnings, m) })
	require.NoError(t, err)
	ctx := context.Background()

	src.bindings = []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{bindingFrom(t, `{"metadata":{"name":"warn"},"spec":{"policyName":"p","validationActions":["Warn","Audit"]}}`)}
	actx, rec := admission.WithRecord(ctx)
	require.NoError(t, p.Validate(actx, deployment("ns", 1, map[string]string{"checked": "yes", "team": "blue"})))
	assert.Equal(t, []string{
		"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'warn': team must be team-alice, not blue",
		"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'warn': names start with x",
	}, warnings)
	// The Audit action: one annotation listing every failure.
	assert.Equal(t, map[string]string{"validation.policy.admission.k8s.io/validation_failure": `[` +
		`{"message":"team must be team-alice, not blue","policy":"p","binding":"warn","expressionIndex":0,"validationActions":["Warn","Audit"]},` +
		`{"message":"names start with x","policy":"p","binding":"warn","expressionIndex":1,"validationActions":["Warn","Audit"]}]`}, rec.AuditAnnotations())

	warnings = nil
	src.bindings = []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{bindingFrom(t, `{"metadata":{"name":"deny"},"spec":{"policyName":"p","validationActions":["Deny"]}}`)}
	err = p.Validate(ctx, deployment("ns", 1, map[string]string{"checked": "yes", "team": "blue"}))
	require.Error(t, err)
	se := err.(*api.StatusError)
	assert.Equal(t, int32(403), se.ErrStatus.Code, "the first failed validation's reason")
	assert.Contains(t, se.ErrStatus.Message, "ValidatingAdmissionPolicy 'p' with binding 'deny' denied request: team must be team-alice, not blue")
	assert.Empty(t, warnings)
	assert.NoError(t, p.Validate(ctx, deployment("ns", 1, map[string]string{"team": "blue"})), "the object selector does not match")
}

func TestPolicyParams(t *testing.T) {
	pol := policyFrom(t, `{"metadata":{"name":"max","resourceVersion":"1"},"spec":{
	  "paramKind":{"apiVersion":"v1","kind":"ConfigMap"},
	  "matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["deployments"]}]},
	  "matchConditions":[{"name":"not-alice-admin","expression":"!('admins' in request.userInfo.groups)"}],
	  "validations":[{"expression":"object.spec.replicas <= int(params.data.max)","messageExpression":"'at most ' + params.data.max + ' replicas'"}]}}`)
	cm := func(ns, name, max string, lbls map[string]string) api.Object {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: lbls}, Data: map[string]string{"max": max}}
	}
	src := &fakeSource{policies: []*admissionregistrationv1.ValidatingAdmissionPolicy{pol}, namespaces: map[string]*corev1.Namespace{"a": {ObjectMeta: metav1.ObjectMeta{Name: "a"}}, "b": {ObjectMeta: metav1.ObjectMeta{Name: "b"}}},
		configMaps: []api.Object{cm("a", "limits", "3", nil), cm("b", "limits", "10", map[string]string{"tier": "x"}), cm("b", "other", "4", map[string]string{"tier": "x"})}}
	p, err := NewPlugin(src, nil)
	require.NoError(t, err)
	ctx := context.Background()
	bind := func(ref string) {
		src.bindings = []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{bindingFrom(t, `{"metadata":{"name":"b"},"spec":{"policyName":"max","validationActions":["Deny"],"paramRef":`+ref+`}}`)}
	}

	// By name, in the request's namespace.
	bind(`{"name":"limits","parameterNotFoundAction":"Deny"}`)
	err = p.Validate(ctx, deployment("a", 4, nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "denied request: at most 3 replicas")
	assert.NoError(t, p.Validate(ctx, deployment("b", 4, nil)))

	// A match condition false: the policy is skipped.
	admin := deployment("a", 4, nil)
	admin.User.Groups = []string{"admins"}
	assert.NoError(t, p.Validate(ctx, admin))

	// By selector: every param must pass.
	bind(`{"selector":{"matchLabels":{"tier":"x"}},"namespace":"b","parameterNotFoundAction":"Deny"}`)
	err = p.Validate(ctx, deployment("a", 5, nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "denied request: at most 4 replicas")

	// No param: Deny is a failure (failurePolicy Fail), Allow lets through.
	bind(`{"name":"missing","parameterNotFoundAction":"Deny"}`)
	err = p.Validate(ctx, deployment("a", 1, nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction")
	bind(`{"name":"missing","parameterNotFoundAction":"Allow"}`)
	assert.NoError(t, p.Validate(ctx, deployment("a", 1, nil)))

	// A runtime error fails by the failure policy; Ignore lets through.
	bind(`{"name":"limits","parameterNotFoundAction":"Deny"}`)
	bad := cm("a", "limits", "many", nil)
	src.configMaps = []api.Object{bad}
	err = p.Validate(ctx, deployment("a", 1, nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "denied request: expression 'object.spec.replicas <= int(params.data.max)' resulted in error: ")
	ignore := admissionregistrationv1.Ignore
	pol.Spec.FailurePolicy = &ignore
	pol.ResourceVersion = "2"
	assert.NoError(t, p.Validate(ctx, deployment("a", 1, nil)))
}

func TestValidatePolicyAndBinding(t *testing.T) {
	c, err := NewCompiler()
	require.NoError(t, err)
	var p admissionregistrationv1.ValidatingAdmissionPolicy
	require.NoError(t, json.Unmarshal([]byte(`{"metadata":{"name":"p"},"spec":{
	  "matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["deployments"]}]},
	  "variables":[{"name":"bad-name","expression":"1"}],
	  "validations":[{"expression":"object.spec.replicas <="},{"expression":"'a'"},{"expression":"true","reason":"Teapot"}]}}`), &p))
	SetPolicyDefaults(&p)
	var got []string
	for _, e := range c.ValidatePolicy(&p) {
		got = append(got, e.Error())
	}
	require.Len(t, got, 4, strings.Join(got, "\n"))
	assert.Equal(t, `spec.variables[0].name: Invalid value: "bad-name": name is not a valid CEL identifier`, got[0])
	assert.True(t, strings.HasPrefix(got[1], `spec.validations[0].expression: Invalid value: "object.spec.replicas <=": compilation failed: ERROR: <input>:1:24: Syntax error: mismatched input '<EOF>'`), got[1])
	assert.Equal(t, `spec.validations[1].expression: Invalid value: "'a'": must evaluate to bool`, got[2])
	assert.Equal(t, `spec.validations[2].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"`, got[3])

	var b admissionregistrationv1.ValidatingAdmissionPolicyBinding
	require.NoError(t, json.Unmarshal([]byte(`{"metadata":{"name":"b"},"spec":{"validationActions":["Deny","Warn","Deny"],"paramRef":{"name":"x","selector":{}}}}`), &b))
	got = nil
	for _, e := range ValidateBinding(&b) {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		"spec.policyName: Required value",
		"spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
		"spec.paramRef.parameterNotFoundAction: Required value",
		`spec.validationActions[2]: Duplicate value: "Deny"`,
		`spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`,
	}, got)
}
