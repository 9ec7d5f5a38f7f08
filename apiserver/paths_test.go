package apiserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
)

// TestDotSegmentsAreNotCleaned: a path with . or .. segments is not served
// as the path they would resolve to (the server would otherwise answer
// for an object the URL does not name).
func TestDotSegmentsAreNotCleaned(t *testing.T) {
	env := apiservertest.New(t)
	get := func(path string) (int, api.Status) {
		rec := httptest.NewRecorder()
		env.Server.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		var st api.Status
		_ = json.Unmarshal(rec.Body.Bytes(), &st)
		return rec.Code, st
	}
	code, _ := get("/api/v1/namespaces/default")
	require.Equal(t, 200, code, "the clean path is served")
	for _, p := range []string{"/api/v1/namespaces/../namespaces/default", "/api/v1/./namespaces/default", "/api/v1/namespaces/kube-system/../default"} {
		code, st := get(p)
		assert.Equal(t, 404, code, p)
		assert.Equal(t, api.StatusReasonNotFound, st.Reason, p)
	}
	code, st := get("/api/v1/namespaces/default/configmaps/..")
	assert.Equal(t, 400, code)
	assert.Equal(t, `name may not be ".."`, st.Message)
}
