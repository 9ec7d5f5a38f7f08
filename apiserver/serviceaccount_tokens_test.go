package apiserver_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/pki"
	"github.com/kubesim/kubesim/store/boltstore"
)

// saServer is rbacServer with service account tokens, the ServiceAccount
// admission plugin, and anonymous requests as asked.
func saServer(t testing.TB, anonymous bool) (*apiserver.Server, *clock.Fake) {
	t.Helper()
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	require.NoError(t, err)
	clk := clock.NewFake(apiservertest.Start)
	srv, err := apiserver.New(apiserver.Config{
		Storage: st, Clock: clk, Rand: rand.NewChaCha8([32]byte{1}), Resources: kinds.Builtin(),
		Authenticator: authn.NewTokenAuthenticator(map[string]authn.UserInfo{
			"admin-token": {Name: "admin", Groups: []string{"system:masters"}},
		}),
		AuthorizationMode: authz.ModeRBAC, ServiceAccountKey: key, ServiceAccountAdmission: true, AnonymousAuth: anonymous,
	})
	require.NoError(t, err)
	require.NoError(t, srv.Bootstrap(context.Background()))
	return srv, clk
}

func whoami(t testing.TB, srv *apiserver.Server, token string) (int, authenticationv1.UserInfo) {
	t.Helper()
	code, _, out := call(t, srv.Handler(), token, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
		`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)
	var rev authenticationv1.SelfSubjectReview
	_ = json.Unmarshal([]byte(out), &rev)
	return code, rev.Status.UserInfo
}

func TestTokenRequest(t *testing.T) {
	srv, clk := saServer(t, false)
	h := srv.Handler()
	const tokenPath = "/api/v1/namespaces/default/serviceaccounts/default/token"

	code, _, out := call(t, h, "admin-token", "POST", tokenPath, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}`)
	require.Equal(t, 201, code, out)
	var tr authenticationv1.TokenRequest
	require.NoError(t, json.Unmarshal([]byte(out), &tr))
	assert.Equal(t, "TokenRequest", tr.Kind)
	assert.Equal(t, []string{"https://kubernetes.default.svc.cluster.local"}, tr.Spec.Audiences)
	assert.Equal(t, int64(3600), *tr.Spec.ExpirationSeconds)
	assert.Equal(t, apiservertest.Start.Add(time.Hour), tr.Status.ExpirationTimestamp.Time.UTC())

	code, u := whoami(t, srv, tr.Status.Token)
	require.Equal(t, 201, code)
	assert.Equal(t, "system:serviceaccount:default:default", u.Username)
	assert.Equal(t, []string{"system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"}, u.Groups)

	// An hour later it is expired: 401 with the real Status.
	clk.Step(time.Hour)
	code, st, _ := call(t, h, tr.Status.Token, "GET", "/api/v1/namespaces/default/pods", "")
	assert.Equal(t, 401, code)
	assert.Equal(t, metav1.StatusReason("Unauthorized"), st.Reason)

	_, _, out = call(t, h, "admin-token", "POST", "/api/v1/namespaces/default/pods",
		`{"metadata":{"name":"web"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`)
	var pod corev1.Pod
	require.NoError(t, json.Unmarshal([]byte(out), &pod))
	_, _, out = call(t, h, "admin-token", "POST", "/api/v1/namespaces/default/serviceaccounts",
		`{"metadata":{"name":"other"}}`)
	_ = out

	for _, tc := range []struct {
		name, path, body string
		code             int
		message          string
	}{
		{"too short", tokenPath, `{"spec":{"expirationSeconds":599}}`, 422,
			`TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes`},
		{"too long", tokenPath, `{"spec":{"expirationSeconds":4294967297}}`, 422,
			`TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds`},
		{"no such account", "/api/v1/namespaces/default/serviceaccounts/nobody/token", `{}`, 404, `serviceaccounts "nobody" not found`},
		{"unsupported kind", tokenPath, `{"spec":{"boundObjectRef":{"kind":"Deployment","name":"x"}}}`, 400,
			`cannot bind token for serviceaccount "default" to object of kind "Deployment"`},
		{"no such pod", tokenPath, `{"spec":{"boundObjectRef":{"kind":"Pod","name":"x"}}}`, 404, `pods "x" not found`},
		{"pod of another account", "/api/v1/namespaces/default/serviceaccounts/other/token", `{"spec":{"boundObjectRef":{"kind":"Pod","name":"web"}}}`, 400,
			`cannot bind token for serviceaccount "other" to pod running with different serviceaccount name.`},
		{"stale pod uid", tokenPath, `{"spec":{"boundObjectRef":{"kind":"Pod","name":"web","uid":"old"}}}`, 409,
			`Operation cannot be fulfilled on serviceaccounts "default": the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, st, out := call(t, h, "admin-token", "POST", tc.path, tc.body)
			assert.Equal(t, tc.code, code, out)
			assert.Equal(t, tc.message, st.Message)
		})
	}

	t.Run("bound to a pod", func(t *testing.T) {
		code, _, out := call(t, h, "admin-token", "POST", tokenPath, `{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"web"}}}`)
		require.Equal(t, 201, code, out)
		var tr authenticationv1.TokenRequest
		require.NoError(t, json.Unmarshal([]byte(out), &tr))
		assert.Equal(t, pod.UID, tr.Spec.BoundObjectRef.UID)
		code, u := whoami(t, srv, tr.Status.Token)
		require.Equal(t, 201, code)
		assert.Equal(t, "system:serviceaccount:default:default", u.Username)
		code, _, _ = call(t, h, "admin-token", "DELETE", "/api/v1/namespaces/default/pods/web", "")
		require.Equal(t, 200, code)
		code, _ = whoami(t, srv, tr.Status.Token)
		assert.Equal(t, 401, code, "the pod is being deleted")
	})
}

func TestAnonymousAuth(t *testing.T) {
	off, _ := saServer(t, false)
	code, st, _ := call(t, off.Handler(), "", "GET", "/version", "")
	assert.Equal(t, 401, code)
	assert.Equal(t, "Unauthorized", st.Message)

	on, _ := saServer(t, true)
	code, _, _ = call(t, on.Handler(), "", "GET", "/version", "")
	assert.Equal(t, 200, code)
	// system:basic-user is bound to system:authenticated only: anonymous
	// may not even ask who it is, as in Kubernetes.
	code, st, _ = call(t, on.Handler(), "", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
		`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)
	assert.Equal(t, 403, code)
	assert.Contains(t, st.Message, `User "system:anonymous" cannot create resource "selfsubjectreviews"`)
	code, st, _ = call(t, on.Handler(), "", "GET", "/api/v1/namespaces/default/pods", "")
	assert.Equal(t, 403, code)
	assert.Equal(t, `pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default"`, st.Message)
	// A bad token is still refused, not let in as anonymous.
	code, _, _ = call(t, on.Handler(), "bad", "GET", "/version", "")
	assert.Equal(t, 401, code)
}

