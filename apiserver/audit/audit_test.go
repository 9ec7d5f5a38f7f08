package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/clock"
)

const policyYAML = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  users: ["system:kube-proxy"]
- level: None
  verbs: ["watch"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
- level: Request
  userGroups: ["dev"]
  namespaces: ["team"]
- level: Metadata
  resources:
  - group: ""
    resources: ["pods/*"]
  - group: apps
- level: Metadata
  resources:
  - group: ""
    resources: ["*/status"]
`

func loadPolicy(t *testing.T, text string) (*Policy, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return LoadPolicy(path)
}

func TestPolicyLevels(t *testing.T) {
	p, err := loadPolicy(t, policyYAML)
	require.NoError(t, err)
	alice := &authn.UserInfo{Name: "alice", Groups: []string{"dev"}}
	for _, tc := range []struct {
		user *authn.UserInfo
		path string
		verb string
		want Level
	}{
		{alice, "/api/v1/namespaces/a/configmaps/x", http.MethodGet, LevelRequestResponse},
		{&authn.UserInfo{Name: "system:kube-proxy"}, "/api/v1/namespaces/a/configmaps/x", http.MethodGet, LevelNone},
		{alice, "/api/v1/namespaces/a/configmaps?watch=1", http.MethodGet, LevelNone},
		{alice, "/api/v1/namespaces/team/secrets", http.MethodGet, LevelRequest},
		{&authn.UserInfo{Name: "bob"}, "/api/v1/namespaces/team/secrets", http.MethodGet, LevelNone},
		{alice, "/api/v1/namespaces/a/pods/web/log", http.MethodGet, LevelMetadata},
		{alice, "/api/v1/namespaces/a/pods/web", http.MethodGet, LevelNone}, // pods/* is only the subresources
		{alice, "/apis/apps/v1/namespaces/a/deployments", http.MethodPost, LevelMetadata},
		{alice, "/api/v1/nodes/n1/status", http.MethodPatch, LevelMetadata},
		{alice, "/version", http.MethodGet, LevelNone}, // rules with resources match resource requests only
	} {
		info := request.Parse(httptest.NewRequest(tc.verb, tc.path, nil))
		assert.Equal(t, tc.want, p.LevelFor(tc.user, info), "%s %s as %s", tc.verb, tc.path, tc.user.Name)
	}
	assert.Equal(t, LevelMetadata, DefaultPolicy().LevelFor(alice, request.Parse(httptest.NewRequest(http.MethodGet, "/version", nil))))
}

func TestPolicyRefusesWhatItWouldIgnore(t *testing.T) {
	_, err := loadPolicy(t, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  omitStages: [RequestReceived]\n")
	assert.ErrorContains(t, err, "field omitStages not found")
	_, err = loadPolicy(t, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n")
	assert.ErrorContains(t, err, `rules[0].level: Unsupported value: "Everything"`)
	_, err = loadPolicy(t, "apiVersion: v1\nkind: ConfigMap\n")
	assert.ErrorContains(t, err, "want apiVersion audit.k8s.io/v1 and kind Policy")
}

// run sends a request through WithAudit as alice and returns the events
// written.
func run(t *testing.T, p *Policy, req *http.Request, h http.HandlerFunc) []Event {
	t.Helper()
	var out bytes.Buffer
	fake := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ids := 0
	l := &Log{Policy: p, Out: &out, Clock: fake, NewID: func() string { ids++; return "id-" + string(rune('0'+ids)) }}
	req.RemoteAddr = "10.0.0.9:5555"
	req.Header.Set("User-Agent", "kubectl/v1.32")
	req = req.WithContext(authn.WithUser(req.Context(), &authn.UserInfo{Name: "alice", UID: "a1", Groups: []string{"dev", authn.AllAuthenticated}}))
	WithAudit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fake.Step(1500 * time.Microsecond)
		h(w, r)
	}), l).ServeHTTP(httptest.NewRecorder(), req)
	var evs []Event
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var ev Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), sc.Text())
		evs = append(evs, ev)
	}
	return evs
}

func TestMetadataEvent(t *testing.T) {
	req := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/pods", strings.NewReader(`{"kind":"Pod"}`))
	var line []byte
	var out bytes.Buffer
	l := &Log{Out: &out, Clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), NewID: func() string { return "abc" }}
	req.RemoteAddr = "10.0.0.9:5555"
	req = req.WithContext(authn.WithUser(req.Context(), &authn.UserInfo{Name: "alice", Groups: []string{authn.AllAuthenticated}}))
	rec := httptest.NewRecorder()
	WithAudit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		LogImpersonatedUser(r.Context(), &authn.UserInfo{Name: "bob", Groups: []string{authn.AllAuthenticated}})
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"kind":"Pod"}`))
	}), l).ServeHTTP(rec, req)
	line = out.Bytes()
	assert.Equal(t, "abc", rec.Header().Get("Audit-ID"))
	// The whole line, in audit.k8s.io/v1's field order: no bodies at
	// Metadata.
	assert.Equal(t, `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"abc","stage":"ResponseComplete",`+
		`"requestURI":"/api/v1/namespaces/default/pods","verb":"create","user":{"username":"alice","groups":["system:authenticated"]},`+
		`"impersonatedUser":{"username":"bob","groups":["system:authenticated"]},"sourceIPs":["10.0.0.9"],`+
		`"objectRef":{"resource":"pods","namespace":"default","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":201},`+
		`"requestReceivedTimestamp":"2026-01-01T00:00:00.000000Z","stageTimestamp":"2026-01-01T00:00:00.000000Z"}`+"\n", string(line))
}

