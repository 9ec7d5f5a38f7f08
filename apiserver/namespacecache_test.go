package apiserver_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
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

// Priority and LimitRanger read PriorityClasses and LimitRanges through
// a cache of decoded objects: each pod create sees them as they are now.
func TestPodAdmissionSeesPriorityClassesAndLimitRangesAsTheyAreNow(t *testing.T) {
	h := rbacServer(t, authz.ModeAlwaysAllow).Handler()
	pods := "/api/v1/namespaces/default/pods"
	pod := func(name string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`
	}
	create := func(name string) api.Pod {
		t.Helper()
		code, _, body := call(t, h, "admin-token", "POST", pods, pod(name))
		require.Equal(t, http.StatusCreated, code, body)
		var p api.Pod
		require.NoError(t, json.Unmarshal([]byte(body), &p))
		return p
	}
	p := create("before")
	assert.Equal(t, int32(0), *p.Spec.Priority)
	assert.Nil(t, p.Spec.Containers[0].Resources.Limits)

	code, _, body := call(t, h, "admin-token", "POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
		`{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"high"},"value":1000,"globalDefault":true}`)
	require.Equal(t, http.StatusCreated, code, body)
	code, _, body = call(t, h, "admin-token", "POST", "/api/v1/namespaces/default/limitranges",
		`{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"cpu"},"spec":{"limits":[{"type":"Container","default":{"cpu":"500m"}}]}}`)
	require.Equal(t, http.StatusCreated, code, body)
	p = create("with")
	assert.Equal(t, int32(1000), *p.Spec.Priority)
	assert.Equal(t, "high", p.Spec.PriorityClassName)
	assert.Equal(t, "500m", p.Spec.Containers[0].Resources.Limits["cpu"].String())

	code, _, body = call(t, h, "admin-token", "PUT", "/api/v1/namespaces/default/limitranges/cpu",
		`{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"cpu"},"spec":{"limits":[{"type":"Container","default":{"cpu":"250m"}}]}}`)
	require.Equal(t, http.StatusOK, code, body)
	p = create("changed")
	assert.Equal(t, "250m", p.Spec.Containers[0].Resources.Limits["cpu"].String())

	code, _, body = call(t, h, "admin-token", "DELETE", "/apis/scheduling.k8s.io/v1/priorityclasses/high", "")
	require.Equal(t, http.StatusOK, code, body)
	code, _, body = call(t, h, "admin-token", "DELETE", "/api/v1/namespaces/default/limitranges/cpu", "")
	require.Equal(t, http.StatusOK, code, body)
	p = create("after")
	assert.Equal(t, int32(0), *p.Spec.Priority)
	assert.Empty(t, p.Spec.PriorityClassName)
	assert.Nil(t, p.Spec.Containers[0].Resources.Limits)
}
