package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/protobuf"
)

// The built-in kinds of the real server take protobuf bodies on their
// subresources too, through the one decode path: a pod is created, bound
// (pods/binding, as the scheduler's client-go would send it) and its
// status written, all in protobuf.
func TestBuiltinSubresourcesTakeProtobuf(t *testing.T) {
	env := apiservertest.New(t)
	h := env.Server.LoopbackHandler()
	do := func(method, path string, obj api.Object) *httptest.ResponseRecorder {
		t.Helper()
		body, err := protobuf.Encode(obj)
		require.NoError(t, err)
		req := httptest.NewRequest(method, path, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", protobuf.ContentType)
		req.Header.Set("Accept", protobuf.ContentType+", */*")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	pods := "/api/v1/namespaces/default/pods"
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	rec := do("POST", pods, pod)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var created corev1.Pod
	_, _, err := protobuf.Decode(rec.Body.Bytes(), &created)
	require.NoError(t, err)

	binding := &corev1.Binding{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Binding"}, ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}
	rec = do("POST", pods+"/p/binding", binding)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())

	// A Binding envelope posted where a Pod belongs is refused.
	rec = do("POST", pods, binding)
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `the object provided is unrecognized (must be of type Pod): kind \"Binding\" does not match`)

	got, err := env.Client.Pods().Get(t.Context(), "default", "p")
	require.NoError(t, err)
	assert.Equal(t, "node-1", got.Spec.NodeName)

	got.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	got.Status.Phase = corev1.PodRunning
	rec = do("PUT", pods+"/p/status", got)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var updated corev1.Pod
	_, _, err = protobuf.Decode(rec.Body.Bytes(), &updated)
	require.NoError(t, err)
	assert.Equal(t, corev1.PodRunning, updated.Status.Phase)
}
