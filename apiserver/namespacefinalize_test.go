package apiserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
)

// rawDo sends one request to the server's handler and returns the code and
// the body.
func rawDo(t *testing.T, env *apiservertest.Env, method, path, body string) (int, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		if method == http.MethodPatch {
			req.Header.Set("Content-Type", "application/merge-patch+json")
		}
	}
	env.Server.Handler().ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

func decodeNamespace(t *testing.T, body []byte) *corev1.Namespace {
	t.Helper()
	var ns corev1.Namespace
	require.NoError(t, json.Unmarshal(body, &ns), string(body))
	return &ns
}

func decodeStatus(t *testing.T, body []byte) metav1.Status {
	t.Helper()
	var st metav1.Status
	require.NoError(t, json.Unmarshal(body, &st), string(body))
	return st
}

// TestNamespaceFinalizeSubresource: namespaces/finalize is a PUT that may
// change spec.finalizers (a plain update may not, even while the namespace
// terminates), answers the Namespace, and deletes a terminating namespace
// when its last spec finalizer goes — the stuck-namespace fix. Every other
// verb is 405, and discovery lists it with "update" alone.
func TestNamespaceFinalizeSubresource(t *testing.T) {
	env := apiservertest.New(t)
	code, body := rawDo(t, env, http.MethodPost, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"stuck"}}`)
	require.Equal(t, http.StatusCreated, code, string(body))

	// No namespace controller runs here: the deleted namespace stays
	// Terminating, held by the kubernetes finalizer.
	code, body = rawDo(t, env, http.MethodDelete, "/api/v1/namespaces/stuck", "")
	require.Equal(t, http.StatusOK, code, string(body))
	code, body = rawDo(t, env, http.MethodGet, "/api/v1/namespaces/stuck", "")
	require.Equal(t, http.StatusOK, code, string(body))
	ns := decodeNamespace(t, body)
	require.Equal(t, corev1.NamespaceTerminating, ns.Status.Phase)
	require.Equal(t, []corev1.FinalizerName{corev1.FinalizerKubernetes}, ns.Spec.Finalizers)

	// A plain update cannot drop the finalizer.
	plain := ns.DeepCopy()
	plain.Spec.Finalizers = nil
	raw, _ := json.Marshal(plain)
	code, body = rawDo(t, env, http.MethodPut, "/api/v1/namespaces/stuck", string(raw))
	require.Equal(t, http.StatusOK, code, string(body))
	assert.Equal(t, []corev1.FinalizerName{corev1.FinalizerKubernetes}, decodeNamespace(t, body).Spec.Finalizers)

	for _, method := range []string{http.MethodGet, http.MethodPatch, http.MethodPost, http.MethodDelete} {
		code, body = rawDo(t, env, method, "/api/v1/namespaces/stuck/finalize", `{}`)
		assert.Equal(t, http.StatusMethodNotAllowed, code, method)
		st := decodeStatus(t, body)
		assert.Equal(t, metav1.StatusReasonMethodNotAllowed, st.Reason, method)
		assert.Equal(t, "the server does not allow this method on the requested resource", st.Message, method)
	}

	// A bad finalizer name is refused with the entry's path.
	bad := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"stuck"},"spec":{"finalizers":["bogus"]}}`
	code, body = rawDo(t, env, http.MethodPut, "/api/v1/namespaces/stuck/finalize", bad)
	require.Equal(t, http.StatusUnprocessableEntity, code, string(body))
	st := decodeStatus(t, body)
	require.NotNil(t, st.Details)
	require.Len(t, st.Details.Causes, 1)
	assert.Equal(t, "spec.finalizers[0]", st.Details.Causes[0].Field)
	assert.Equal(t, `Namespace "stuck" is invalid: spec.finalizers[0]: Invalid value: "bogus": name is neither a standard finalizer name nor is it fully qualified`, st.Message)

	// The body names another object than the URL.
	code, _ = rawDo(t, env, http.MethodPut, "/api/v1/namespaces/stuck/finalize", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}}`)
	assert.Equal(t, http.StatusBadRequest, code)

	// The fix: the finalizers emptied (status sent as Active is ignored).
	fixed := ns.DeepCopy()
	fixed.Spec.Finalizers = []corev1.FinalizerName{}
	fixed.Status.Phase = corev1.NamespaceActive
	raw, _ = json.Marshal(fixed)
	code, body = rawDo(t, env, http.MethodPut, "/api/v1/namespaces/stuck/finalize", string(raw))
	require.Equal(t, http.StatusOK, code, string(body))
	out := decodeNamespace(t, body)
	assert.Equal(t, "Namespace", out.Kind)
	assert.Empty(t, out.Spec.Finalizers)
	assert.Equal(t, corev1.NamespaceTerminating, out.Status.Phase)
	code, _ = rawDo(t, env, http.MethodGet, "/api/v1/namespaces/stuck", "")
	assert.Equal(t, http.StatusNotFound, code, "the namespace is gone")

	// On a live namespace finalize changes the list and the namespace stays.
	code, body = rawDo(t, env, http.MethodPost, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"live"}}`)
	require.Equal(t, http.StatusCreated, code, string(body))
	code, body = rawDo(t, env, http.MethodPut, "/api/v1/namespaces/live/finalize",
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"live"},"spec":{"finalizers":["example.com/hold"]}}`)
	require.Equal(t, http.StatusOK, code, string(body))
	out = decodeNamespace(t, body)
	assert.Equal(t, []corev1.FinalizerName{"example.com/hold"}, out.Spec.Finalizers)
	assert.Equal(t, corev1.NamespaceActive, out.Status.Phase)
	assert.Equal(t, "live", out.Labels["kubernetes.io/metadata.name"])

	code, body = rawDo(t, env, http.MethodGet, "/api/v1", "")
	require.Equal(t, http.StatusOK, code)
	var list metav1.APIResourceList
	require.NoError(t, json.Unmarshal(body, &list))
	var found bool
	for _, r := range list.APIResources {
		if r.Name == "namespaces/finalize" {
			found = true
			assert.Equal(t, metav1.Verbs{"update"}, r.Verbs)
			assert.Equal(t, "Namespace", r.Kind)
		}
	}
	assert.True(t, found, "discovery lists namespaces/finalize")
}
