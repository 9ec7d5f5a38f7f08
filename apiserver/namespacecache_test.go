package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/registry"
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
	// until its finalizer is removed (through namespaces/finalize, as the
	// namespace controller does); then it is gone.
	code, _, body = call(t, h, "admin-token", "PUT", "/api/v1/namespaces/team/finalize",
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
	create := func(name string) corev1.Pod {
		t.Helper()
		code, _, body := call(t, h, "admin-token", "POST", pods, pod(name))
		require.Equal(t, http.StatusCreated, code, body)
		var p corev1.Pod
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
	assert.Equal(t, "500m", p.Spec.Containers[0].Resources.Limits.Cpu().String())

	code, _, body = call(t, h, "admin-token", "PUT", "/api/v1/namespaces/default/limitranges/cpu",
		`{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"cpu"},"spec":{"limits":[{"type":"Container","default":{"cpu":"250m"}}]}}`)
	require.Equal(t, http.StatusOK, code, body)
	p = create("changed")
	assert.Equal(t, "250m", p.Spec.Containers[0].Resources.Limits.Cpu().String())

	code, _, body = call(t, h, "admin-token", "DELETE", "/apis/scheduling.k8s.io/v1/priorityclasses/high", "")
	require.Equal(t, http.StatusOK, code, body)
	code, _, body = call(t, h, "admin-token", "DELETE", "/api/v1/namespaces/default/limitranges/cpu", "")
	require.Equal(t, http.StatusOK, code, body)
	p = create("after")
	assert.Equal(t, int32(0), *p.Spec.Priority)
	assert.Empty(t, p.Spec.PriorityClassName)
	assert.Nil(t, p.Spec.Containers[0].Resources.Limits)
}

// The objects admission reads are shared with every later request and
// with the Table lists (one cache per store): a plugin must not change
// them. After pod creates that LimitRanger defaulted, Priority gave a
// class's value and NamespaceLifecycle let in, each shared object still
// encodes as the store's own copy (this fails when a plugin writes to the
// LimitRange it applies, say).
func TestAdmissionLeavesTheSharedObjectsAsStored(t *testing.T) {
	srv := rbacServer(t, authz.ModeAlwaysAllow)
	h := srv.Handler()
	for _, c := range []struct{ path, body string }{
		{"/apis/scheduling.k8s.io/v1/priorityclasses",
			`{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"high"},"value":1000,"globalDefault":true}`},
		{"/api/v1/namespaces/default/limitranges",
			`{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"cpu"},"spec":{"limits":[{"type":"Container","default":{"cpu":"500m","memory":"64Mi"},"defaultRequest":{"cpu":"100m"},"max":{"cpu":"1"}}]}}`},
	} {
		code, _, body := call(t, h, "admin-token", "POST", c.path, c.body)
		require.Equal(t, http.StatusCreated, code, body)
	}
	for _, name := range []string{"a", "b", "c"} {
		code, _, body := call(t, h, "admin-token", "POST", "/api/v1/namespaces/default/pods",
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"`+name+`"},"spec":{"containers":[{"name":"c","image":"nginx","resources":{"limits":{"memory":"32Mi"}}},{"name":"d","image":"nginx"}]}}`)
		require.Equal(t, http.StatusCreated, code, body)
	}
	encode := func(obj api.Object) string {
		data, err := json.Marshal(obj)
		require.NoError(t, err)
		return string(data)
	}
	ctx := context.Background()
	for _, r := range []struct{ group, resource, ns string }{
		{"", "limitranges", "default"}, {api.SchedulingGroupName, "priorityclasses", ""}, {"", "namespaces", ""},
	} {
		st, ok := srv.Store(r.group, "v1", r.resource)
		require.True(t, ok, r.resource)
		shared, err := st.ListShared(ctx, r.ns, registry.ListOptions{})
		require.NoError(t, err)
		stored, err := st.List(ctx, r.ns, registry.ListOptions{})
		require.NoError(t, err)
		require.NotEmpty(t, stored.Items, r.resource)
		require.Len(t, shared.Items, len(stored.Items), r.resource)
		for i := range stored.Items {
			assert.Equal(t, encode(stored.Items[i]), encode(shared.Items[i]), r.resource)
		}
	}
	namespaces, ok := srv.Store("", "v1", "namespaces")
	require.True(t, ok)
	shared, err := namespaces.GetShared(ctx, "", "default")
	require.NoError(t, err)
	stored, err := namespaces.Get(ctx, "", "default")
	require.NoError(t, err)
	assert.Equal(t, encode(stored), encode(shared))
}
