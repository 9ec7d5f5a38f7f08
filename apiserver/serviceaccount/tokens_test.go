package serviceaccount

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"maps"
	"math/big"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/clock"
)

// world is the objects the getters find.
type world struct {
	accounts map[string]*corev1.ServiceAccount
	pods     map[string]*corev1.Pod
	secrets  map[string]*corev1.Secret
}

func get[T any](m map[string]T, resource string) func(context.Context, string, string) (T, error) {
	return func(_ context.Context, ns, name string) (T, error) {
		v, ok := m[ns+"/"+name]
		if !ok {
			var zero T
			return zero, api.NewNotFound(schema.GroupResource{Resource: resource}, name)
		}
		return v, nil
	}
}

func newTokens(t testing.TB, key *ecdsa.PrivateKey, clk clock.Clock, w *world, audiences ...string) *Tokens {
	t.Helper()
	tk, err := New(Config{Key: key, Clock: clk, Rand: rand.Reader, Audiences: audiences,
		GetServiceAccount: get(w.accounts, "serviceaccounts"), GetPod: get(w.pods, "pods"), GetSecret: get(w.secrets, "secrets")})
	require.NoError(t, err)
	return tk
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	return key
}

func newWorld() *world {
	return &world{
		accounts: map[string]*corev1.ServiceAccount{"ns/robot": {ObjectMeta: metav1.ObjectMeta{Name: "robot", Namespace: "ns", UID: "sa-uid"}}},
		pods:     map[string]*corev1.Pod{"ns/web": {ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "pod-uid"}, Spec: corev1.PodSpec{ServiceAccountName: "robot"}}},
		secrets:  map[string]*corev1.Secret{"ns/s": {ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "secret-uid"}}},
	}
}

