package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/audit"
)

// TestKubectlWebhookMatchConditionsAndPolicyWarn: a webhook's
// matchConditions decide whether it is called (CEL), and a
// ValidatingAdmissionPolicy bound with validationActions [Warn] lets the
// write through with kube-apiserver's warning, which kubectl prints.
func TestKubectlWebhookMatchConditionsAndPolicyWarn(t *testing.T) {
	t.Parallel()
	logPath := filepath.Join(t.TempDir(), "audit.log")
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	require.NoError(t, os.WriteFile(policy, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"), 0o600))
	s := startServer(t, t.TempDir(), "--api-server-only", "--audit-log-path", logPath, "--audit-policy-file", policy)
	k := newKubectl(t, s)

	hook := startWebhook(t, reviewHandler(func(_ string, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{UID: req.UID, Allowed: false,
			Result: &metav1.Status{Message: "every configmap is refused", Code: 403}}
	}))

	manifest := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: refuse
webhooks:
- name: refuse.example.com
  clientConfig:
    url: ` + hook.URL + `/validate
    caBundle: ` + hook.CABundle + `
  rules:
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["configmaps"]
  matchConditions:
  - name: not-free
    expression: "!object.metadata.name.startsWith('free')"
  - name: not-by-admin
    expression: "request.userInfo.username != 'nobody-at-all'"
  sideEffects: None
  admissionReviewVersions: ["v1"]
- name: broken.example.com
  clientConfig:
    url: ` + hook.URL + `/validate
    caBundle: ` + hook.CABundle + `
  rules:
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["secrets"]
  matchConditions:
  - name: no-such-field
    expression: "object.spec.nothing == 'x'"
  sideEffects: None
  admissionReviewVersions: ["v1"]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: short-names
spec:
  matchConstraints:
    resourceRules:
    - operations: ["CREATE"]
      apiGroups: [""]
      apiVersions: ["v1"]
      resources: ["services"]
  validations:
  - expression: "object.metadata.name.size() <= 5"
    message: "service names should be short"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: short-names-warn
spec:
  policyName: short-names
  validationActions: ["Warn", "Audit"]
`
	cmd := k.cmd("apply", "-f", "-")
	cmd.Stdin = strings.NewReader(manifest)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))

	// The condition is false: the webhook is not called.
	assert.Equal(t, "configmap/free-one created\n", k.ok("create", "configmap", "free-one"))
	// Both conditions true: the webhook is called and refuses.
	errOut := k.fail("create", "configmap", "paid-one")
	assert.Equal(t, `error: failed to create configmap: admission webhook "refuse.example.com" denied the request: every configmap is refused`+"\n", errOut)
	// A condition that fails to evaluate, failurePolicy Fail (default).
	errOut = k.fail("create", "secret", "generic", "s", "--from-literal=a=b")
	assert.Contains(t, errOut, `Internal error occurred: failed calling webhook "broken.example.com": failed to evaluate match conditions: failed to evaluate match condition "no-such-field": no such key: spec`)

	// The policy's Warn action: created, with the warning.
	stdout, stderr := k.run(false, "create", "service", "clusterip", "much-too-long", "--tcp=80")
	assert.Equal(t, "service/much-too-long created\n", stdout)
	assert.Equal(t, "Warning: Validation failed for ValidatingAdmissionPolicy 'short-names' with binding 'short-names-warn': service names should be short\n", stderr)
	stdout, stderr = k.run(false, "create", "service", "clusterip", "tiny", "--tcp=80")
	assert.Equal(t, "service/tiny created\n", stdout)
	assert.Empty(t, stderr)

	// The Audit action: the failure in the create's audit event (only
	// much-too-long failed, so only its create has annotations).
	find := func() *audit.Event {
		for _, ev := range readAudit(t, logPath) {
			if ev.Verb == "create" && ev.ObjectRef != nil && ev.ObjectRef.Resource == "services" && len(ev.Annotations) > 0 {
				return &ev
			}
		}
		return nil
	}
	require.Eventually(t, func() bool { return find() != nil }, 10*time.Second, 10*time.Millisecond, "a services create with annotations")
	assert.Equal(t, map[string]string{"validation.policy.admission.k8s.io/validation_failure": `[{"message":"service names should be short","policy":"short-names","binding":"short-names-warn","expressionIndex":0,"validationActions":["Warn","Audit"]}]`},
		find().Annotations)
}
