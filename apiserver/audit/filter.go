package audit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/clock"
)

// MaxBodyBytes is the most of a request or response body an event
// holds; a longer body is left out of it.
const MaxBodyBytes = 1 << 20

// Log writes events as JSON lines to Out.
type Log struct {
	// Policy picks each request's level (DefaultPolicy when nil).
	Policy *Policy
	Out    io.Writer
	Clock  clock.Clock
	// NewID makes audit IDs for requests without an Audit-ID header.
	NewID func() string

	mu sync.Mutex // one line at a time
}

func (l *Log) write(ev *Event) {
	line, err := json.Marshal(ev)
	if err != nil {
		return
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.Out.Write(line)
}

// eventKey is the context key of the event of the request being served.
type eventKey struct{}

// LogRequestObject records, at level Request and above, the object a
// handler decoded from the request body, as JSON whatever the body's
// media type (audit.LogRequestObject).
func LogRequestObject(ctx context.Context, obj any) {
	if ev, ok := ctx.Value(eventKey{}).(*Event); ok && ev.Level.AtLeast(LevelRequest) {
		if b, err := json.Marshal(obj); err == nil {
			ev.RequestObject = b
		}
	}
}

// LogResponseObject records, at level RequestResponse, the object a
// handler answers with, as JSON.
func LogResponseObject(ctx context.Context, obj any) {
	if ev, ok := ctx.Value(eventKey{}).(*Event); ok && ev.Level.AtLeast(LevelRequestResponse) {
		if b, err := json.Marshal(obj); err == nil {
			ev.ResponseObject = b
		}
	}
}

// AddAnnotations records annotations in the event of the request ctx
// serves (if it is audited), at every level: admission's audit
// annotations (audit.AddAuditAnnotation in Kubernetes).
func AddAnnotations(ctx context.Context, annotations map[string]string) {
	ev, ok := ctx.Value(eventKey{}).(*Event)
	if !ok || len(annotations) == 0 {
		return
	}
	if ev.Annotations == nil {
		ev.Annotations = map[string]string{}
	}
	for k, v := range annotations {
		ev.Annotations[k] = v
	}
}

// LogImpersonatedUser records, in the event of the request ctx serves (if
// it is audited), the user the request now acts as.
func LogImpersonatedUser(ctx context.Context, u *authn.UserInfo) {
	if ev, ok := ctx.Value(eventKey{}).(*Event); ok {
		ev.ImpersonatedUser = userInfo(u)
	}
}

func userInfo(u *authn.UserInfo) *UserInfo {
	return &UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
}

// WithAudit writes an event for each request h serves, at the level l's
// policy gives it; it must run after authentication. A request without a
// user (the in-process loopback) is not audited.
func WithAudit(h http.Handler, l *Log) http.Handler {
	policy := l.Policy
	if policy == nil {
		policy = DefaultPolicy()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		u, ok := authn.UserFrom(req.Context())
		if !ok {
			h.ServeHTTP(w, req)
			return
		}
		info := request.InfoOf(req)
		level := policy.LevelFor(u, info)
		if level == LevelNone {
			h.ServeHTTP(w, req)
			return
		}
		id := req.Header.Get("Audit-ID")
		if id == "" {
			id = l.NewID()
		}
		w.Header().Set("Audit-ID", id)
		ev := &Event{Kind: "Event", APIVersion: "audit.k8s.io/v1", Level: level, AuditID: id, Stage: StageResponseComplete,
			RequestURI: req.RequestURI, Verb: info.Verb, User: *userInfo(u), SourceIPs: sourceIPs(req),
			UserAgent: req.UserAgent(), RequestReceivedTimestamp: MicroTime(l.Clock.Now())}
		if info.IsResourceRequest {
			ev.ObjectRef = &ObjectRef{Resource: info.Resource, Namespace: info.Namespace, Name: info.Name,
				APIGroup: info.APIGroup, APIVersion: info.APIVersion, Subresource: info.Subresource}
		}
		var reqBody *capped
		if level.AtLeast(LevelRequest) && req.Body != nil && req.Body != http.NoBody {
			reqBody = &capped{}
			req.Body = teeBody{Reader: io.TeeReader(req.Body, reqBody), Closer: req.Body}
		}
		// A watch streams for as long as it lasts: its events are not
		// kept.
		rw := &recorder{ResponseWriter: w, keepBody: level.AtLeast(LevelRequestResponse) && info.Verb != "watch"}
		defer func() {
			ev.StageTimestamp = MicroTime(l.Clock.Now())
			ev.ResponseStatus = rw.status()
			// What a handler logged is the decoded object; otherwise a
			// JSON body (a patch, a list, a proxied request) as sent.
			if reqBody != nil && ev.RequestObject == nil {
				ev.RequestObject = reqBody.json()
			}
			if rw.keepBody && ev.ResponseObject == nil {
				ev.ResponseObject = rw.body.json()
			}
			l.write(ev)
		}()
		h.ServeHTTP(rw, req.WithContext(context.WithValue(req.Context(), eventKey{}, ev)))
	})
}

