package impersonation

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
)

// policy is an authorizer that allows what its rules allow to "admin" and
// nothing else: enough RBAC to test which attributes the filter asks.
type policy struct {
	rules []rbacv1.PolicyRule
	asked []authz.Attributes
}

func (p *policy) Authorize(_ context.Context, a authz.Attributes) (authz.Decision, string, error) {
	p.asked = append(p.asked, a)
	if a.User.Name == "admin" {
		for i := range p.rules {
			if authz.RuleAllows(a, &p.rules[i]) {
				return authz.DecisionAllow, "", nil
			}
		}
	}
	return authz.DecisionNoOpinion, "", nil
}

// serve sends a GET with headers as the authenticated user, through the
// filter, and returns the response and the user the handler saw.
func serve(t *testing.T, a authz.Authorizer, requestor string, headers http.Header) (*httptest.ResponseRecorder, *authn.UserInfo, http.Header) {
	t.Helper()
	var seen *authn.UserInfo
	var seenHeaders http.Header
	h := WithImpersonation(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, _ = authn.UserFrom(r.Context())
		seenHeaders = r.Header.Clone()
	}), a)
	req := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/pods", nil)
	for k, vs := range headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	u := &authn.UserInfo{Name: requestor, UID: requestor + "-uid", Groups: []string{"ops", authn.AllAuthenticated}}
	req = req.WithContext(authn.WithUser(req.Context(), u))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w, seen, seenHeaders
}

func status(t *testing.T, w *httptest.ResponseRecorder) metav1.Status {
	t.Helper()
	var st metav1.Status
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &st), w.Body.String())
	return st
}

var everything = []rbacv1.PolicyRule{{Verbs: []string{"impersonate"}, APIGroups: []string{"", "authentication.k8s.io"},
	Resources: []string{"users", "groups", "uids", "userextras/scopes", "serviceaccounts"}}}

func TestNoHeadersPassesTheUserUnchanged(t *testing.T) {
	p := &policy{}
	w, seen, _ := serve(t, p, "alice", nil)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "alice", seen.Name)
	assert.Empty(t, p.asked, "nothing to authorize")
}

func TestImpersonateUser(t *testing.T) {
	p := &policy{rules: everything}
	w, seen, hdr := serve(t, p, "admin", http.Header{"Impersonate-User": {"alice"}})
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	// Only the impersonated user: no uid or group of admin's is kept, and
	// system:authenticated is added.
	assert.Equal(t, &authn.UserInfo{Name: "alice", Groups: []string{authn.AllAuthenticated}}, seen)
	assert.Empty(t, hdr.Get("Impersonate-User"), "the headers are removed")
	require.Len(t, p.asked, 1)
	assert.Equal(t, authz.Attributes{User: p.asked[0].User, Verb: "impersonate", ResourceRequest: true, Resource: "users", Name: "alice"}, p.asked[0])
	assert.Equal(t, "admin", p.asked[0].User.Name, "the impersonator is authorized")
}

func TestImpersonateEverything(t *testing.T) {
	p := &policy{rules: everything}
	w, seen, hdr := serve(t, p, "admin", http.Header{
		"Impersonate-User":         {"bob"},
		"Impersonate-Group":        {"dev", "qa"},
		"Impersonate-Uid":          {"bob-uid"},
		"Impersonate-Extra-Scopes": {"view", "edit"},
	})
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, &authn.UserInfo{Name: "bob", UID: "bob-uid", Groups: []string{"dev", "qa", authn.AllAuthenticated},
		Extra: map[string][]string{"scopes": {"view", "edit"}}}, seen)
	assert.Empty(t, hdr.Values("Impersonate-Group"))
	assert.Empty(t, hdr.Values("Impersonate-Uid"))
	assert.Empty(t, hdr.Values("Impersonate-Extra-Scopes"))
	var asked []string
	for _, a := range p.asked {
		asked = append(asked, a.APIGroup+"|"+a.Resource+"/"+a.Subresource+"|"+a.Name)
	}
	assert.Equal(t, []string{"|users/|bob", "|groups/|dev", "|groups/|qa",
		"authentication.k8s.io|userextras/scopes|view", "authentication.k8s.io|userextras/scopes|edit",
		"authentication.k8s.io|uids/|bob-uid"}, asked)
}

func TestGroupsThatSayWhetherAuthenticatedAreKept(t *testing.T) {
	p := &policy{rules: everything}
	_, seen, _ := serve(t, p, "admin", http.Header{"Impersonate-User": {"bob"}, "Impersonate-Group": {authn.AllUnauthenticated}})
	assert.Equal(t, []string{authn.AllUnauthenticated}, seen.Groups)
	_, seen, _ = serve(t, p, "admin", http.Header{"Impersonate-User": {authn.Anonymous}})
	assert.Equal(t, []string{authn.AllUnauthenticated}, seen.Groups)
}

