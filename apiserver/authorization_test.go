package apiserver_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

// rbacServer is an API server with token authentication and RBAC: the
// admin in system:masters, alice in dev, bob in nothing.
func rbacServer(t testing.TB, mode string) *apiserver.Server {
	t.Helper()
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	srv, err := apiserver.New(apiserver.Config{
		Storage: st, Clock: clock.NewFake(apiservertest.Start), Rand: rand.NewChaCha8([32]byte{1}), Resources: kinds.Builtin(),
		Authenticator: authn.NewTokenAuthenticator(map[string]authn.UserInfo{
			"admin-token": {Name: "admin", Groups: []string{"system:masters"}},
			"alice-token": {Name: "alice", Groups: []string{"dev"}},
			"bob-token":   {Name: "bob"},
		}),
		AuthorizationMode: mode,
	})
	require.NoError(t, err)
	require.NoError(t, srv.Bootstrap(context.Background()))
	return srv
}

// call makes one request as the token's user and returns the code and
// the Status (if the answer is one).
func call(t testing.TB, h http.Handler, token, method, path, body string) (int, metav1.Status, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var st metav1.Status
	_ = json.Unmarshal(rec.Body.Bytes(), &st)
	return rec.Code, st, rec.Body.String()
}

func TestAuthorizationRBAC(t *testing.T) {
	srv := rbacServer(t, authz.ModeRBAC)
	h := srv.Handler()
	pods := "/api/v1/namespaces/default/pods"

	code, st, _ := call(t, h, "alice-token", "GET", pods, "")
	assert.Equal(t, 403, code)
	assert.Equal(t, metav1.StatusReasonForbidden, st.Reason)
	assert.Equal(t, `pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"`, st.Message)
	// Refused before the body is read: a body that does not decode still
	// gets the 403.
	code, st, _ = call(t, h, "alice-token", "POST", pods, "{not json")
	assert.Equal(t, 403, code)
	assert.Equal(t, `pods is forbidden: User "alice" cannot create resource "pods" in API group "" in the namespace "default"`, st.Message)

	// Discovery and the version are everyone's (system:discovery,
	// system:public-info-viewer).
	for _, p := range []string{"/api", "/apis", "/api/v1", "/apis/rbac.authorization.k8s.io/v1", "/version", "/healthz"} {
		code, _, _ = call(t, h, "bob-token", "GET", p, "")
		assert.Equal(t, 200, code, p)
	}
	code, st, _ = call(t, h, "bob-token", "GET", "/metrics", "")
	assert.Equal(t, 403, code)
	assert.Equal(t, `forbidden: User "bob" cannot get path "/metrics"`, st.Message)

	// The admin is in system:masters; the loopback has no user and is not
	// authorized (the control plane itself).
	code, _, _ = call(t, h, "admin-token", "GET", pods, "")
	assert.Equal(t, 200, code)
	code, _, _ = call(t, srv.LoopbackHandler(), "", "GET", pods, "")
	assert.Equal(t, 200, code)

	// A Role and a RoleBinding: alice may list pods, at once (the
	// authorizer's cache follows writes).
	code, _, body := call(t, h, "admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
		`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"pod-reader"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list","watch"]}]}`)
	require.Equal(t, 201, code, body)
	code, _, body = call(t, h, "admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
		`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"read-pods"},"subjects":[{"kind":"Group","name":"dev"}],"roleRef":{"kind":"Role","name":"pod-reader"}}`)
	require.Equal(t, 201, code, body)
	code, _, _ = call(t, h, "alice-token", "GET", pods, "")
	assert.Equal(t, 200, code)
	code, _, _ = call(t, h, "alice-token", "GET", "/api/v1/namespaces/kube-system/pods", "")
	assert.Equal(t, 403, code, "a RoleBinding is for its namespace only")
	code, _, _ = call(t, h, "bob-token", "GET", pods, "")
	assert.Equal(t, 403, code, "bob is not in dev")

	// The binding's role cannot change.
	code, st, _ = call(t, h, "admin-token", "PUT", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/read-pods",
		`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"read-pods"},"subjects":[{"kind":"Group","name":"dev"}],"roleRef":{"kind":"ClusterRole","name":"view"}}`)
	assert.Equal(t, 422, code)
	assert.Contains(t, st.Message, "cannot change roleRef")

	// Deleting the binding takes the permission away.
	code, _, _ = call(t, h, "admin-token", "DELETE", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/read-pods", "")
	require.Equal(t, 200, code)
	code, _, _ = call(t, h, "alice-token", "GET", pods, "")
	assert.Equal(t, 403, code)
}

func TestAuthorizationAlwaysAllow(t *testing.T) {
	srv := rbacServer(t, authz.ModeAlwaysAllow)
	code, _, _ := call(t, srv.Handler(), "bob-token", "GET", "/api/v1/namespaces/default/pods", "")
	assert.Equal(t, 200, code)
	code, _, _ = call(t, srv.Handler(), "bob-token", "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin", "")
	assert.Equal(t, 404, code, "no bootstrap policy without RBAC")
}

func TestEscalationCheck(t *testing.T) {
	srv := rbacServer(t, authz.ModeRBAC)
	h := srv.Handler()
	rbacURL := "/apis/rbac.authorization.k8s.io/v1/namespaces/default/"
	admin := func(path, body string) {
		t.Helper()
		code, _, out := call(t, h, "admin-token", "POST", path, body)
		require.Equal(t, 201, code, out)
	}
	// alice may manage roles and bindings in default and read pods.
	admin(rbacURL+"roles", `{"metadata":{"name":"binder"},"rules":[{"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles","rolebindings"],"verbs":["create","update"]},{"apiGroups":[""],"resources":["pods"],"verbs":["get","list","watch"]}]}`)
	admin(rbacURL+"rolebindings", `{"metadata":{"name":"binder"},"subjects":[{"kind":"User","name":"alice"}],"roleRef":{"kind":"Role","name":"binder"}}`)
	admin(rbacURL+"roles", `{"metadata":{"name":"pod-reader"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}]}`)

	// Within what she holds: allowed.
	code, _, out := call(t, h, "alice-token", "POST", rbacURL+"rolebindings", `{"metadata":{"name":"bob-reads"},"subjects":[{"kind":"User","name":"bob"}],"roleRef":{"kind":"Role","name":"pod-reader"}}`)
	assert.Equal(t, 201, code, out)
	code, _, out = call(t, h, "alice-token", "POST", rbacURL+"roles", `{"metadata":{"name":"mine"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["watch"]}]}`)
	assert.Equal(t, 201, code, out)

	// Beyond: refused with the escalation message.
	code, st, _ := call(t, h, "alice-token", "POST", rbacURL+"roles", `{"metadata":{"name":"deleter"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","delete"]}]}`)
	assert.Equal(t, 403, code)
	assert.Equal(t, `roles.rbac.authorization.k8s.io "deleter" is forbidden: user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:`+"\n"+`{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`, st.Message)
	code, st, _ = call(t, h, "alice-token", "POST", rbacURL+"rolebindings", `{"metadata":{"name":"bob-admin"},"subjects":[{"kind":"User","name":"bob"}],"roleRef":{"kind":"ClusterRole","name":"cluster-admin"}}`)
	assert.Equal(t, 403, code)
	assert.True(t, strings.HasPrefix(st.Message, `rolebindings.rbac.authorization.k8s.io "bob-admin" is forbidden: user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:`+"\n"), st.Message)
	code, st, _ = call(t, h, "alice-token", "POST", rbacURL+"rolebindings", `{"metadata":{"name":"dangling"},"subjects":[{"kind":"User","name":"bob"}],"roleRef":{"kind":"Role","name":"nope"}}`)
	assert.Equal(t, 404, code)
	assert.Equal(t, `role.rbac.authorization.k8s.io "nope" not found`, st.Message)

	// An update that leaves the rules as they are is not an escalation,
	// even of a role with rules she does not hold; one that adds is.
	admin(rbacURL+"roles", `{"metadata":{"name":"big"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["delete"]}]}`)
	code, _, out = call(t, h, "alice-token", "PUT", rbacURL+"roles/big", `{"metadata":{"name":"big","labels":{"team":"dev"}},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["delete"]}]}`)
	assert.Equal(t, 200, code, out)
	code, st, _ = call(t, h, "alice-token", "PUT", rbacURL+"roles/big", `{"metadata":{"name":"big"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["delete","create"]}]}`)
	assert.Equal(t, 403, code)
	// The whole new rule set is checked, so delete is missing too; the
	// message puts the verbs of one resource on one line.
	assert.Contains(t, st.Message, "\n"+`{APIGroups:[""], Resources:["pods"], Verbs:["delete" "create"]}`)

	// With the bind verb on cluster-admin, she may bind it; with escalate
	// on roles, she may write any role.
	admin(rbacURL+"roles", `{"metadata":{"name":"powers"},"rules":[{"apiGroups":["rbac.authorization.k8s.io"],"resources":["clusterroles"],"verbs":["bind"],"resourceNames":["cluster-admin"]},{"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles"],"verbs":["escalate"]}]}`)
	admin(rbacURL+"rolebindings", `{"metadata":{"name":"powers"},"subjects":[{"kind":"User","name":"alice"}],"roleRef":{"kind":"Role","name":"powers"}}`)
	code, _, out = call(t, h, "alice-token", "POST", rbacURL+"rolebindings", `{"metadata":{"name":"bob-admin"},"subjects":[{"kind":"User","name":"bob"}],"roleRef":{"kind":"ClusterRole","name":"cluster-admin"}}`)
	assert.Equal(t, 201, code, out)
	code, _, out = call(t, h, "alice-token", "POST", rbacURL+"roles", `{"metadata":{"name":"deleter"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","delete"]}]}`)
	assert.Equal(t, 201, code, out)
}

func TestAccessReviews(t *testing.T) {
	srv := rbacServer(t, authz.ModeRBAC)
	h := srv.Handler()
	code, _, out := call(t, h, "admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
		`{"metadata":{"name":"pod-reader"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}]}`)
	require.Equal(t, 201, code, out)
	code, _, out = call(t, h, "admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
		`{"metadata":{"name":"r"},"subjects":[{"kind":"User","name":"alice"}],"roleRef":{"kind":"Role","name":"pod-reader"}}`)
	require.Equal(t, 201, code, out)

	ssar := func(token, verb, ns string) authorizationv1.SelfSubjectAccessReview {
		t.Helper()
		code, _, out := call(t, h, token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
			`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"`+verb+`","resource":"pods","namespace":"`+ns+`"}}}`)
		require.Equal(t, 201, code, out)
		var rev authorizationv1.SelfSubjectAccessReview
		require.NoError(t, json.Unmarshal([]byte(out), &rev))
		return rev
	}
	assert.True(t, ssar("alice-token", "list", "default").Status.Allowed)
	assert.False(t, ssar("alice-token", "delete", "default").Status.Allowed)
	assert.False(t, ssar("alice-token", "list", "kube-system").Status.Allowed)
	assert.False(t, ssar("bob-token", "list", "default").Status.Allowed, "bob may ask (system:basic-user) but not list")

	code, st, _ := call(t, h, "alice-token", "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", `{"spec":{}}`)
	assert.Equal(t, 422, code)
	assert.Contains(t, st.Message, "exactly one of nonResourceAttributes or resourceAttributes must be specified")
	code, _, _ = call(t, h, "alice-token", "GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "")
	assert.Equal(t, 403, code, "alice may not list them")
	code, _, _ = call(t, h, "admin-token", "GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "")
	assert.Equal(t, 405, code, "never stored, so never listed")

	// SubjectAccessReview: the admin asks about alice; alice may not ask.
	sar := `{"spec":{"user":"alice","resourceAttributes":{"verb":"get","resource":"pods","namespace":"default"}}}`
	code, _, out = call(t, h, "admin-token", "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar)
	require.Equal(t, 201, code, out)
	assert.Contains(t, out, `"allowed":true`)
	code, _, _ = call(t, h, "alice-token", "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar)
	assert.Equal(t, 403, code)

	// SelfSubjectRulesReview lists alice's rules in default.
	code, _, out = call(t, h, "alice-token", "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", `{"spec":{"namespace":"default"}}`)
	require.Equal(t, 201, code, out)
	var rr authorizationv1.SelfSubjectRulesReview
	require.NoError(t, json.Unmarshal([]byte(out), &rr))
	assert.Contains(t, rr.Status.ResourceRules, authorizationv1.ResourceRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}})
	assert.Contains(t, rr.Status.ResourceRules, authorizationv1.ResourceRule{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}})
	assert.NotEmpty(t, rr.Status.NonResourceRules)
	assert.False(t, rr.Status.Incomplete)
	code, st, _ = call(t, h, "alice-token", "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", `{"spec":{}}`)
	assert.Equal(t, 400, code)
	assert.Equal(t, "no namespace on request", st.Message)

	// Discovery says they are create-only.
	code, _, out = call(t, h, "bob-token", "GET", "/apis/authorization.k8s.io/v1", "")
	require.Equal(t, 200, code, out)
	var list metav1.APIResourceList
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	require.NotEmpty(t, list.APIResources)
	for _, r := range list.APIResources {
		assert.Equal(t, metav1.Verbs{"create"}, r.Verbs, r.Name)
	}

	// SelfSubjectReview: who am I.
	code, _, out = call(t, h, "alice-token", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{}`)
	require.Equal(t, 201, code, out)
	var who authenticationv1.SelfSubjectReview
	require.NoError(t, json.Unmarshal([]byte(out), &who))
	assert.Equal(t, authenticationv1.UserInfo{Username: "alice", Groups: []string{"dev", "system:authenticated"}}, who.Status.UserInfo)
}

// BenchmarkAuthorizedGet measures what authorization adds to a request:
// alice, allowed by a RoleBinding, gets a namespace (RBAC), against the
// same request under AlwaysAllow.
func BenchmarkAuthorizedGet(b *testing.B) {
	for _, mode := range []string{authz.ModeAlwaysAllow, authz.ModeRBAC} {
		b.Run(mode, func(b *testing.B) {
			srv := rbacServer(b, mode)
			h := srv.Handler()
			if mode == authz.ModeRBAC {
				code, _, out := call(b, h, "admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
					`{"metadata":{"name":"alice-view"},"subjects":[{"kind":"User","name":"alice"}],"roleRef":{"kind":"ClusterRole","name":"view"}}`)
				require.Equal(b, 201, code, out)
			}
			b.ResetTimer()
			for b.Loop() {
				req := httptest.NewRequest("GET", "/api/v1/namespaces/default", nil)
				req.Header.Set("Authorization", "Bearer alice-token")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatal(rec.Code, rec.Body.String())
				}
			}
		})
	}
}
