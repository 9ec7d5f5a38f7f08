package apiserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
)

// TestDotSegmentsAreNotCleaned: a path with . or .. segments is not served
// as the path they would resolve to (the server would otherwise answer
// for an object the URL does not name).
func TestDotSegmentsAreNotCleaned(t *testing.T) {
	env := apiservertest.New(t)
	get := func(path string) (int, metav1.Status) {
		rec := httptest.NewRecorder()
		env.Server.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		var st metav1.Status
		_ = json.Unmarshal(rec.Body.Bytes(), &st)
		return rec.Code, st
	}
	code, _ := get("/api/v1/namespaces/default")
	require.Equal(t, 200, code, "the clean path is served")
	for _, p := range []string{"/api/v1/namespaces/../namespaces/default", "/api/v1/./namespaces/default", "/api/v1/namespaces/kube-system/../default"} {
		code, st := get(p)
		assert.Equal(t, 404, code, p)
		assert.Equal(t, metav1.StatusReasonNotFound, st.Reason, p)
	}
	code, st := get("/api/v1/namespaces/default/configmaps/..")
	assert.Equal(t, 400, code)
	assert.Equal(t, `name may not be ".."`, st.Message)
}