func TestImpersonateServiceAccount(t *testing.T) {
	p := &policy{rules: everything}
	w, seen, _ := serve(t, p, "admin", http.Header{"Impersonate-User": {"system:serviceaccount:team:builder"}})
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, "system:serviceaccount:team:builder", seen.Name)
	assert.Equal(t, []string{"system:serviceaccounts", "system:serviceaccounts:team", authn.AllAuthenticated}, seen.Groups)
	require.Len(t, p.asked, 1)
	assert.Equal(t, "serviceaccounts", p.asked[0].Resource)
	assert.Equal(t, "team", p.asked[0].Namespace)
	assert.Equal(t, "builder", p.asked[0].Name)
}

func TestRefused(t *testing.T) {
	cases := []struct {
		name    string
		rules   []rbacv1.PolicyRule
		headers http.Header
		want    string
	}{
		{"user", nil, http.Header{"Impersonate-User": {"bob"}},
			`users "bob" is forbidden: User "admin" cannot impersonate resource "users" in API group "" at the cluster scope`},
		{"one of the groups", []rbacv1.PolicyRule{{Verbs: []string{"impersonate"}, APIGroups: []string{""}, Resources: []string{"users", "groups"}, ResourceNames: []string{"bob", "dev"}}},
			http.Header{"Impersonate-User": {"bob"}, "Impersonate-Group": {"dev", "system:masters"}},
			`groups "system:masters" is forbidden: User "admin" cannot impersonate resource "groups" in API group "" at the cluster scope`},
		{"uid", []rbacv1.PolicyRule{{Verbs: []string{"impersonate"}, APIGroups: []string{""}, Resources: []string{"users"}}},
			http.Header{"Impersonate-User": {"bob"}, "Impersonate-Uid": {"u1"}},
			`uids.authentication.k8s.io "u1" is forbidden: User "admin" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope`},
		{"extra", []rbacv1.PolicyRule{{Verbs: []string{"impersonate"}, APIGroups: []string{""}, Resources: []string{"users"}}},
			http.Header{"Impersonate-User": {"bob"}, "Impersonate-Extra-Scopes": {"view"}},
			`userextras.authentication.k8s.io "view" is forbidden: User "admin" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope`},
		{"service account", nil, http.Header{"Impersonate-User": {"system:serviceaccount:team:builder"}},
			`serviceaccounts "builder" is forbidden: User "admin" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var reached bool
			h := WithImpersonation(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true }), &policy{rules: tc.rules})
			req := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
			req.Header = tc.headers
			req = req.WithContext(authn.WithUser(req.Context(), &authn.UserInfo{Name: "admin"}))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			assert.False(t, reached)
			require.Equal(t, http.StatusForbidden, w.Code)
			st := status(t, w)
			assert.Equal(t, metav1.StatusReasonForbidden, st.Reason)
			assert.Equal(t, tc.want, st.Message)
		})
	}
}

// Groups without a user: kube-apiserver's plain-text 500.
func TestGroupWithoutUser(t *testing.T) {
	p := &policy{rules: everything}
	w, seen, _ := serve(t, p, "admin", http.Header{"Impersonate-Group": {"dev"}})
	assert.Nil(t, seen)
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Equal(t, `Internal Server Error: "/api/v1/namespaces/default/pods": requested [{Group  dev    }] without impersonating a user`+"\n", w.Body.String())
	w, _, _ = serve(t, p, "admin", http.Header{"Impersonate-Uid": {"u1"}})
	assert.Equal(t, `Internal Server Error: "/api/v1/namespaces/default/pods": requested [{UID  u1  authentication.k8s.io/v1  }] without impersonating a user`+"\n", w.Body.String())
	assert.Empty(t, p.asked)
}

func TestExtraKeyIsUnescaped(t *testing.T) {
	p := &policy{rules: []rbacv1.PolicyRule{{Verbs: []string{"impersonate"}, APIGroups: []string{"*"}, Resources: []string{"*"}}}}
	_, seen, _ := serve(t, p, "admin", http.Header{"Impersonate-User": {"bob"}, "Impersonate-Extra-Example.com%2fteam": {"a"}})
	require.NotNil(t, seen)
	assert.Equal(t, map[string][]string{"example.com/team": {"a"}}, seen.Extra)
}

func TestSplitServiceAccount(t *testing.T) {
	for user, want := range map[string][2]string{
		"system:serviceaccount:ns:sa": {"ns", "sa"},
		"system:serviceaccount:ns":    {},
		"system:serviceaccount::sa":   {},
		"system:serviceaccount:a:b:c": {},
		"alice":                       {},
	} {
		ns, name, ok := splitServiceAccount(user)
		assert.Equal(t, want, [2]string{ns, name}, user)
		assert.Equal(t, want != [2]string{}, ok, user)
	}
}