// tamper changes one character of the claims part, keeping it base64url.
func tamper(token string) string {
	parts := strings.Split(token, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	payload = []byte(strings.Replace(string(payload), `"robot"`, `"admin"`, 1))
	parts[1] = base64.RawURLEncoding.EncodeToString(payload)
	return strings.Join(parts, ".")
}

// resign signs arbitrary claims with key, to forge what a valid signer
// would never issue.
func resign(t *testing.T, key *ecdsa.PrivateKey, claims any) string {
	kid, err := KeyID(&key.PublicKey)
	require.NoError(t, err)
	tok, err := signJWT(key, kid, claims, rand.Reader)
	require.NoError(t, err)
	return tok
}

func TestTokens(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	key, otherKey := newKey(t), newKey(t)
	w := newWorld()
	sa, pod := w.accounts["ns/robot"], w.pods["ns/web"]

	type tc struct {
		name    string
		token   func(tk *Tokens, clk *clock.Fake) string
		mutate  func(w *world, clk *clock.Fake)
		wantOK  bool
		wantErr string // "" with wantOK false: not ours
		user    string
	}
	issue := func(pod *corev1.Pod, aud []string, d time.Duration) func(tk *Tokens, _ *clock.Fake) string {
		return func(tk *Tokens, _ *clock.Fake) string {
			tok, _, err := tk.Issue(sa, pod, nil, nil, aud, d)
			require.NoError(t, err)
			return tok
		}
	}
	cases := []tc{
		{name: "valid", token: issue(nil, []string{DefaultIssuer}, time.Hour), wantOK: true},
		{name: "valid bound to a pod", token: issue(pod, []string{DefaultIssuer}, time.Hour), wantOK: true},
		{name: "one audience of several", token: issue(nil, []string{"vault", DefaultIssuer}, time.Hour), wantOK: true},
		{name: "expired", token: issue(nil, []string{DefaultIssuer}, time.Hour),
			mutate: func(_ *world, clk *clock.Fake) { clk.Step(time.Hour) }, wantErr: "expired"},
		{name: "not yet valid", token: func(*Tokens, *clock.Fake) string {
			return resign(t, key, Claims{Issuer: DefaultIssuer, Subject: "system:serviceaccount:ns:robot", Audience: []string{DefaultIssuer},
				Expiry: start.Add(time.Hour).Unix(), NotBefore: start.Add(time.Minute).Unix(),
				Kubernetes: &PrivateClaims{Namespace: "ns", ServiceAccount: Ref{Name: "robot", UID: "sa-uid"}}})
		}, wantErr: "not valid yet"},
		{name: "wrong audience", token: issue(nil, []string{"vault"}, time.Hour), wantErr: "audiences"},
		{name: "tampered claims", token: func(tk *Tokens, c *clock.Fake) string {
			return tamper(issue(nil, []string{DefaultIssuer}, time.Hour)(tk, c))
		}, wantErr: "signature"},
		{name: "signed by another key", token: func(tk *Tokens, _ *clock.Fake) string {
			other := newTokens(t, otherKey, clock.NewFake(start), w)
			tok, _, err := other.Issue(sa, nil, nil, nil, []string{DefaultIssuer}, time.Hour)
			require.NoError(t, err)
			return tok
		}, wantErr: "key id"},
		{name: "alg none", token: func(tk *Tokens, c *clock.Fake) string {
			parts := strings.Split(issue(nil, []string{DefaultIssuer}, time.Hour)(tk, c), ".")
			parts[0] = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`))
			return parts[0] + "." + parts[1] + "."
		}, wantErr: "algorithm"},
		{name: "deleted service account", token: issue(nil, []string{DefaultIssuer}, time.Hour),
			mutate: func(w *world, _ *clock.Fake) { delete(w.accounts, "ns/robot") }, wantErr: `serviceaccounts "robot" not found`},
		{name: "recreated service account", token: issue(nil, []string{DefaultIssuer}, time.Hour),
			mutate: func(w *world, _ *clock.Fake) {
				w.accounts["ns/robot"] = &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot", Namespace: "ns", UID: "new"}}
			}, wantErr: "does not match claim"},
		{name: "deleted bound pod", token: issue(pod, []string{DefaultIssuer}, time.Hour),
			mutate: func(w *world, _ *clock.Fake) { delete(w.pods, "ns/web") }, wantErr: `pods "web" not found`},
		{name: "another issuer's JWT is not ours", token: func(*Tokens, *clock.Fake) string {
			return resign(t, key, Claims{Issuer: "https://elsewhere", Audience: []string{DefaultIssuer}, Expiry: start.Add(time.Hour).Unix()})
		}},
		{name: "an opaque token is not ours", token: func(*Tokens, *clock.Fake) string { return "abc123" }},
		{name: "claims without the account", token: func(*Tokens, *clock.Fake) string {
			return resign(t, key, Claims{Issuer: DefaultIssuer, Subject: "system:serviceaccount:ns:robot", Audience: []string{DefaultIssuer},
				Expiry: start.Add(time.Hour).Unix(), NotBefore: start.Unix()})
		}, wantErr: "incomplete"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld()
			clk := clock.NewFake(start)
			tk := newTokens(t, key, clk, w)
			token := c.token(tk, clk)
			if c.mutate != nil {
				c.mutate(w, clk)
			}
			req := httptest.NewRequest("GET", "/api", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			u, ok, err := tk.AuthenticateRequest(req)
			if c.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.wantErr)
				assert.False(t, ok)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.wantOK, ok)
			if !ok {
				return
			}
			assert.Equal(t, "system:serviceaccount:ns:robot", u.Name)
			assert.Equal(t, "sa-uid", u.UID)
			assert.Equal(t, []string{"system:serviceaccounts", "system:serviceaccounts:ns"}, u.Groups)
		})
	}
}

// TestTokenFormat decodes a token by hand, as a student would with
// base64 -d: the header, the claims and the 64-byte signature.
func TestTokenFormat(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	w := newWorld()
	tk := newTokens(t, newKey(t), clock.NewFake(start), w)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", UID: "node-uid"}}
	tok, exp, err := tk.Issue(w.accounts["ns/robot"], w.pods["ns/web"], node, nil, []string{"a", "b"}, 10*time.Minute)
	require.NoError(t, err)
	assert.Equal(t, start.Add(10*time.Minute), exp)
	parts := strings.Split(tok, ".")
	require.Len(t, parts, 3)
	header, err := base64.RawURLEncoding.DecodeString(parts[0])
	require.NoError(t, err)
	assert.JSONEq(t, `{"alg":"ES256","kid":"`+tk.kid+`"}`, string(header))
	claims, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(claims, &m))
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, m["jti"], "a random UUID")
	delete(m, "jti")
	rest, err := json.Marshal(m)
	require.NoError(t, err)
	assert.JSONEq(t, `{"iss":"https://kubernetes.default.svc.cluster.local","sub":"system:serviceaccount:ns:robot",
		"aud":["a","b"],"exp":1772367000,"iat":1772366400,"nbf":1772366400,
		"kubernetes.io":{"namespace":"ns","serviceaccount":{"name":"robot","uid":"sa-uid"},"pod":{"name":"web","uid":"pod-uid"},
		"node":{"name":"node-1","uid":"node-uid"}}}`, string(rest))
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	require.NoError(t, err)
	assert.Len(t, sig, 64)
}

// What a token says of itself once authenticated, as the ServiceAccounts
// conformance spec "should mount an API token into pods" reads it through
// a TokenReview: a credential-id naming the token's jti, and for a token
// bound to a scheduled pod, the pod and its node. Two tokens have two ids.
func TestAuthenticatedExtras(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	w := newWorld()
	tk := newTokens(t, newKey(t), clock.NewFake(start), w)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", UID: "node-uid"}}
	bound, _, err := tk.Issue(w.accounts["ns/robot"], w.pods["ns/web"], node, nil, []string{DefaultIssuer}, time.Hour)
	require.NoError(t, err)
	u, ok, err := tk.AuthenticateToken(context.Background(), bound)
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, u.Extra[CredentialIDKey], 1)
	assert.Regexp(t, `^JTI=[0-9a-f-]{36}$`, u.Extra[CredentialIDKey][0])
	assert.Equal(t, []string{"web"}, u.Extra[PodNameKey])
	assert.Equal(t, []string{"pod-uid"}, u.Extra[PodUIDKey])
	assert.Equal(t, []string{"node-1"}, u.Extra[NodeNameKey])
	assert.Equal(t, []string{"node-uid"}, u.Extra[NodeUIDKey])

	plain, _, err := tk.Issue(w.accounts["ns/robot"], nil, nil, nil, []string{DefaultIssuer}, time.Hour)
	require.NoError(t, err)
	u2, ok, err := tk.AuthenticateToken(context.Background(), plain)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, []string{CredentialIDKey}, slices.Collect(maps.Keys(u2.Extra)), "an unbound token names only itself")
	assert.NotEqual(t, u.Extra[CredentialIDKey], u2.Extra[CredentialIDKey])
}

func FuzzParseJWT(f *testing.F) {
	key := newKey(f)
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	w := newWorld()
	tk := newTokens(f, key, clock.NewFake(start), w)
	good, _, err := tk.Issue(w.accounts["ns/robot"], nil, nil, nil, []string{DefaultIssuer}, time.Hour)
	require.NoError(f, err)
	f.Add(good)
	f.Add(tamper(good))
	f.Add("a.b.c")
	f.Add("..")
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Fuzz(func(t *testing.T, token string) {
		u, ok, err := tk.AuthenticateToken(context.Background(), token)
		if ok {
			// Only a token the key signed can pass: the fuzzer cannot
			// forge an ECDSA signature, so it must be the seed itself.
			require.NoError(t, err)
			require.Equal(t, good, token)
			require.Equal(t, "system:serviceaccount:ns:robot", u.Name)
		}
	})
}

// The issuer discovery endpoints: the document names the issuer and where
// the keys are, and the key set's one key — found by the kid a token's
// header names — verifies that token, as an OIDC library outside the
// cluster would check it.
func TestIssuerDiscovery(t *testing.T) {
	w := newWorld()
	key := newKey(t)
	tk := newTokens(t, key, clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)), w)
	config, keys := tk.DiscoveryHandlers("")

	rec := httptest.NewRecorder()
	config.ServeHTTP(rec, httptest.NewRequest("GET", "https://kubernetes.default.svc.cluster.local"+OpenIDConfigPath, nil))
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.Equal(t, "public, max-age=3600", rec.Header().Get("Cache-Control"))
	assert.JSONEq(t, `{"issuer":"https://kubernetes.default.svc.cluster.local",
		"jwks_uri":"https://kubernetes.default.svc.cluster.local/openid/v1/jwks",
		"response_types_supported":["id_token"],"subject_types_supported":["public"],
		"id_token_signing_alg_values_supported":["ES256"]}`, rec.Body.String())

	rec = httptest.NewRecorder()
	keys.ServeHTTP(rec, httptest.NewRequest("GET", JWKSPath, nil))
	assert.Equal(t, "application/jwk-set+json", rec.Header().Get("Content-Type"))
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &set))
	require.Len(t, set.Keys, 1)
	k := set.Keys[0]
	assert.Equal(t, map[string]string{"use": "sig", "kty": "EC", "crv": "P-256", "alg": "ES256"},
		map[string]string{"use": k["use"], "kty": k["kty"], "crv": k["crv"], "alg": k["alg"]})

	tok, _, err := tk.Issue(w.accounts["ns/robot"], nil, nil, nil, []string{"vault"}, time.Hour)
	require.NoError(t, err)
	parts := strings.Split(tok, ".")
	header, err := base64.RawURLEncoding.DecodeString(parts[0])
	require.NoError(t, err)
	var h map[string]string
	require.NoError(t, json.Unmarshal(header, &h))
	assert.Equal(t, h["kid"], k["kid"], "the token names the published key")
	x, err := base64.RawURLEncoding.DecodeString(k["x"])
	require.NoError(t, err)
	y, err := base64.RawURLEncoding.DecodeString(k["y"])
	require.NoError(t, err)
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	require.NoError(t, err)
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	assert.True(t, ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])),
		"the published key verifies the token's signature")

	// A configured jwks_uri is named as it is.
	config, _ = tk.DiscoveryHandlers("https://issuer.example.com/keys")
	rec = httptest.NewRecorder()
	config.ServeHTTP(rec, httptest.NewRequest("GET", OpenIDConfigPath, nil))
	assert.Contains(t, rec.Body.String(), `"jwks_uri":"https://issuer.example.com/keys"`)
}
