package ui

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/scenario"
	"github.com/kubesim/kubesim/stepper"
)

//go:embed assets
var assets embed.FS

// Prefix is where the page is served, beside the API on the same port.
const Prefix = "/ui/"

// Header is the header the page sets on its API requests. A cookie alone
// does not authenticate an API request: a cross-site form could send it,
// but it cannot set a custom header (the cookie is SameSite=Strict too).
const Header = "X-Kubesim-UI"

// DefaultSessionTTL is how long a session lasts after login (if its
// token keeps authenticating: SessionRecheck).
const DefaultSessionTTL = 8 * time.Hour

// DefaultLoginLinkTTL is how long the one-time login link works after the
// server made it.
const DefaultLoginLinkTTL = 10 * time.Minute

// Config builds a Server.
type Config struct {
	// API is the API server's handler: the page's watches and writes go
	// to it, with the session's credentials.
	API http.Handler
	// Cluster is the cluster behind API (node stop/start, the scheduler's
	// decision, the controller switches).
	Cluster *cluster.Cluster
	// Runner, in step mode, is the scenario the page steps through; nil
	// in live mode.
	Runner *scenario.Runner
	// Activity, in live mode, is the feed of the components' writes
	// (cluster.Config.OnWrite feeds it); nil: none.
	Activity *Activity
	// Token, when set, is the one token the login form accepts and the
	// API requests without a session must carry: step mode's cluster has
	// no authentication of its own. When empty, a token is good if the
	// API server accepts it.
	Token string
	// LinkCredential is the bearer token a session opened by the login
	// link uses (the admin token in live mode; "" in step mode).
	LinkCredential string
	// Clock times sessions out; Rand makes session ids and the link's
	// code (crypto/rand in production).
	Clock clock.Clock
	Rand  io.Reader
	// SessionTTL is how long a session lasts (DefaultSessionTTL).
	SessionTTL time.Duration
	// LoginLinkTTL is how long the one-time login link works
	// (DefaultLoginLinkTTL).
	LoginLinkTTL time.Duration
	Logger       *slog.Logger
}

// Server serves the page under Prefix and passes every other request to
// the API server, translating the page's session into credentials.
type Server struct {
	cfg      Config
	mux      *http.ServeMux
	sessions *sessions
	static   http.Handler
	// csrf checks that a login or logout comes from the page itself.
	csrf *http.CrossOriginProtection

	// stepMu serialises the step-mode controls: one unit of work at a
	// time, whoever asks.
	stepMu sync.Mutex
	// decisions are the scheduler's decisions by pod (namespace/name):
	// noted after each scheduler step in step mode, told by the
	// scheduler in live mode (from the first login on).
	decisions *decisionStore
	observing sync.Once
	// guard, in live mode, is the API server's own filters in front of
	// the page's routes (guard.go); authorizer is the API server's, which
	// the feeds ask what the user may get. Both nil in step mode.
	guard      http.Handler
	authorizer authz.Authorizer
	// authenticator, in live mode, is the API server's: it names the
	// user of a recorded write (whoWrote). Nil in step mode.
	authenticator authn.Authenticator
	// bound is the node the scheduler chose at a trace entry (step mode).
	decMu sync.Mutex
	bound map[int]string
}

// New builds the server and the one-time login link's code.
func New(cfg Config) (*Server, error) {
	if cfg.API == nil {
		return nil, errors.New("ui: Config.API is required")
	}
	if cfg.Clock == nil || cfg.Rand == nil {
		return nil, errors.New("ui: Config.Clock and Config.Rand are required")
	}
	if cfg.Runner != nil && cfg.Cluster == nil {
		cfg.Cluster = cfg.Runner.Cluster()
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.LoginLinkTTL <= 0 {
		cfg.LoginLinkTTL = DefaultLoginLinkTTL
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	sess, err := newSessions(cfg.Clock, cfg.Rand, cfg.SessionTTL, cfg.LoginLinkTTL)
	if err != nil {
		return nil, err
	}
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), sessions: sess, decisions: newDecisionStore(), bound: map[int]string{},
		static: http.StripPrefix("/ui/static/", http.FileServerFS(sub)), csrf: http.NewCrossOriginProtection()}
	sess.opened = s.pageOpened
	if cfg.Token == "" {
		// Live mode: a session's token is the API server's to accept,
		// and it may stop accepting it.
		sess.authenticates = func(ctx context.Context, token string) bool { return s.probe(ctx, token) != http.StatusUnauthorized }
	}
	if cfg.Cluster != nil && cfg.Runner == nil {
		delegate := cfg.Cluster.Server().Delegate()
		s.guard = delegate.BuildHandlerChain(http.HandlerFunc(s.serveGuarded), false)
		s.authorizer = delegate.Authorizer()
		s.authenticator = delegate.Authenticator()
	}
	s.routes()
	return s, nil
}

