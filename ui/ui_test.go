package ui

import (
	"bufio"
	"context"
	"encoding/json"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/scenario"
)

const goodToken = "good-token"

// liveEnv is the page over a cluster whose API server knows one token,
// with a fake clock for the sessions.
type liveEnv struct {
	srv   *Server
	clock *clock.Fake
	mu    sync.Mutex
	// user is the user the API server saw on the last request.
	user string
}

func (e *liveEnv) lastUser() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.user
}

func newLive(t *testing.T) *liveEnv {
	t.Helper()
	env := &liveEnv{clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	tokens := authn.AuthenticatorFunc(func(r *http.Request) (*authn.UserInfo, bool, error) {
		if r.Header.Get("Authorization") == "Bearer "+goodToken {
			return &authn.UserInfo{Name: "alice", Groups: []string{authn.SystemPrivilegedGroup}}, true, nil
		}
		return nil, false, nil
	})
	c, err := cluster.New(cluster.Config{APIServerOnly: true, UnsafeNoFsync: true, Authenticator: tokens})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	api := c.Server().Handler()
	seen := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, ok, _ := tokens.AuthenticateRequest(r)
		env.mu.Lock()
		env.user = ""
		if ok {
			env.user = u.Name
		}
		env.mu.Unlock()
		api.ServeHTTP(w, r)
	})
	env.srv, err = New(Config{API: seen, Cluster: c, LinkCredential: goodToken, Clock: env.clock,
		Rand: mrand.NewChaCha8([32]byte{1}), SessionTTL: time.Hour})
	require.NoError(t, err)
	return env
}

func (e *liveEnv) do(method, path, body string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	return rec
}

func sessionCookie(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	for _, c := range rec.Result().Cookies() {
		if c.Name == cookieName {
			assert.True(t, c.HttpOnly, "the session cookie is not readable by scripts")
			assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
			return cookieName + "=" + c.Value
		}
	}
	t.Fatal("no session cookie")
	return ""
}

func TestNoSessionGoesToLogin(t *testing.T) {
	e := newLive(t)
	rec := e.do("GET", "/ui/", "")
	require.Equal(t, http.StatusSeeOther, rec.Code)
	assert.Equal(t, "/ui/login", rec.Header().Get("Location"))
	rec = e.do("GET", "/ui/login", "")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Contains(t, rec.Body.String(), `name="token"`)
	assert.Contains(t, rec.Body.String(), `data-i18n="login.help">Log in with the token of your kubeconfig`, "live mode's users have a kubeconfig")
	rec = e.do("GET", "/ui/api/info", "")
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	assert.Contains(t, rec.Body.String(), `"reason":"Unauthorized"`)
	// A made-up session is no session.
	rec = e.do("GET", "/ui/", "", "Cookie", cookieName+"=made-up")
	assert.Equal(t, http.StatusSeeOther, rec.Code)
	rec = e.do("GET", "/api/v1/namespaces", "", "Cookie", cookieName+"=made-up", Header, "1")
	assert.Equal(t, http.StatusUnauthorized, rec.Code)
}

func TestLoginLinkWorksOnce(t *testing.T) {
	e := newLive(t)
	rec := e.do("GET", "/ui/login?code=wrong", "")
	require.Equal(t, http.StatusForbidden, rec.Code, "a bad link is refused")
	assert.Contains(t, rec.Body.String(), "not valid")
	assert.Empty(t, rec.Result().Cookies())

	rec = e.do("GET", e.srv.LoginPath(), "")
	require.Equal(t, http.StatusSeeOther, rec.Code)
	cookie := sessionCookie(t, rec)
	require.Equal(t, http.StatusOK, e.do("GET", "/ui/", "", "Cookie", cookie).Code)
	// The session's API requests carry the link's credential: the admin's.
	rec = e.do("GET", "/api/v1/namespaces", "", "Cookie", cookie, Header, "1")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "alice", e.lastUser())

	rec = e.do("GET", e.srv.LoginPath(), "")
	assert.Equal(t, http.StatusForbidden, rec.Code, "the link works once")
}

