package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/client"
)

// auditEvents reads the audit log written so far.
func (e *runningEnv) auditEvents(t *testing.T) []audit.Event {
	t.Helper()
	var evs []audit.Event
	for _, line := range strings.Split(strings.TrimSpace(e.audit.String()), "\n") {
		if line == "" {
			continue
		}
		var ev audit.Event
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		evs = append(evs, ev)
	}
	return evs
}

// asAlice makes an API request with alice's token (system:masters), as
// kubectl would, and wants code.
func (e *runningEnv) asAlice(t *testing.T, method, path, body string, code int) []byte {
	t.Helper()
	rec := e.do(method, path, body, "Authorization", "Bearer "+goodToken, "Content-Type", "application/json")
	require.Equal(t, code, rec.Code, "%s %s: %s", method, path, rec.Body.String())
	return rec.Body.Bytes()
}

// bindView gives subject the view role in namespace ns.
func (e *runningEnv) bindView(t *testing.T, ns, subject string) {
	t.Helper()
	e.asAlice(t, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/"+ns+"/rolebindings",
		`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"view-`+strings.NewReplacer(":", "-").Replace(subject)+`"},`+
			`"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},"subjects":[`+subject2JSON(subject)+`]}`,
		http.StatusCreated)
	// The authorizer reads bindings from a cache that follows the store's
	// watch: wait until it holds this one, so that what the test does next
	// is judged with it (asked as the subject, through impersonation).
	require.Eventually(t, func() bool {
		rec := e.do("GET", "/api/v1/namespaces/"+ns+"/pods", "", "Authorization", "Bearer "+goodToken, "Impersonate-User", subject)
		return rec.Code == http.StatusOK
	}, time.Minute, 10*time.Millisecond, "the binding of %s in %s takes effect", subject, ns)
}

func subject2JSON(subject string) string {
	if ns, name, ok := strings.Cut(strings.TrimPrefix(subject, "system:serviceaccount:"), ":"); ok && strings.HasPrefix(subject, "system:serviceaccount:") {
		return `{"kind":"ServiceAccount","name":"` + name + `","namespace":"` + ns + `"}`
	}
	return `{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"` + subject + `"}`
}

// The node switch is a write the user must be allowed: bob, only
// authenticated, is refused in RBAC's words and the kubelet runs on;
// alice (system:masters) stops and starts it. Every page request — the
// refused one, the actions, a plain read — is in the audit log, as the
// user who made it.
func TestNodeSwitchIsAuthorizedAndAudited(t *testing.T) {
	e := newRunning(t, 1)
	alice := e.login(t, goodToken)
	bob := e.login(t, "bob-token")
	k, ok := e.cluster.Kubelet("node-1")
	require.True(t, ok)
	node := func(cookie, action string) *httptest.ResponseRecorder {
		return e.do("POST", "/ui/api/node?name=node-1&action="+action, "", "Cookie", cookie, Header, "1")
	}

	rec := node(bob, "stop")
	require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `forbidden: User \"bob\" cannot post path \"/ui/api/node\"`)
	assert.False(t, k.Stopped(), "bob's refused stop changed nothing")

	rec = node(alice, "stop")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.True(t, k.Stopped())
	rec = node(alice, "start")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.False(t, k.Stopped())
	rec = e.do("POST", "/ui/api/node?name=nosuch&action=stop", "", "Cookie", alice, Header, "1")
	assert.Equal(t, http.StatusNotFound, rec.Code, rec.Body.String())

	// A plain read is allowed to every authenticated user
	// (kubesim:web-page), and audited too.
	require.Equal(t, http.StatusOK, e.do("GET", "/ui/api/info", "", "Cookie", bob).Code)

	var bobRefused, aliceStopped, aliceStarted, bobRead bool
	for _, ev := range e.auditEvents(t) {
		switch {
		case ev.RequestURI == "/ui/api/node?name=node-1&action=stop" && ev.User.Username == "bob":
			assert.Equal(t, "post", ev.Verb)
			bobRefused = ev.ResponseStatus.Code == http.StatusForbidden
		case ev.RequestURI == "/ui/api/node?name=node-1&action=stop" && ev.User.Username == "alice" && ev.ResponseStatus.Code == http.StatusOK:
			aliceStopped = ev.Annotations["kubesim.io/node-kubelet"] == "node-1=stop"
		case ev.RequestURI == "/ui/api/node?name=node-1&action=start" && ev.User.Username == "alice" && ev.ResponseStatus.Code == http.StatusOK:
			aliceStarted = ev.Annotations["kubesim.io/node-kubelet"] == "node-1=start"
		case ev.RequestURI == "/ui/api/info" && ev.User.Username == "bob":
			bobRead = ev.Verb == "get" && ev.ResponseStatus.Code == http.StatusOK
		}
	}
	assert.True(t, bobRefused, "bob's refused stop is audited")
	assert.True(t, aliceStopped, "alice's stop is audited with what it did")
	assert.True(t, aliceStarted, "alice's start is audited with what it did")
	assert.True(t, bobRead, "a read of the page is audited")
}

