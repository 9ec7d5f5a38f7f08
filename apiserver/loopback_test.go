package apiserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/request"
)

// A component's in-process requests are authorized as the identity the
// code attached; nothing the request carries changes it — a token, an
// impersonation header, a front-proxy header — and without an identity
// the loopback is the API server's own, allowed everything.
func TestLoopbackIdentity(t *testing.T) {
	srv := rbacServer(t, "Node,RBAC")
	kubelet := apiserver.LoopbackAs(srv.LoopbackHandler(), apiserver.FixedIdentity(&authn.UserInfo{Name: "system:node:node-1",
		Groups: []string{"system:nodes", authn.AllAuthenticated}}))

	code, st, _ := call(t, kubelet, "admin-token", "GET", "/api/v1/namespaces/default/secrets", "")
	assert.Equal(t, http.StatusForbidden, code, "the token is not looked at")
	assert.Equal(t, `secrets is forbidden: User "system:node:node-1" cannot list resource "secrets" in API group "" in the namespace "default": No Object name found`, st.Message)

	for _, h := range []string{"Impersonate-User", "X-Remote-User"} {
		req := http.Header{h: {"admin"}}
		code, st, _ := callWithHeaders(t, kubelet, req, "GET", "/api/v1/nodes")
		assert.Equal(t, http.StatusForbidden, code, h)
		assert.Contains(t, st.Message, `User "system:node:node-1" cannot list resource "nodes"`, h)
	}

	code, _, _ = call(t, kubelet, "", "GET", "/api/v1/nodes/node-1", "")
	assert.Equal(t, http.StatusNotFound, code, "its own node may be read (it does not exist yet)")

	code, _, _ = call(t, srv.LoopbackHandler(), "", "GET", "/api/v1/namespaces/default/secrets", "")
	assert.Equal(t, http.StatusOK, code, "the API server's own loopback")
	code, _, _ = call(t, apiserver.LoopbackAs(srv.LoopbackHandler(), apiserver.FixedIdentity(nil)), "", "GET", "/api/v1/namespaces/default/secrets", "")
	assert.Equal(t, http.StatusOK, code, "no identity: the privileged loopback")
}

func callWithHeaders(t testing.TB, h http.Handler, hdr http.Header, method, path string) (int, metav1.Status, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range hdr {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var st metav1.Status
	_ = json.Unmarshal(rec.Body.Bytes(), &st)
	return rec.Code, st, rec.Body.String()
}

// An in-process call made while serving another request (a kubelet
// reading a ConfigMap during an exec) runs in that request's context: its
// user and request info are the outer request's and must not be taken for
// this one's.
func TestLoopbackIgnoresTheCallersRequest(t *testing.T) {
	srv := rbacServer(t, "Node,RBAC")
	outer := httptest.NewRequest("POST", "/api/v1/namespaces/default/pods/web/exec", nil)
	ctx := authn.WithUser(outer.Context(), &authn.UserInfo{Name: "bob", Groups: []string{authn.AllAuthenticated}})
	ctx = request.WithInfo(ctx, request.Parse(outer))

	serve := func(h http.Handler, path string) int {
		req := httptest.NewRequest("GET", path, nil).WithContext(ctx)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	assert.Equal(t, http.StatusOK, serve(srv.LoopbackHandler(), "/api/v1/namespaces/default/secrets"),
		"the privileged loopback, not bob")
	kubelet := apiserver.LoopbackAs(srv.LoopbackHandler(), apiserver.FixedIdentity(&authn.UserInfo{Name: "system:node:node-1",
		Groups: []string{"system:nodes", authn.AllAuthenticated}}))
	assert.Equal(t, http.StatusNotFound, serve(kubelet, "/api/v1/nodes/node-1"),
		"the kubelet's own node, authorized as a get of nodes (not as bob's exec)")
	assert.Equal(t, http.StatusForbidden, serve(kubelet, "/api/v1/nodes"), "and as the kubelet")
}

// Writes counts every answered request that is not a read, through either
// chain, refused ones too; reads leave it alone.
func TestWritesCountsAnsweredRequestsThatAreNotReads(t *testing.T) {
	srv := rbacServer(t, "Node,RBAC")
	before := srv.Writes()
	code, _, _ := call(t, srv.LoopbackHandler(), "", "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"a"}}`)
	assert.Equal(t, http.StatusCreated, code)
	assert.Equal(t, before+1, srv.Writes())
	call(t, srv.LoopbackHandler(), "", "GET", "/api/v1/namespaces/default/configmaps", "")
	call(t, srv.Handler(), "admin-token", "GET", "/api/v1/namespaces/default/configmaps/a", "")
	assert.Equal(t, before+1, srv.Writes(), "reads are not counted")
	code, _, _ = call(t, srv.Handler(), "bob-token", "DELETE", "/api/v1/namespaces/default/configmaps/a", "")
	assert.Equal(t, http.StatusForbidden, code)
	call(t, srv.Handler(), "admin-token", "PATCH", "/api/v1/namespaces/default/configmaps/a", `{"data":{"k":"v"}}`)
	assert.Equal(t, before+3, srv.Writes(), "the HTTPS chain's writes, refused or not")
}