func TestLoginFormAsksTheAPIServer(t *testing.T) {
	e := newLive(t)
	form := "application/x-www-form-urlencoded"
	rec := e.do("POST", "/ui/login", "token=bad", "Content-Type", form)
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	assert.Contains(t, rec.Body.String(), "did not accept")

	rec = e.do("POST", "/ui/login", "token="+url.QueryEscape(goodToken), "Content-Type", form)
	require.Equal(t, http.StatusSeeOther, rec.Code)
	cookie := sessionCookie(t, rec)

	// The cookie alone is not enough for the API: a cross-site form could
	// send it, but not the header.
	rec = e.do("GET", "/api/v1/namespaces", "", "Cookie", cookie)
	assert.Equal(t, http.StatusForbidden, rec.Code)
	rec = e.do("GET", "/api/v1/namespaces", "", "Cookie", cookie, Header, "1")
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "alice", e.lastUser(), "the API server saw the user who logged in")

	// Without a cookie the API is the API: kubectl's token works, none
	// does not.
	assert.Equal(t, http.StatusOK, e.do("GET", "/api/v1/namespaces", "", "Authorization", "Bearer "+goodToken).Code)
	assert.Equal(t, http.StatusUnauthorized, e.do("GET", "/api/v1/namespaces", "").Code)

	// An expired session sends the page to its login.
	e.clock.SetTime(e.clock.Now().Add(time.Hour))
	rec = e.do("GET", "/ui/api/info", "", "Cookie", cookie)
	assert.Equal(t, http.StatusUnauthorized, rec.Code)
	rec = e.do("GET", "/ui/", "", "Cookie", cookie)
	assert.Equal(t, http.StatusSeeOther, rec.Code)
	assert.Equal(t, "/ui/login", rec.Header().Get("Location"))
}

func TestSecretDataHiddenUnlessAsked(t *testing.T) {
	e := newLive(t)
	cookie := sessionCookie(t, e.do("GET", e.srv.LoginPath(), ""))
	secret := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db"},"data":{"password":"aHVudGVyMg=="}}`
	rec := e.do("POST", "/api/v1/namespaces/default/secrets", secret, "Cookie", cookie, Header, "1", "Content-Type", "application/json")
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())

	rec = e.do("GET", "/ui/api/yaml?path=/api/v1/namespaces/default/secrets/db", "", "Cookie", cookie)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.NotContains(t, rec.Body.String(), "aHVudGVyMg==")
	assert.Contains(t, rec.Body.String(), "password: '(hidden: reveal to show)'")
	assert.Contains(t, rec.Body.String(), "kind: Secret")

	rec = e.do("GET", "/ui/api/yaml?path=/api/v1/namespaces/default/secrets/db&reveal=true", "", "Cookie", cookie)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Contains(t, rec.Body.String(), "password: aHVudGVyMg==", "shown when asked")
}