// stream is a page stream (the activity feed, the watches) read line by
// line over a real connection; done is closed when the server ends it.
type stream struct {
	lines chan string
	done  chan struct{}
}

func (e *runningEnv) openStream(t *testing.T, srv *httptest.Server, path, cookie string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("Cookie", cookie)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	st := &stream{lines: make(chan string, 1<<14), done: make(chan struct{})}
	go func() {
		defer close(st.done)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			select {
			case st.lines <- sc.Text():
			default: // the test reads what it needs; the rest may go
			}
		}
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	return st
}

// until reads the stream until a line contains want, and returns the
// lines before it.
func (st *stream) until(t *testing.T, want string) []string {
	t.Helper()
	var seen []string
	deadline := time.After(time.Minute)
	for {
		select {
		case l := <-st.lines:
			if strings.Contains(l, want) {
				return seen
			}
			seen = append(seen, l)
		case <-st.done:
			t.Fatalf("the stream ended before a line with %q", want)
		case <-deadline:
			t.Fatalf("no line with %q in a minute", want)
		}
	}
}

// rsIn is a ReplicaSet named name of one pod in namespace ns.
func rsIn(ns, name string) string {
	return `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"` + name + `","namespace":"` + ns + `"},"spec":{"replicas":1,` +
		`"selector":{"matchLabels":{"app":"` + name + `"}},"template":{"metadata":{"labels":{"app":"` + name + `"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`
}

// scheduledPod waits for the one pod of ReplicaSet rs in ns to be bound,
// and returns its name.
func (e *runningEnv) scheduledPod(t *testing.T, ns, rs string) string {
	t.Helper()
	cl := e.cluster.Client("test")
	var name string
	require.Eventually(t, func() bool {
		l, err := cl.Pods().List(context.Background(), ns, client.ListOptions{LabelSelector: "app=" + rs})
		if err != nil || len(l.Items) != 1 || l.Items[0].Spec.NodeName == "" {
			return false
		}
		name = l.Items[0].Name
		return true
	}, time.Minute, 20*time.Millisecond)
	return name
}

