package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
)

// TestKubectlWebhookFailures drives every way a webhook can fail through
// the real kubectl: a timeout, a 500, an answer that is not JSON, an answer
// that is not an AdmissionReview, a review for another request (uid), a
// patch that does not apply, and no server at all. With failurePolicy Fail
// kubectl shows kube-apiserver's "failed calling webhook" and nothing is
// stored; with Ignore the object is stored — except after a patch that does
// not apply, which kube-apiserver reports as its own internal error
// whatever the policy.
func TestKubectlWebhookFailures(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)

	// Some answers are no review at all: the handler writes them itself.
	hook := startWebhook(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		switch r.URL.Path {
		case "/timeout":
			<-r.Context().Done() // until the API server gives up
			return
		case "/500":
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		case "/garbage":
			_, _ = w.Write([]byte("hello"))
			return
		case "/status":
			_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"Status","status":"Success"}`))
			return
		case "/wronguid":
			resp.UID = "someone-else"
		case "/badpatch":
			pt := admissionv1.PatchTypeJSONPatch
			resp.PatchType = &pt
			resp.Patch = []byte(`[{"op":"remove","path":"/data/nothing"}]`)
		}
		_ = json.NewEncoder(w).Encode(admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	deadURL := "https://" + l.Addr().String() + "/unreachable"
	require.NoError(t, l.Close())

	// One webhook per mode and policy; each sees only the ConfigMaps
	// labelled with its mode and policy.
	webhook := func(mode, policy string) string {
		url := hook.URL + "/" + mode
		if mode == "unreachable" {
			url = deadURL
		}
		return fmt.Sprintf(`
- name: %[1]s-%[2]s.example.com
  clientConfig:
    url: %[3]s
    caBundle: %[4]s
  rules:
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["configmaps"]
  objectSelector:
    matchLabels: {mode: %[1]s-%[2]s}
  failurePolicy: %[5]s
  timeoutSeconds: 1
  sideEffects: None
  admissionReviewVersions: ["v1"]`, mode, strings.ToLower(policy), url, hook.CABundle, policy)
	}
	modes := []string{"timeout", "500", "garbage", "status", "wronguid", "unreachable"}
	var validating string
	for _, m := range modes {
		validating += webhook(m, "Fail") + webhook(m, "Ignore")
	}
	manifest := "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: failing\nwebhooks:" + validating +
		"\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: badpatch\nwebhooks:" +
		webhook("badpatch", "Fail") + webhook("badpatch", "Ignore") + "\n"
	k.ok("apply", "-f", writeManifest(t, "hooks.yaml", manifest))

	failed := func(mode, policy string) string {
		return fmt.Sprintf(`Error from server (InternalError): error when creating "STDIN": Internal error occurred: failed calling webhook "%s-%s.example.com": `, mode, policy)
	}
	const badPatch = `Error from server (InternalError): error when creating "STDIN": Internal error occurred: error in remove for path: '/data/nothing': Unable to remove nonexistent key: nothing: missing value` + "\n"
	hookURL := func(mode string) string { return hook.URL + "/" + mode + "?timeout=1s" }
	tests := []struct {
		mode string
		// fail is what kubectl prints with failurePolicy Fail (a prefix
		// where the rest depends on the machine).
		fail string
		// ignoreRefused: the Ignore webhook's request is refused too.
		ignoreRefused string
		// rest matches the whole message where fail is a prefix.
		rest string
	}{
		{mode: "timeout", fail: failed("timeout", "fail") + `failed to call webhook: Post "` + hookURL("timeout") + `": context deadline exceeded`},
		{mode: "500", fail: failed("500", "fail") + `failed to call webhook: an error on the server ("boom") has prevented the request from succeeding`},
		{mode: "garbage", fail: failed("garbage", "fail") + `failed to call webhook: invalid character 'h' looking for beginning of value`},
		{mode: "status", fail: failed("status", "fail") + `received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got v1, Kind=Status`},
		{mode: "wronguid", fail: failed("wronguid", "fail") + `received invalid webhook response: expected response.uid=`,
			rest: `^.*expected response\.uid="[0-9a-f-]{36}", got "someone-else"\n$`},
		{mode: "unreachable", fail: failed("unreachable", "fail") + `failed to call webhook: Post "` + deadURL + `?timeout=1s": dial tcp `,
			rest: `connect: connection refused\n$`},
		{mode: "badpatch",
			fail:          badPatch,
			ignoreRefused: badPatch},
	}
	configMap := func(mode, policy string) (name, manifest string) {
		name = mode + "-" + policy
		return name, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  labels: {mode: %s}\ndata: {a: b}\n", name, name)
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			name, cm := configMap(tc.mode, "fail")
			stdout, stderr, code := k.runIn(cm, "create", "-f", "-")
			assert.NotZero(t, code)
			assert.Empty(t, stdout)
			assert.True(t, strings.HasPrefix(stderr, tc.fail), "Fail:\n got %s\nwant %s…", stderr, tc.fail)
			if tc.rest != "" {
				assert.Regexp(t, tc.rest, stderr)
			}
			assert.Contains(t, k.fail("get", "configmap", name), `configmaps "`+name+`" not found`, "nothing stored")

			name, cm = configMap(tc.mode, "ignore")
			stdout, stderr, code = k.runIn(cm, "create", "-f", "-")
			if tc.ignoreRefused != "" {
				assert.NotZero(t, code)
				assert.True(t, strings.HasPrefix(stderr, tc.ignoreRefused), "Ignore:\n got %s", stderr)
				assert.Contains(t, k.fail("get", "configmap", name), "not found")
				return
			}
			assert.Zero(t, code, stderr)
			assert.Equal(t, "configmap/"+name+" created\n", stdout)
			assert.Equal(t, "b", k.ok("get", "configmap", name, "-o", "jsonpath={.data.a}"), "stored")
		})
	}
}
