package main

import (
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestKubectlAdmissionWebhooks: webhook configurations through the real
// kubectl, a mutating webhook's patch, a validating webhook's denial and
// a failing webhook, each with the message kube-apiserver gives.
func TestKubectlAdmissionWebhooks(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)

	hook := startWebhook(t, reviewHandler(func(path string, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
		switch {
		case path == "/validate" && strings.HasPrefix(req.Name, "bad"):
			resp.Allowed = false
			resp.Result = &metav1.Status{Message: "names starting with bad are reserved", Code: 403}
		case path == "/mutate":
			pt := admissionv1.PatchTypeJSONPatch
			resp.PatchType = &pt
			resp.Patch = []byte(`[{"op":"add","path":"/metadata/labels","value":{"admitted":"yes"}}]`)
			resp.Warnings = []string{"labelled by the webhook"}
		}
		return resp
	}))
	// A port nobody listens on, for the failing webhook.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	deadURL := "https://" + l.Addr().String() + "/"
	require.NoError(t, l.Close())

	webhook := func(name, url, resource string) string {
		return fmt.Sprintf(`
- name: %s
  clientConfig:
    url: %s
    caBundle: %s
  rules:
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: [%q]
  sideEffects: None
  admissionReviewVersions: ["v1"]`, name, url, hook.CABundle, resource)
	}
	manifest := `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: label
webhooks:` + webhook("label.example.com", hook.URL+"/mutate", "configmaps") + `
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: names
webhooks:` + webhook("names.example.com", hook.URL+"/validate", "configmaps") + webhook("dead.example.com", deadURL, "secrets") + `
`
	cmd := k.cmd("apply", "-f", "-")
	cmd.Stdin = strings.NewReader(manifest)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "mutatingwebhookconfiguration.admissionregistration.k8s.io/label created\n"+
		"validatingwebhookconfiguration.admissionregistration.k8s.io/names created\n", string(out))

	got := k.ok("get", "mutatingwebhookconfigurations")
	assert.Regexp(t, regexp.MustCompile(`^NAME\s+WEBHOOKS\s+AGE\nlabel\s+1\s+\S+\n$`), got)
	got = k.ok("get", "validatingwebhookconfigurations", "names", "-o", "jsonpath={.webhooks[*].timeoutSeconds} {.webhooks[0].failurePolicy} {.webhooks[0].matchPolicy}")
	assert.Equal(t, "10 10 Fail Equivalent", got)

	stdout, stderr := k.run(false, "create", "configmap", "good")
	assert.Equal(t, "configmap/good created\n", stdout)
	assert.Contains(t, stderr, "Warning: labelled by the webhook")
	assert.Equal(t, "yes", k.ok("get", "configmap", "good", "-o", "jsonpath={.metadata.labels.admitted}"))

	errOut := k.fail("create", "configmap", "bad-name")
	// The mutating webhook's warning comes with the refusal, as in
	// Kubernetes.
	assert.Equal(t, "Warning: labelled by the webhook\n"+`error: failed to create configmap: admission webhook "names.example.com" denied the request: names starting with bad are reserved`+"\n", errOut)
	errOut = k.fail("get", "configmap", "bad-name")
	assert.Contains(t, errOut, `configmaps "bad-name" not found`, "nothing stored on rejection")

	errOut = k.fail("create", "secret", "generic", "s", "--from-literal=a=b")
	assert.Contains(t, errOut, `Internal error occurred: failed calling webhook "dead.example.com": failed to call webhook: Post "`+deadURL+`?timeout=10s": dial tcp `)
	assert.Contains(t, errOut, "connect: connection refused")
}