// The feeds show only what the user may get: bob may read namespace
// "open" (view) but not "closed"; alice may read both. The activity feed
// gives bob the writes in "open" and none of "closed"'s; "why" and the
// scheduler's decision answer him for a pod in "open" and refuse him, in
// the API server's words, for one in "closed".
func TestFeedsShowOnlyWhatTheUserMayGet(t *testing.T) {
	e := newRunning(t, 1)
	for _, ns := range []string{"open", "closed"} {
		e.asAlice(t, "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+ns+`"}}`, http.StatusCreated)
	}
	e.bindView(t, "open", "bob")
	alice := e.login(t, goodToken)
	bob := e.login(t, "bob-token")
	srv := httptest.NewServer(e.srv)
	t.Cleanup(srv.Close)
	aliceFeed := e.openStream(t, srv, "/ui/api/activity", alice)
	bobFeed := e.openStream(t, srv, "/ui/api/activity", bob)

	// "closed" first: the feeds carry the writes in order, so bob's
	// would show them before "open"'s if it showed them at all.
	e.asAlice(t, "POST", "/apis/apps/v1/namespaces/closed/replicasets", rsIn("closed", "hidden"), http.StatusCreated)
	hidden := e.scheduledPod(t, "closed", "hidden")
	aliceFeed.until(t, `/namespaces/closed/pods/`+hidden+`/binding`)
	e.asAlice(t, "POST", "/apis/apps/v1/namespaces/open/replicasets", rsIn("open", "shown"), http.StatusCreated)
	shown := e.scheduledPod(t, "open", "shown")
	before := bobFeed.until(t, `/namespaces/open/pods/`+shown+`/binding`)
	require.NotEmpty(t, before, "bob saw the writes in open before the bind")
	for _, l := range before {
		assert.NotContains(t, l, "/namespaces/closed/", "bob's feed shows nothing of closed")
		assert.NotContains(t, l, "kube-node-lease", "nor the nodes' leases, which he may not get")
	}

	get := func(cookie, path string) *httptest.ResponseRecorder { return e.do("GET", path, "", "Cookie", cookie) }
	whyOf := func(ns, pod string) string {
		return "/ui/api/why?path=/api/v1/namespaces/" + ns + "/pods&name=" + pod
	}
	rec := get(bob, whyOf("closed", hidden))
	require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `pods \"`+hidden+`\" is forbidden: User \"bob\" cannot get resource \"pods\" in API group \"\" in the namespace \"closed\"`)
	rec = get(bob, "/ui/api/decision?pod=closed/"+hidden)
	require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	assert.NotContains(t, rec.Body.String(), "node-1", "no score of the refused pod")

	rec = get(bob, whyOf("open", shown))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), "It was created by")
	require.Eventually(t, func() bool { return get(bob, "/ui/api/decision?pod=open/"+shown).Code == http.StatusOK }, time.Minute, 20*time.Millisecond)
	assert.Contains(t, get(bob, "/ui/api/decision?pod=open/"+shown).Body.String(), `"chosen":"node-1"`)

	require.Equal(t, http.StatusOK, get(alice, whyOf("closed", hidden)).Code, "alice may read closed")
	require.Equal(t, http.StatusOK, get(alice, "/ui/api/decision?pod=closed/"+hidden).Code)
	assert.Equal(t, http.StatusBadRequest, get(alice, "/ui/api/decision?pod=nonamespace").Code)
}

// A session ends when its token stops authenticating: a ServiceAccount's
// token opens a page, then the account is deleted (which revokes its
// tokens). Within SessionRecheck of the fake clock the session is over:
// its streams end, the page sends the browser to the login, and its
// requests are Unauthorized.
func TestSessionEndsWhenItsTokenStopsAuthenticating(t *testing.T) {
	e := newRunning(t, 1)
	e.asAlice(t, "POST", "/api/v1/namespaces/default/serviceaccounts", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"robot"}}`, http.StatusCreated)
	e.bindView(t, "default", "system:serviceaccount:default:robot")
	var tr struct {
		Status struct{ Token string } `json:"status"`
	}
	require.NoError(t, json.Unmarshal(e.asAlice(t, "POST", "/api/v1/namespaces/default/serviceaccounts/robot/token",
		`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}`, http.StatusCreated), &tr))
	require.NotEmpty(t, tr.Status.Token)
	robot := e.login(t, tr.Status.Token)
	require.Equal(t, http.StatusOK, e.do("GET", "/ui/api/info", "", "Cookie", robot).Code)

	srv := httptest.NewServer(e.srv)
	t.Cleanup(srv.Close)
	feed := e.openStream(t, srv, "/ui/api/activity", robot)
	watches := e.openStream(t, srv, "/ui/api/watch?path="+url.QueryEscape("/api/v1/namespaces/default/pods?watch=1"), robot)
	// Each stream checks the session when its check is due: at the login
	// plus SessionRecheck, whenever the stream began.
	e.asAlice(t, "DELETE", "/api/v1/namespaces/default/serviceaccounts/robot", "", http.StatusOK)
	e.clock.Step(SessionRecheck)
	for name, st := range map[string]*stream{"activity": feed, "watches": watches} {
		select {
		case <-st.done:
		case <-time.After(time.Minute):
			t.Fatalf("the %s stream outlived its session", name)
		}
	}
	rec := e.do("GET", "/ui/", "", "Cookie", robot)
	assert.Equal(t, http.StatusSeeOther, rec.Code)
	assert.Equal(t, "/ui/login", rec.Header().Get("Location"))
	assert.Equal(t, http.StatusUnauthorized, e.do("GET", "/ui/api/info", "", "Cookie", robot).Code)
	assert.Equal(t, http.StatusUnauthorized, e.do("GET", "/api/v1/namespaces/default/pods", "", "Cookie", robot, Header, "1").Code)
}

// Without waiting for the check, a page request whose token the API
// server refuses is a 401 and ends the session there and then.
func TestRefusedTokenEndsTheSessionAtOnce(t *testing.T) {
	e := newRunning(t, 1)
	e.asAlice(t, "POST", "/api/v1/namespaces/default/serviceaccounts", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"robot"}}`, http.StatusCreated)
	var tr struct {
		Status struct{ Token string } `json:"status"`
	}
	require.NoError(t, json.Unmarshal(e.asAlice(t, "POST", "/api/v1/namespaces/default/serviceaccounts/robot/token",
		`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}`, http.StatusCreated), &tr))
	robot := e.login(t, tr.Status.Token)
	e.asAlice(t, "DELETE", "/api/v1/namespaces/default/serviceaccounts/robot", "", http.StatusOK)
	assert.Equal(t, http.StatusUnauthorized, e.do("GET", "/ui/api/info", "", "Cookie", robot).Code)
	rec := e.do("GET", "/ui/", "", "Cookie", robot)
	assert.Equal(t, http.StatusSeeOther, rec.Code, "the session is gone, though its check was not due")
}

