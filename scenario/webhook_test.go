package scenario

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/pki"
)

// webhookScenario is a step-mode scenario with a mutating webhook that
// labels every pod and a validating webhook that refuses pods named bad-*.
func webhookScenario(t *testing.T, out *bytes.Buffer) *Runner {
	b, err := pki.EnsureServing(t.TempDir(), nil, time.Now(), rand.Reader)
	require.NoError(t, err)
	hook := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		if r.URL.Path == "/mutate" {
			pt := admissionv1.PatchTypeJSONPatch
			resp.PatchType = &pt
			resp.Patch = []byte(`[{"op":"add","path":"/metadata/labels/team","value":"blue"}]`)
		} else if strings.HasPrefix(review.Request.Name, "bad-") {
			resp.Allowed = false
			// As controller-runtime's admission.Denied answers.
			resp.Result = &metav1.Status{Message: "bad-* names are reserved", Code: 403, Reason: metav1.StatusReasonForbidden}
		}
		_ = json.NewEncoder(w).Encode(admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
	}))
	hook.TLS = b.ServerTLSConfig()
	hook.StartTLS()
	t.Cleanup(hook.Close)
	ca := base64.StdEncoding.EncodeToString(b.CAPEM)
	webhooks := func(name, path string) string {
		return fmt.Sprintf(`
      - name: %s
        clientConfig: {url: "%s%s", caBundle: %s}
        rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
        sideEffects: None
        admissionReviewVersions: [v1]`, name, hook.URL, path, ca)
	}
	src := `cluster: {nodeCount: 1}
steps:
- apply:
    manifest: |
      apiVersion: admissionregistration.k8s.io/v1
      kind: MutatingWebhookConfiguration
      metadata: {name: team-label}
      webhooks:` + webhooks("team.example.com", "/mutate") + `
      ---
      apiVersion: admissionregistration.k8s.io/v1
      kind: ValidatingWebhookConfiguration
      metadata: {name: reserved-names}
      webhooks:` + webhooks("names.example.com", "/validate") + `
- apply:
    manifest: |
      apiVersion: apps/v1
      kind: ReplicaSet
      metadata: {name: web}
      spec:
        replicas: 1
        selector: {matchLabels: {app: web}}
        template:
          metadata: {labels: {app: web}}
          spec: {containers: [{name: c, image: nginx}]}
- runUntilStable: {}
- expect: {kind: Pod, count: 1, selector: "team=blue"}
- apply:
    manifest: |
      apiVersion: v1
      kind: Pod
      metadata: {name: bad-pod, labels: {app: other}}
      spec: {containers: [{name: c, image: nginx}]}
    fails: {reason: Forbidden, message: "denied the request"}
`
	s, err := Parse("webhooks.yaml", []byte(src), readMap(nil))
	require.NoError(t, err)
	r, err := New(s, &Reporter{W: out, Style: StyleTrace})
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

// The trace shows each patch under the write it changed, and the denial
// under the user's refused write.
func TestStepModeTraceShowsWebhooks(t *testing.T) {
	var out bytes.Buffer
	r := webhookScenario(t, &out)
	ok, err := r.RunAll(context.Background())
	require.NoError(t, err)
	require.True(t, ok, out.String())
	trace := out.String()
	// The built-in plugins' changes (ServiceAccount, Priority,
	// DefaultTolerationSeconds) come first, then the webhook's.
	assert.Regexp(t, `-> create /api/v1/namespaces/default/pods 201 rv=\d+\n\s+admission mutating ServiceAccount create pods default/web-\w+: patched \(replace /spec/containers, add /spec/serviceAccount, add /spec/serviceAccountName, add /spec/volumes\)\n\s+admission mutating Priority create pods default/web-\w+: patched .*\n\s+admission mutating DefaultTolerationSeconds create pods default/web-\w+: patched \(add /spec/tolerations\)\n\s+admission mutating webhook "team.example.com" create pods default/web-\w+: patched \[\{"op":"add","path":"/metadata/labels/team","value":"blue"\}\]`, trace)
	assert.Regexp(t, `-> create /api/v1/namespaces/default/pods 403\n\s+admission mutating ServiceAccount .*\n\s+admission mutating Priority .*\n\s+admission mutating DefaultTolerationSeconds .*\n\s+admission mutating webhook "team.example.com" create pods default/bad-pod: patched .*\n\s+admission validating webhook "names.example.com" create pods default/bad-pod: denied: admission webhook "names.example.com" denied the request: bad-\* names are reserved`, trace)
}

// The stepper stops at the first write admission changed: the
// ReplicaSet controller's pod create, patched by the webhook.
func TestStepperStopsAtAnAdmissionStep(t *testing.T) {
	var out bytes.Buffer
	r := webhookScenario(t, &out)
	ctx := context.Background()
	found, err := r.NextAdmission(ctx)
	require.NoError(t, err)
	require.True(t, found)
	trace := r.Cluster().Trace()
	last := trace[len(trace)-1]
	assert.Equal(t, "replicaset", last.Actor)
	assert.Contains(t, last.String(), `admission mutating webhook "team.example.com" create pods default/web-`)
	assert.Equal(t, 2, r.Current(), "inside the runUntilStable step")

	found, err = r.NextAdmission(ctx)
	require.NoError(t, err)
	require.True(t, found, "the refused pod is the next one")
	res := r.Results()
	assert.Contains(t, res[len(res)-1].Writes[0].String(), `denied: admission webhook "names.example.com" denied the request`)
	found, err = r.NextAdmission(ctx)
	require.NoError(t, err)
	assert.False(t, found)
	assert.True(t, r.Done())
}