// pageOpened starts live mode's records when the first session opens:
// until a page was opened, the cluster pays nothing for them.
func (s *Server) pageOpened() {
	if s.cfg.Runner != nil || s.cfg.Cluster == nil {
		return
	}
	s.observing.Do(func() {
		if s.cfg.Activity != nil {
			s.cfg.Activity.record()
		}
		s.cfg.Cluster.ObserveSchedulingDecisions(s.decisions.observe)
	})
}

// LoginPath is the one-time login link's path and query (print it after
// the server's URL); it works once, for Config.LoginLinkTTL.
func (s *Server) LoginPath() string { return "/ui/login?code=" + s.sessions.linkCode }

func (s *Server) routes() {
	s.mux.HandleFunc("GET /ui/{$}", s.index)
	s.mux.HandleFunc("GET /ui/login", s.loginPage)
	s.mux.HandleFunc("POST /ui/login", s.loginForm)
	s.mux.HandleFunc("POST /ui/logout", s.logout)
	s.mux.Handle("GET /ui/static/", s.static)
	s.mux.HandleFunc("GET /ui/api/info", s.authed(s.info))
	s.mux.HandleFunc("GET /ui/api/trace", s.authed(s.trace))
	s.mux.HandleFunc("GET /ui/api/userwrites", s.authed(s.userWrites))
	s.mux.HandleFunc("GET /ui/api/watch", s.authed(s.watchHub))
	s.mux.HandleFunc("GET /ui/api/activity", s.authed(s.activity))
	s.mux.HandleFunc("POST /ui/api/step", s.authed(s.step))
	s.mux.HandleFunc("POST /ui/api/advance", s.authed(s.advance))
	s.mux.HandleFunc("POST /ui/api/switch", s.authed(s.setSwitch))
	s.mux.HandleFunc("GET /ui/api/why", s.authed(s.why))
	s.mux.HandleFunc("GET /ui/api/decision", s.authed(s.decision))
	s.mux.HandleFunc("GET /ui/api/yaml", s.authed(s.yaml))
	s.mux.HandleFunc("POST /ui/api/apply", s.authed(s.apply))
	s.mux.HandleFunc("GET /ui/api/examples", s.authed(s.examples))
	s.mux.HandleFunc("POST /ui/api/node", s.authed(s.node))
}