// A login or logout posted from another site is refused (a forged login
// would put the victim in the attacker's session), as the browser tells
// it: Sec-Fetch-Site, else Origin against the Host. The page's own form
// passes, and so does a request with neither header, which no browser
// that could be tricked into sending it makes (curl, a script).
func TestLoginAndLogoutRefuseAnotherSite(t *testing.T) {
	e := newLive(t)
	form := "application/x-www-form-urlencoded"
	login := func(hdr ...string) *httptest.ResponseRecorder {
		return e.do("POST", "/ui/login", "token="+goodToken, append([]string{"Content-Type", form}, hdr...)...)
	}
	for _, hdr := range [][]string{
		{"Origin", "https://attacker.example"},
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site", "Origin", "https://other.example.com"},
		{"Origin", "null"},
	} {
		rec := login(hdr...)
		assert.Equal(t, http.StatusForbidden, rec.Code, "%v", hdr)
		assert.Contains(t, rec.Body.String(), "came from another site", "%v", hdr)
		assert.Empty(t, rec.Result().Cookies(), "no session for %v", hdr)
	}
	// httptest's requests are for example.com.
	for _, hdr := range [][]string{
		{"Origin", "http://example.com"},
		{"Sec-Fetch-Site", "same-origin", "Origin", "http://example.com"},
		{},
	} {
		rec := login(hdr...)
		require.Equal(t, http.StatusSeeOther, rec.Code, "%v", hdr)
		sessionCookie(t, rec)
	}

	cookie := sessionCookie(t, login("Origin", "http://example.com"))
	rec := e.do("POST", "/ui/logout", "", "Cookie", cookie, "Origin", "https://attacker.example")
	assert.Equal(t, http.StatusForbidden, rec.Code)
	require.Equal(t, http.StatusOK, e.do("GET", "/ui/", "", "Cookie", cookie).Code, "a forged logout ends nothing")
	rec = e.do("POST", "/ui/logout", "", "Cookie", cookie, "Origin", "http://example.com", "Sec-Fetch-Site", "same-origin")
	assert.Equal(t, http.StatusSeeOther, rec.Code)
	assert.Equal(t, http.StatusSeeOther, e.do("GET", "/ui/", "", "Cookie", cookie).Code, "the page's own logout ends the session")
}

// The one-time login link expires: LoginLinkTTL after the server made it,
// it is refused even unused.
func TestLoginLinkExpires(t *testing.T) {
	e := newLive(t)
	e.clock.Step(DefaultLoginLinkTTL)
	rec := e.do("GET", e.srv.LoginPath(), "")
	assert.Equal(t, http.StatusForbidden, rec.Code)
	assert.Contains(t, rec.Body.String(), "not valid: it has been used already, it is older than 10m0s")
	assert.Empty(t, rec.Result().Cookies())

	e = newLive(t)
	e.clock.Step(DefaultLoginLinkTTL - time.Second)
	rec = e.do("GET", e.srv.LoginPath(), "")
	require.Equal(t, http.StatusSeeOther, rec.Code, "a second before, it works")
	sessionCookie(t, rec)
}