func TestRequestResponseBodies(t *testing.T) {
	p := &Policy{Rules: []PolicyRule{{Level: LevelRequestResponse}}}
	req := httptest.NewRequest(http.MethodPut, "/api/v1/namespaces/default/configmaps/c", strings.NewReader(`{"kind":"ConfigMap","data":{"a":"1"}}`))
	evs := run(t, p, req, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		_, _ = w.Write([]byte(`{"kind":"ConfigMap","data":{"a":"1"},"metadata":{"resourceVersion":"7"}}`))
	})
	require.Len(t, evs, 1)
	ev := evs[0]
	assert.Equal(t, LevelRequestResponse, ev.Level)
	assert.Equal(t, "id-1", ev.AuditID)
	assert.Equal(t, "update", ev.Verb)
	assert.Equal(t, "kubectl/v1.32", ev.UserAgent)
	assert.JSONEq(t, `{"kind":"ConfigMap","data":{"a":"1"}}`, string(ev.RequestObject))
	assert.JSONEq(t, `{"kind":"ConfigMap","data":{"a":"1"},"metadata":{"resourceVersion":"7"}}`, string(ev.ResponseObject))
	assert.Equal(t, 1500*time.Microsecond, time.Time(ev.StageTimestamp).Sub(time.Time(ev.RequestReceivedTimestamp)))
	assert.Nil(t, ev.ImpersonatedUser)
}

func TestRequestLevelKeepsNoResponse(t *testing.T) {
	p := &Policy{Rules: []PolicyRule{{Level: LevelRequest}}}
	req := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/configmaps", strings.NewReader(`{"kind":"ConfigMap"}`))
	evs := run(t, p, req, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		_, _ = w.Write([]byte(`{"kind":"ConfigMap"}`))
	})
	require.Len(t, evs, 1)
	assert.JSONEq(t, `{"kind":"ConfigMap"}`, string(evs[0].RequestObject))
	assert.Nil(t, evs[0].ResponseObject)
}