// sourceIPs are the client's addresses: X-Forwarded-For, X-Real-Ip, then
// the peer's, without repeats (utilnet.SourceIPs).
func sourceIPs(req *http.Request) []string {
	var ips []string
	add := func(ip string) {
		ip = strings.TrimSpace(ip)
		if net.ParseIP(ip) == nil {
			return
		}
		for _, have := range ips {
			if have == ip {
				return
			}
		}
		ips = append(ips, ip)
	}
	for _, ip := range strings.Split(req.Header.Get("X-Forwarded-For"), ",") {
		add(ip)
	}
	add(req.Header.Get("X-Real-Ip"))
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		host = req.RemoteAddr
	}
	add(host)
	return ips
}

// capped keeps the first MaxBodyBytes written to it and notes whether
// more came.
type capped struct {
	buf      bytes.Buffer
	overflow bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := MaxBodyBytes - c.buf.Len(); len(p) > room {
		c.overflow = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

// json is the body if it is all there and JSON, else nil.
func (c *capped) json() json.RawMessage {
	b := bytes.TrimSpace(c.buf.Bytes())
	if c.overflow || len(b) == 0 || !json.Valid(b) {
		return nil
	}
	return json.RawMessage(bytes.Clone(b))
}

type teeBody struct {
	io.Reader
	io.Closer
}

// recorder notes the response's code and keeps its body when asked (or
// when it fails, for the Status).
type recorder struct {
	http.ResponseWriter
	code     int
	keepBody bool
	body     capped
}

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	if r.keepBody || r.code >= 300 {
		_, _ = r.body.Write(p)
	}
	return r.ResponseWriter.Write(p)
}

// Flush passes on flushes, which watches need.
func (r *recorder) Flush() { _ = http.NewResponseController(r.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Hijack hands the connection to a handler that upgrades it (exec,
// attach and port-forward: SPDY or WebSocket). Their upgraders ask the
// writer itself for http.Hijacker, so the filter's writer must be one,
// or every upgrade fails with "unable to hijack response" once the audit
// log is on. The response's code is then 101 Switching Protocols, which
// the handler writes on the raw connection where the filter cannot see
// it: kube-apiserver's audit writer notes the same code when it is
// hijacked. The event is written when the handler returns, that is when
// the stream ends.
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(r.ResponseWriter).Hijack()
	if err == nil && r.code == 0 {
		r.code = http.StatusSwitchingProtocols
	}
	return conn, rw, err
}

// status is the event's responseStatus: the code, and for a failure the
// bounded fields of the Status the server answered.
func (r *recorder) status() *ResponseStatus {
	code := r.code
	if code == 0 {
		code = http.StatusOK
	}
	st := &ResponseStatus{Code: code}
	if code < 300 {
		return st
	}
	var body struct {
		Kind    string          `json:"kind"`
		Status  string          `json:"status"`
		Message string          `json:"message"`
		Reason  string          `json:"reason"`
		Details json.RawMessage `json:"details"`
	}
	if json.Unmarshal(r.body.buf.Bytes(), &body) == nil && body.Kind == "Status" {
		st.Status, st.Message, st.Reason, st.Details = body.Status, body.Message, body.Reason, body.Details
	}
	return st
}