// BenchmarkAuthenticate measures each authenticator's cost per request:
// a static token (a map lookup), a client certificate (a chain
// verification: an ECDSA signature check), and a service account JWT (an
// ECDSA signature check, JSON decoding, and reading the account from
// storage).
func BenchmarkAuthenticate(b *testing.B) {
	srv, _ := saServer(b, false)
	st, ok := srv.Store("", "v1", "serviceaccounts")
	require.True(b, ok)
	obj, err := st.Get(context.Background(), "default", "default")
	require.NoError(b, err)
	tok, _, err := srv.Tokens().Issue(obj.(*corev1.ServiceAccount), nil, nil, nil, srv.Tokens().Audiences(), time.Hour)
	require.NoError(b, err)

	ca, err := pki.EnsureServing(b.TempDir(), nil, time.Now(), crand.Reader)
	require.NoError(b, err)
	certPEM, _, err := ca.IssueClientCert("alice", []string{"dev"}, time.Now(), crand.Reader)
	require.NoError(b, err)
	cert, err := pki.ParseCertPEM("bench", certPEM)
	require.NoError(b, err)
	tokens := authn.NewTokenAuthenticator(map[string]authn.UserInfo{"admin-token": {Name: "admin"}})
	certs := &authn.ClientCertAuthenticator{Roots: ca.CertPool(), Now: time.Now}
	b.Run("token-file", func(b *testing.B) {
		req := httptest.NewRequest("GET", "/api", nil)
		req.Header.Set("Authorization", "Bearer admin-token")
		for b.Loop() {
			if _, ok, err := tokens.AuthenticateRequest(req); !ok || err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("client-certificate", func(b *testing.B) {
		req := httptest.NewRequest("GET", "/api", nil)
		req.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}}
		for b.Loop() {
			if _, ok, err := certs.AuthenticateRequest(req); !ok || err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("serviceaccount-jwt", func(b *testing.B) {
		for b.Loop() {
			if _, ok, err := srv.Tokens().AuthenticateToken(context.Background(), tok); !ok || err != nil {
				b.Fatal(err)
			}
		}
	})
}