func TestFailureKeepsTheStatus(t *testing.T) {
	req := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/pods/web", nil)
	evs := run(t, nil, req, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"web\" not found","reason":"NotFound","details":{"name":"web","kind":"pods"},"code":404}`))
	})
	require.Len(t, evs, 1)
	st := evs[0].ResponseStatus
	require.NotNil(t, st)
	assert.Equal(t, 404, st.Code)
	assert.Equal(t, "Failure", st.Status)
	assert.Equal(t, `pods "web" not found`, st.Message)
	assert.Equal(t, "NotFound", st.Reason)
	assert.Nil(t, evs[0].ResponseObject, "Metadata keeps no body")
	assert.Equal(t, "web", evs[0].ObjectRef.Name)
}

func TestNoneAndLoopbackAreNotLogged(t *testing.T) {
	p := &Policy{Rules: []PolicyRule{{Level: LevelNone}}}
	assert.Empty(t, run(t, p, httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil), func(http.ResponseWriter, *http.Request) {}))
	var out bytes.Buffer
	l := &Log{Out: &out, Clock: clock.NewFake(time.Now()), NewID: func() string { return "x" }}
	WithAudit(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), l).
		ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil))
	assert.Empty(t, out.String(), "no user: the in-process loopback")
}

func TestSourceIPs(t *testing.T) {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.RemoteAddr = "10.0.0.1:1234"
	req.Header.Set("X-Forwarded-For", "1.2.3.4, 10.0.0.1, junk")
	req.Header.Set("X-Real-Ip", "5.6.7.8")
	assert.Equal(t, []string{"1.2.3.4", "10.0.0.1", "5.6.7.8"}, sourceIPs(req))
}

// A handler's decoded object wins over the raw body (a protobuf body is
// not JSON), and is kept only at the levels that keep bodies.
func TestHandlerLoggedObjects(t *testing.T) {
	handler := func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		LogRequestObject(r.Context(), map[string]string{"kind": "Decoded"})
		LogResponseObject(r.Context(), map[string]string{"kind": "Answered"})
		_, _ = w.Write([]byte("\x6b\x38\x73\x00 protobuf"))
	}
	body := func() io.Reader { return strings.NewReader("\x6b\x38\x73\x00 protobuf") }
	evs := run(t, &Policy{Rules: []PolicyRule{{Level: LevelRequestResponse}}}, httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/a/pods", body()), handler)
	require.Len(t, evs, 1)
	assert.JSONEq(t, `{"kind":"Decoded"}`, string(evs[0].RequestObject))
	assert.JSONEq(t, `{"kind":"Answered"}`, string(evs[0].ResponseObject))
	evs = run(t, nil, httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/a/pods", body()), handler)
	require.Len(t, evs, 1)
	assert.Nil(t, evs[0].RequestObject)
	assert.Nil(t, evs[0].ResponseObject)
}

// A watch streams through the filter: flushes reach the client, and the
// events it streams are not kept even at RequestResponse.
func TestWatchFlushesAndKeepsNoBody(t *testing.T) {
	var out bytes.Buffer
	l := &Log{Policy: &Policy{Rules: []PolicyRule{{Level: LevelRequestResponse}}}, Out: &out, Clock: clock.NewFake(time.Now()), NewID: func() string { return "w" }}
	req := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/a/pods?watch=true", nil)
	req = req.WithContext(authn.WithUser(req.Context(), &authn.UserInfo{Name: "alice"}))
	rec := httptest.NewRecorder()
	WithAudit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := w.(http.Flusher)
		require.True(t, ok)
		_, _ = w.Write([]byte(`{"type":"ADDED","object":{}}`))
		f.Flush()
	}), l).ServeHTTP(rec, req)
	assert.True(t, rec.Flushed)
	var ev Event
	require.NoError(t, json.Unmarshal(out.Bytes(), &ev))
	assert.Equal(t, "watch", ev.Verb)
	assert.Nil(t, ev.ResponseObject)
}

// lockedBuffer is a log's Out that a test may read while the server's
// goroutine writes to it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// An upgrade (exec, attach, port-forward) through a real HTTP server with
// the audit log on: the handler behind the filter can hijack the
// connection as the kubelet's SPDY and WebSocket upgraders do (asking the
// writer for http.Hijacker), the client gets its 101 and the stream, and
// the event, written when the stream ends, records the request at its
// level with the code 101.
func TestUpgradeIsHijackedAndAuditedAs101(t *testing.T) {
	out := &lockedBuffer{}
	l := &Log{Policy: &Policy{Rules: []PolicyRule{{Level: LevelRequest}}}, Out: out, Clock: clock.NewFake(time.Now()), NewID: func() string { return "up" }}
	backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hj, ok := w.(http.Hijacker)
		if !ok {
			http.Error(w, "unable to upgrade: unable to hijack response", http.StatusInternalServerError)
			return
		}
		conn, rw, err := hj.Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n")
		_ = rw.Flush()
		line, err := rw.ReadString('\n') // echo one line, then end the stream
		if err != nil {
			return
		}
		_, _ = rw.WriteString("echo: " + line)
		_ = rw.Flush()
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(authn.WithUser(r.Context(), &authn.UserInfo{Name: "alice", Groups: []string{authn.AllAuthenticated}}))
		WithAudit(backend, l).ServeHTTP(w, r)
	}))
	defer srv.Close()

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /api/v1/namespaces/default/pods/web/exec?command=sh HTTP/1.1\r\nHost: x\r\n"+
		"Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\nContent-Length: 0\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode, "the upgrade reaches the client")
	_, err = io.WriteString(conn, "hello\n")
	require.NoError(t, err)
	echoed, err := br.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "echo: hello\n", echoed, "the stream flows over the hijacked connection")

	require.Eventually(t, func() bool { return strings.Contains(out.String(), "\n") }, 10*time.Second, 5*time.Millisecond,
		"the event is written when the stream ends")
	var ev Event
	require.NoError(t, json.Unmarshal([]byte(out.String()), &ev))
	assert.Equal(t, LevelRequest, ev.Level)
	assert.Equal(t, "create", ev.Verb)
	require.NotNil(t, ev.ObjectRef)
	assert.Equal(t, "exec", ev.ObjectRef.Subresource)
	require.NotNil(t, ev.ResponseStatus)
	assert.Equal(t, http.StatusSwitchingProtocols, ev.ResponseStatus.Code)
	assert.Equal(t, "alice", ev.User.Username)
}