func TestApplyPutsTheErrorBesideItsLine(t *testing.T) {
	e := newLive(t)
	cookie := sessionCookie(t, e.do("GET", e.srv.LoginPath(), ""))
	apply := func(src string) []applyResult {
		t.Helper()
		rec := e.do("POST", "/ui/api/apply", src, "Cookie", cookie, Header, "1")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var out struct{ Results []applyResult }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
		return out.Results
	}
	// Line 8 holds the bad value; the server's message names spec.replicas.
	res := apply(`apiVersion: v1
kind: ConfigMap
metadata: {name: fine}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web}
spec:
  replicas: -1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
`)
	require.Len(t, res, 2)
	assert.True(t, res[0].OK, res[0].Message)
	require.False(t, res[1].OK)
	assert.Contains(t, res[1].Message, `ReplicaSet.apps "web" is invalid`)
	require.NotEmpty(t, res[1].Causes)
	assert.Equal(t, "spec.replicas", res[1].Causes[0].Field)
	assert.Equal(t, 9, res[1].Causes[0].Line)
	assert.Contains(t, res[1].Causes[0].Message, "must be greater than or equal to 0")

	res = apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n data: oops\n")
	require.Len(t, res, 1)
	assert.False(t, res[0].OK)
	// yaml.v3 names the line of the mapping it was reading (libyaml's
	// context mark), the one before the misindented key.
	assert.Equal(t, 4, res[0].Line, "a YAML mistake is reported at the parser's line")
	assert.Contains(t, res[0].Message, "did not find expected key")

	// A value of the wrong type: the server's status has no causes, only
	// encoding/json's path; the error goes beside the offending value.
	res = apply("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bad\nspec:\n  replicas: three\n  selector: {matchLabels: {app: a}}\n")
	require.Len(t, res, 1)
	require.False(t, res[0].OK)
	assert.Contains(t, res[0].Message, "cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32")
	require.Len(t, res[0].Causes, 1)
	assert.Equal(t, applyCause{Field: "spec.replicas", Message: res[0].Message, Line: 6}, res[0].Causes[0])
	// In a list the path has no index: the element whose value is of the
	// kind the server found (the second container's port, line 18).
	res = apply(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: bad
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers:
      - name: a
        image: nginx
        ports:
        - containerPort: 80
      - name: b
        image: nginx
        ports:
        - containerPort: "8080"
`)
	require.Len(t, res, 1)
	require.Len(t, res[0].Causes, 1)
	assert.Equal(t, "spec.template.spec.containers.ports.containerPort", res[0].Causes[0].Field)
	assert.Equal(t, 18, res[0].Causes[0].Line)
	// Where the path stops at a map of plain values, the value inside it.
	res = apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: one\n  b: 2\n")
	require.Len(t, res, 1)
	require.Len(t, res[0].Causes, 1)
	assert.Equal(t, "data", res[0].Causes[0].Field)
	assert.Equal(t, 7, res[0].Causes[0].Line)

	res = apply("apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g}\n")
	require.Len(t, res, 1)
	assert.Equal(t, `no matches for kind "Gizmo" in version "example.com/v1"`, res[0].Message)
	assert.Equal(t, 1, res[0].Causes[0].Line)
}

func TestStepModeNeedsTheSessionOrToken(t *testing.T) {
	s, err := scenario.Parse("t.yaml", []byte("name: t\ncluster: {nodeCount: 1}\nsteps:\n- runUntilStable\n"),
		func(string) ([]byte, error) { return nil, os.ErrNotExist })
	require.NoError(t, err)
	r, err := scenario.New(s, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	srv, err := New(Config{API: r.Cluster().Server().Handler(), Runner: r, Token: "step-token",
		Clock: clock.NewFake(time.Now()), Rand: mrand.NewChaCha8([32]byte{2})})
	require.NoError(t, err)
	do := func(method, path string, hdr ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}
	// The step-mode cluster checks nothing itself: the page does.
	assert.Equal(t, http.StatusUnauthorized, do("GET", "/api/v1/pods").Code)
	assert.Equal(t, http.StatusUnauthorized, do("GET", "/api/v1/pods", "Authorization", "Bearer wrong").Code)
	assert.Equal(t, http.StatusOK, do("GET", "/api/v1/pods", "Authorization", "Bearer step-token").Code)
	// Step mode's login asks for the token kubesim printed: there is no
	// kubeconfig.
	login := do("GET", "/ui/login").Body.String()
	assert.Contains(t, login, `data-i18n="login.help.step">Open the login link kubesim printed when it started (it works once), or log in with the token printed beside it.`)
	assert.NotContains(t, login, "kubeconfig")
	assert.Contains(t, do("GET", "/ui/login?code=wrong").Body.String(), "Log in with the token kubesim printed.")

	rec := do("GET", srv.LoginPath())
	require.Equal(t, http.StatusSeeOther, rec.Code)
	cookie := sessionCookie(t, rec)
	// Step until idle: the scenario's step, then the cluster's units.
	var out struct {
		Entries []entry
		Idle    bool
	}
	for i := 0; i < 500 && !out.Idle; i++ {
		rec = do("POST", "/ui/api/step", "Cookie", cookie, Header, "1")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	}
	require.True(t, out.Idle, "the cluster settles")
	rec = do("GET", "/ui/api/trace?from=0", "Cookie", cookie)
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	assert.Len(t, out.Entries, len(r.Cluster().Trace()))
	assert.Equal(t, r.Cluster().Trace()[0].String(), out.Entries[0].Text)
	// Without the header a write-like control is refused.
	assert.Equal(t, http.StatusForbidden, do("POST", "/ui/api/step", "Cookie", cookie).Code)
}

func TestWatchHubRelaysTheAPIServersEvents(t *testing.T) {
	e := newLive(t)
	cookie := sessionCookie(t, e.do("GET", e.srv.LoginPath(), ""))
	hs := httptest.NewServer(e.srv)
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := url.Values{"path": {"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0", "/api/v1/secrets?watch=1&resourceVersion=0"}}
	req, err := http.NewRequestWithContext(ctx, "GET", hs.URL+"/ui/api/watch?"+q.Encode(), nil)
	require.NoError(t, err)
	req.Header.Set("Cookie", cookie)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	rec := e.do("POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"hello"}}`,
		"Cookie", cookie, Header, "1", "Content-Type", "application/json")
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var m struct {
			I int
			E struct {
				Type   string
				Object struct{ Metadata struct{ Name string } }
			}
		}
		require.NoError(t, json.Unmarshal(lines.Bytes(), &m), lines.Text())
		if m.E.Object.Metadata.Name == "hello" {
			assert.Equal(t, 0, m.I, "framed with the index of its watch")
			assert.Equal(t, "ADDED", m.E.Type)
			return
		}
	}
	t.Fatalf("the watch ended without the ConfigMap: %v", lines.Err())
}

func TestExamplesForTheApplyBox(t *testing.T) {
	e := newLive(t)
	cookie := sessionCookie(t, e.do("GET", e.srv.LoginPath(), ""))
	rec := e.do("GET", "/ui/api/examples", "", "Cookie", cookie)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Contains(t, rec.Body.String(), `"web-rs.yaml"`)
	rec = e.do("GET", "/ui/api/examples?name=web-rs.yaml", "", "Cookie", cookie)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Contains(t, rec.Body.String(), "kind: ReplicaSet")
	assert.Equal(t, http.StatusNotFound, e.do("GET", "/ui/api/examples?name=../../go.mod", "", "Cookie", cookie).Code)
}
