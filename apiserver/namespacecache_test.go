package apiserver_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/authz"
)

// The admission plugins read namespaces through a cache of decoded
// objects; a namespace that changes after it was cached (deleted, so
// Terminating; gone; made again) is seen at the very next create.
func TestNamespaceLifecycleSeesTheNamespaceAsItIsNow(t *testing.T) {
	h := rbacServer(t, authz.ModeAlwaysAllow).Handler()
	cm := func(name string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"}}`
	}
	code, _, body := call(t, h, "admin-token", "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}`)
	require.Equal(t, http.StatusCreated, code, body)
	code, _, body = call(t, h, "admin-token", "POST", "/api/v1/namespaces/team/configmaps", cm("one"))
	require.Equal(t, http.StatusCreated, code, body)

	code, _, body = call(t, h, "admin-token", "DELETE", "/api/v1/namespaces/team", "")
	require.Equal(t, http.StatusOK, code, body)
	code, st, body := call(t, h, "admin-token", "POST", "/api/v1/namespaces/team/configmaps", cm("two"))
	assert.Equal(t, http.StatusForbidden, code, body)
	assert.Equal(t, `configmaps "two" is forbidden: unable to create new content in namespace team because it is being terminated`, st.Message)

	// Without the namespace controller the namespace stays Terminating
	// until its finalizer is removed (kubesim lets an update of a
	// terminating namespace do it, as its namespace controller does);
	// then it is gone.
	code, _, body = call(t, h, "admin-token", "PUT", "/api/v1/namespaces/team",
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"},"spec":{"finalizers":[]}}`)
	require.Equal(t, http.StatusOK, code, body)
	code, _, body = call(t, h, "admin-token", "GET", "/api/v1/namespaces/team", "")
	require.Equal(t, http.StatusNotFound, code, body)
	code, st, body = call(t, h, "admin-token", "POST", "/api/v1/namespaces/team/configmaps", cm("three"))
	assert.Equal(t, http.StatusNotFound, code, body)
	assert.Equal(t, `namespaces "team" not found`, st.Message)

	code, _, body = call(t, h, "admin-token", "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}`)
	require.Equal(t, http.StatusCreated, code, body)
	code, _, body = call(t, h, "admin-token", "POST", "/api/v1/namespaces/team/configmaps", cm("four"))
	assert.Equal(t, http.StatusCreated, code, body)
}