// ServeHTTP serves the page's routes, and passes the rest to the API
// server: a request with the page's session cookie gets the session's
// credentials; one without goes as it came (kubectl's bearer token),
// except in step mode, where it must carry Config.Token.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/ui" {
		http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
		return
	}
	if strings.HasPrefix(r.URL.Path, Prefix) {
		s.mux.ServeHTTP(w, r)
		return
	}
	if c, err := r.Cookie(cookieName); err == nil {
		sess, ok := s.sessions.get(r.Context(), c.Value)
		if !ok {
			writeStatus(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
			return
		}
		if r.Header.Get(Header) == "" {
			// A cookie alone could come from another site's form.
			writeStatus(w, http.StatusForbidden, "Forbidden", "the web page's session needs the "+Header+" header")
			return
		}
		r2 := r.Clone(r.Context())
		r2.Header.Del("Cookie")
		r2.Header.Del(Header)
		r2.Header.Del("Authorization")
		if sess.token != "" {
			r2.Header.Set("Authorization", "Bearer "+sess.token)
		}
		if recordable(r) && s.recordsUsers() {
			s.recordWrite(w, r2, "the web page", "the web page")
			return
		}
		s.cfg.API.ServeHTTP(w, r2)
		return
	}
	if s.cfg.Token != "" && !s.sessions.tokenEqual(bearer(r), s.cfg.Token) {
		writeStatus(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
		return
	}
	if recordable(r) && s.cfg.Runner == nil && s.recordsUsers() {
		// kubectl's write, in live mode: where a chain can end.
		client := product(r.UserAgent())
		if r.UserAgent() == "" {
			client = "a client with no user agent"
		}
		s.recordWrite(w, r, "a client ("+product(r.UserAgent())+")", client)
		return
	}
	s.cfg.API.ServeHTTP(w, r)
}

// recordable reports whether a request is a write whose answer can be
// read: not a GET, nor a stream (exec, attach, port-forward, a proxy: an
// upgraded connection goes to the API server as it came).
func recordable(r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Header.Get("Upgrade") != "" {
		return false
	}
	switch path.Base(r.URL.Path) {
	case "exec", "attach", "portforward":
		return false
	}
	return !strings.Contains(r.URL.Path, "/proxy")
}

// recordsUsers reports whether the users' writes are noted: always, in
// step mode (the scenario's record) and in live mode (a bounded ring,
// liveUserWrites) from the server's start, not from the first login: a
// student who applies with kubectl and opens the page afterwards asks
// "why" of what kubectl made, and the answer must name that write, not
// the API server. The users' writes are few (kubectl's, the page's);
// the components' many writes are recorded from the first login on.
func (s *Server) recordsUsers() bool {
	return s.cfg.Runner != nil || s.cfg.Activity != nil
}

// product is a user agent's first word: kubectl/v1.32.0.
func product(ua string) string {
	if ua == "" {
		return "no user agent"
	}
	p, _, _ := strings.Cut(ua, " ")
	return p
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(cookieName); err != nil || !s.sessions.valid(r.Context(), c.Value) {
		http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
		return
	}
	serveAsset(w, "assets/index.html", "text/html; charset=utf-8")
}

func serveAsset(w http.ResponseWriter, name, contentType string) {
	b, err := assets.ReadFile(name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

// writeStatus answers as the API server does: a metav1.Status.
func writeStatus(w http.ResponseWriter, code int, reason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code,
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}

func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// recordWrite passes a user's write to the API server and notes it as the
// user's, so that a causality chain that reaches it ends at "written by
// you": in the scenario (step mode) or live mode's record. from says
// where it came from; in live mode, where the API server names the user,
// the record says "USER, with CLIENT" instead (whoWrote).
func (s *Server) recordWrite(w http.ResponseWriter, r *http.Request, from, client string) {
	// The credentials, as they came: the API server's authentication
	// takes the Authorization header off the request it serves.
	asked := r
	if s.authenticator != nil && s.cfg.Runner == nil {
		asked = r.Clone(r.Context())
	}
	rec := &teeWriter{ResponseWriter: w}
	s.cfg.API.ServeHTTP(rec, r)
	verb := map[string]string{http.MethodPost: "create", http.MethodPut: "update", http.MethodPatch: "patch", http.MethodDelete: "delete"}[r.Method]
	if verb == "" {
		return
	}
	var meta struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name, ResourceVersion string
		} `json:"metadata"`
	}
	if json.Unmarshal(rec.buf.Bytes(), &meta) != nil || meta.Kind == "Status" {
		return
	}
	uw := stepper.Write{Verb: verb, Path: r.URL.Path, Code: rec.code, ResourceVersion: meta.Metadata.ResourceVersion, Name: meta.Metadata.Name}
	if s.cfg.Runner != nil {
		s.cfg.Runner.RecordUserWrite(from, uw)
	} else if s.cfg.Activity != nil {
		if uw.ResourceVersion == "" || uw.Code >= 300 {
			return // not recorded: no need to ask who
		}
		if user := s.whoWrote(asked); user != "" {
			from = user + ", with " + client
		}
		s.cfg.Activity.trace.addUser(from, uw)
	}
}

// whoWrote names the user a write was made as, which the API server
// let through: the one it impersonated (kubectl --as), else the one its
// credentials (a bearer token, a client certificate) authenticate as; ""
// when the server has no authentication. The API server does not say
// whom it authenticated, so the credentials are asked about once more.
func (s *Server) whoWrote(r *http.Request) string {
	if s.authenticator == nil {
		return ""
	}
	if u := r.Header.Get("Impersonate-User"); u != "" {
		return u
	}
	u, ok, err := s.authenticator.AuthenticateRequest(r)
	if err != nil || !ok {
		return ""
	}
	return u.Name
}

// teeWriter keeps a copy of a (small) write answer.
type teeWriter struct {
	http.ResponseWriter
	code int
	buf  bytes.Buffer
}

func (t *teeWriter) WriteHeader(code int) {
	t.code = code
	t.ResponseWriter.WriteHeader(code)
}

// Unwrap gives http.ResponseController the writer underneath.
func (t *teeWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

func (t *teeWriter) Write(p []byte) (int, error) {
	if t.code == 0 {
		t.code = http.StatusOK
	}
	if t.buf.Len() < 1<<20 {
		t.buf.Write(p)
	}
	return t.ResponseWriter.Write(p)
}
