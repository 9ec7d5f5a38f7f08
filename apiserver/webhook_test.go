package apiserver_test

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/pki"
)

// webhookServer is a TLS admission webhook on 127.0.0.1: it adds the
// label admitted=yes to every object and refuses names starting with
// "bad".
func webhookServer(t testing.TB) (url string, caPEM []byte, calls *atomic.Int64) {
	b, err := pki.EnsureServing(t.TempDir(), nil, time.Now(), rand.Reader)
	require.NoError(t, err)
	calls = &atomic.Int64{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		switch {
		case r.URL.Path == "/validate" && strings.HasPrefix(review.Request.Name, "bad"):
			resp.Allowed = false
			resp.Result = &metav1.Status{Message: "names starting with bad are reserved", Code: 403}
		case r.URL.Path == "/mutate":
			pt := admissionv1.PatchTypeJSONPatch
			resp.PatchType = &pt
			resp.Patch = []byte(`[{"op":"add","path":"/metadata/labels","value":{"admitted":"yes"}}]`)
		}
		_ = json.NewEncoder(w).Encode(admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
	}))
	srv.TLS = b.ServerTLSConfig()
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL, b.CAPEM, calls
}

func webhookConfigs(url string, ca []byte, resource string) (string, string) {
	hook := func(name, path string) string {
		return fmt.Sprintf(`{"name":%q,"clientConfig":{"url":%q,"caBundle":%q},
			"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":[%q]}],
			"sideEffects":"None","admissionReviewVersions":["v1"]}`, name, url+path, base64.StdEncoding.EncodeToString(ca), resource)
	}
	return `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"label"},"webhooks":[` + hook("label.example.com", "/mutate") + `]}`,
		`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"names"},"webhooks":[` + hook("names.example.com", "/validate") + `]}`
}

func do(t *testing.T, h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestWebhooksThroughTheAPIServer(t *testing.T) {
	env := apiservertest.New(t)
	h := env.Server.Handler()
	url, ca, calls := webhookServer(t)
	mutating, validating := webhookConfigs(url, ca, "configmaps")

	w := do(t, h, "POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", mutating)
	require.Equal(t, 201, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), `"timeoutSeconds":10`, "defaulted")
	assert.Contains(t, w.Body.String(), `"failurePolicy":"Fail"`)
	w = do(t, h, "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", validating)
	require.Equal(t, 201, w.Code, w.Body.String())

	w = do(t, h, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"good"}}`)
	require.Equal(t, 201, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), `"admitted":"yes"`, "the mutating webhook's patch is stored")
	assert.Equal(t, int64(2), calls.Load())
	steps := w.Header().Values("Kubesim-Admission")
	require.Len(t, steps, 1)
	assert.Contains(t, steps[0], `admission mutating webhook "label.example.com" create configmaps default/good: patched`)

	w = do(t, h, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"bad-one"}}`)
	require.Equal(t, 403, w.Code)
	var st metav1.Status
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &st))
	assert.Equal(t, `admission webhook "names.example.com" denied the request: names starting with bad are reserved`, st.Message)
	w = do(t, h, "GET", "/api/v1/namespaces/default/configmaps/bad-one", "")
	assert.Equal(t, 404, w.Code, "nothing stored on rejection")

	// A dry run reaches webhooks without side effects and stores nothing.
	w = do(t, h, "POST", "/api/v1/namespaces/default/configmaps?dryRun=All", `{"metadata":{"name":"dry"}}`)
	require.Equal(t, 201, w.Code, w.Body.String())
	assert.Equal(t, 404, do(t, h, "GET", "/api/v1/namespaces/default/configmaps/dry", "").Code)

	// Deleting the configuration takes the webhook out of the chain at
	// once (the configurations' cache follows writes).
	require.Equal(t, 200, do(t, h, "DELETE", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/names", "").Code)
	w = do(t, h, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"bad-two"}}`)
	assert.Equal(t, 201, w.Code, w.Body.String())

	// The webhooks never see their own configurations: a broken one can
	// be removed.
	before := calls.Load()
	require.Equal(t, 200, do(t, h, "DELETE", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/label", "").Code)
	assert.Equal(t, before, calls.Load())
}

func TestWebhookConfigurationValidationThroughTheAPIServer(t *testing.T) {
	env := apiservertest.New(t)
	w := do(t, env.Server.Handler(), "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
		`{"metadata":{"name":"v"},"webhooks":[{"name":"short","clientConfig":{"url":"https://example.com"},"admissionReviewVersions":["v1"],"timeoutSeconds":40}]}`)
	require.Equal(t, 422, w.Code)
	var st metav1.Status
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &st))
	assert.Equal(t, `ValidatingWebhookConfiguration.admissionregistration.k8s.io "v" is invalid: [webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots, webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, webhooks[0].timeoutSeconds: Invalid value: 40: the timeout value must be between 1 and 30 seconds]`, st.Message)
}

// A rule for deployments/scale sees scale writes and not the
// deployment's own.
func TestWebhookOnTheScaleSubresource(t *testing.T) {
	env := apiservertest.New(t)
	h := env.Server.Handler()
	url, ca, calls := webhookServer(t)
	_, validating := webhookConfigs(url, ca, "deployments/scale")
	validating = strings.Replace(validating, `"operations":["CREATE"],"apiGroups":[""]`, `"operations":["UPDATE"],"apiGroups":["apps"]`, 1)
	require.Equal(t, 201, do(t, h, "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", validating).Code)
	w := do(t, h, "POST", "/apis/apps/v1/namespaces/default/deployments", `{"metadata":{"name":"bad-d"},"spec":{"replicas":1,
		"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`)
	require.Equal(t, 201, w.Code, w.Body.String())
	req := httptest.NewRequest("PATCH", "/apis/apps/v1/namespaces/default/deployments/bad-d", strings.NewReader(`{"metadata":{"labels":{"x":"y"}}}`))
	req.Header.Set("Content-Type", "application/merge-patch+json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, 200, rec.Code, rec.Body.String())
	assert.Equal(t, int64(0), calls.Load())
	req = httptest.NewRequest("PATCH", "/apis/apps/v1/namespaces/default/deployments/bad-d/scale", strings.NewReader(`{"spec":{"replicas":3}}`))
	req.Header.Set("Content-Type", "application/merge-patch+json")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, 403, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `admission webhook \"names.example.com\" denied the request`)
	assert.Equal(t, int64(1), calls.Load())
}

// The built-in plugins' patches are computed only for a write that asks
// for them (the stepper's recorder sets the header); kubectl's writes do
// not pay for a diff per plugin.
func TestBuiltInPatchesOnlyWhenAsked(t *testing.T) {
	env := apiservertest.New(t)
	h := env.Server.Handler()
	create := func(name string, trace bool) []string {
		body := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`
		req := httptest.NewRequest("POST", "/api/v1/namespaces/default/pods", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if trace {
			req.Header.Set("Kubesim-Admission-Trace", "true")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		require.Equal(t, 201, w.Code, w.Body.String())
		assert.Contains(t, w.Body.String(), `"priority":0`, "the Priority plugin ran either way")
		return w.Header().Values("Kubesim-Admission")
	}
	assert.Empty(t, create("quiet", false))
	steps := create("traced", true)
	require.NotEmpty(t, steps)
	assert.Contains(t, strings.Join(steps, "\n"), "admission mutating Priority create pods default/traced: patched")
}
