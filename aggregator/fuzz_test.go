package aggregator_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/aggregator"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/kubelet/podnet"
	"github.com/kubesim/kubesim/sampleapiserver"
	"github.com/kubesim/kubesim/store/boltstore"
)

// FuzzSetRemoteUser: whatever headers a client sent, only the user's own
// X-Remote-User and X-Remote-Group are left, and no X-Remote-Extra-*.
func FuzzSetRemoteUser(f *testing.F) {
	f.Add("X-Remote-User", "system:admin", "alice", "dev")
	f.Add("x-remote-group", "system:masters", "bob", "")
	f.Add("X-Remote-Extra-Scopes", "all", "carol", "a,b")
	f.Add("x-REMOTE-extra-", "", "", "")
	f.Add("x-remote-extra- a", "v", "d", "g")
	f.Fuzz(func(t *testing.T, key, value, name, groups string) {
		h := http.Header{}
		h[key] = []string{value}
		h.Add(key, value)
		h["X-Remote-User"] = append(h["X-Remote-User"], value)
		var gs []string
		if groups != "" {
			gs = strings.Split(groups, ",")
		}
		aggregator.SetRemoteUser(h, &authn.UserInfo{Name: name, Groups: gs})
		for k, vs := range h {
			lk := strings.ToLower(k)
			switch {
			case lk == "x-remote-user":
				assert.Equal(t, "X-Remote-User", k)
				assert.Equal(t, []string{name}, vs)
			case lk == "x-remote-group":
				assert.Equal(t, "X-Remote-Group", k)
				assert.Equal(t, gs, vs)
			default:
				assert.False(t, strings.HasPrefix(lk, "x-remote-extra-"), "client-sent %q passed", k)
			}
		}
	})
}

// FuzzAggregationRouting sends arbitrary paths with client-made X-Remote-*
// headers through the whole server: nothing panics, requests for the
// aggregated group reach the extension server and nothing else does, and
// the extension server only ever sees the authenticated user.
func FuzzAggregationRouting(f *testing.F) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(f.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(f, err)
	f.Cleanup(func() { _ = st.Close() })
	n := podnet.New()
	auth := authn.AuthenticatorFunc(func(r *http.Request) (*authn.UserInfo, bool, error) {
		if r.Header.Get("Authorization") == "Bearer alice-token" {
			return &authn.UserInfo{Name: "alice", Groups: []string{"dev"}}, true, nil
		}
		return nil, false, nil
	})
	srv, err := apiserver.New(apiserver.Config{Storage: st, Clock: clock.NewFake(time.Now()), Rand: rand.NewChaCha8([32]byte{3}),
		Resources: kinds.Builtin(), ProxyDial: n.DialContext, ProxyClientCert: &testFrontProxy().ClientCert, Authenticator: auth})
	require.NoError(f, err)
	require.NoError(f, srv.Bootstrap(context.Background()))
	e := &env{srv: srv, client: client.NewInProcess(srv.LoopbackHandler(), "test"), net: n}
	e.startBackend(f)
	e.createService(f, true)
	e.createAPIService(f, sampleapiserver.Group, sampleapiserver.Version, 1000, 15)
	handler := srv.Handler()

	f.Add("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", "system:admin", "system:masters", "x")
	f.Add("/apis/wardle.example.com/v1alpha1", "", "", "")
	f.Add("/apis/wardle.example.com", "root", "", "")
	f.Add("/apis", "root", "g", "")
	f.Add("/apis/wardle.example.com/v1alpha1/../../apps/v1/deployments", "a", "b", "c")
	f.Add("//apis//wardle.example.com//v1alpha1", "a", "b", "c")
	f.Add("/apis/apps/v1/namespaces/default/deployments", "system:admin", "system:masters", "")
	f.Add("/api/v1/namespaces", "u", "", "")
	f.Add("/openapi/v3/apis/wardle.example.com/v1alpha1", "u", "", "")
	f.Add("", "", "", "")
	f.Fuzz(func(t *testing.T, path, user, group, extra string) {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.URL.Path = path
		req.RequestURI = req.URL.RequestURI()
		req.Header.Set("Authorization", "Bearer alice-token")
		req.Header["X-Remote-User"] = []string{user}
		req.Header["x-remote-group"] = []string{group}
		req.Header["X-Remote-Extra-Scopes"] = []string{extra}
		e.mu.Lock()
		e.seen = nil
		e.mu.Unlock()
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)

		e.mu.Lock()
		seen := e.seen
		e.mu.Unlock()
		for _, s := range seen {
			// Who the backend believed, and the X-Remote-User it was left.
			require.Equal(t, "alice|dev,system:authenticated|", s, "path %q", path)
		}
		parts := strings.Split(strings.Trim(path, "/"), "/")
		aggregated := len(parts) >= 3 && parts[0] == "apis" && parts[1] == sampleapiserver.Group && parts[2] == sampleapiserver.Version
		if strings.HasPrefix(path, "/openapi/v3") {
			// The OpenAPI index and a group-version's document may come
			// from the extension server too (as the user, checked above).
			return
		}
		if !aggregated {
			require.Empty(t, seen, "path %q is not the extension server's", path)
		} else if validHeaderValue(user) && validHeaderValue(group) && validHeaderValue(extra) {
			require.Len(t, seen, 1, "path %q goes to the extension server: %d %s", path, rec.Code, rec.Body.String())
		}
	})
}

// validHeaderValue: what net/http will send (no control characters).
func validHeaderValue(v string) bool {
	for _, r := range v {
		if r < ' ' && r != '\t' || r == 0x7f {
			return false
		}
	}
	return true
}
