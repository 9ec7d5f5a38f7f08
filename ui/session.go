package ui

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/kubesim/kubesim/clock"
)

const cookieName = "kubesim_ui_session"

// SessionRecheck is how often a session's token is asked about again: a
// session ends at most this long after its token stops authenticating (a
// ServiceAccount deleted with its token, a token file edited), and so do
// the streams it opened.
const SessionRecheck = time.Minute

// session is one logged-in browser: the bearer token its API requests
// carry ("" in step mode, whose cluster has no authentication).
type session struct {
	id      string
	token   string
	expires time.Time
	// verified is when the API server last accepted token (guarded by
	// sessions.mu).
	verified time.Time
}

// sessions holds the live sessions and the one-time login link's code.
type sessions struct {
	clock   clock.Clock
	rand    io.Reader
	ttl     time.Duration
	linkTTL time.Duration

	// authenticates asks the API server whether a token still
	// authenticates; nil when sessions carry no token (step mode).
	authenticates func(ctx context.Context, token string) bool
	// opened is told of every session opened (the live record starts).
	opened func()

	mu          sync.Mutex
	byID        map[string]*session
	linkCode    string
	linkUsed    bool
	linkExpires time.Time
}

func newSessions(c clock.Clock, r io.Reader, ttl, linkTTL time.Duration) (*sessions, error) {
	s := &sessions{clock: c, rand: r, ttl: ttl, linkTTL: linkTTL, byID: map[string]*session{}}
	code, err := s.randomID()
	if err != nil {
		return nil, err
	}
	s.linkCode, s.linkExpires = code, c.Now().Add(linkTTL)
	return s, nil
}

func (s *sessions) randomID() (string, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(s.rand, b); err != nil {
		return "", fmt.Errorf("ui: reading random bytes: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// open starts a session for token, which the API server has just
// accepted.
func (s *sessions) open(token string) (*session, error) {
	id, err := s.randomID()
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	sess := &session{id: id, token: token, expires: now.Add(s.ttl), verified: now}
	s.mu.Lock()
	s.byID[id] = sess
	s.mu.Unlock()
	if s.opened != nil {
		s.opened()
	}
	return sess, nil
}

// get returns a live session. An expired one is forgotten; one whose
// token was last accepted SessionRecheck ago or more is asked about
// again, and forgotten if the API server no longer accepts its token.
func (s *sessions) get(ctx context.Context, id string) (*session, bool) {
	s.mu.Lock()
	sess, ok := s.byID[id]
	if !ok {
		s.mu.Unlock()
		return nil, false
	}
	now := s.clock.Now()
	if !now.Before(sess.expires) {
		delete(s.byID, id)
		s.mu.Unlock()
		return nil, false
	}
	due := s.needsCheck(sess) && !now.Before(sess.verified.Add(SessionRecheck))
	s.mu.Unlock()
	if !due {
		return sess, true
	}
	// Asked outside the lock: other sessions are not held up by the
	// question. A request that went away does not end the session.
	if !s.authenticates(context.WithoutCancel(ctx), sess.token) {
		s.close(id)
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, still := s.byID[id]; !still {
		return nil, false // logged out meanwhile
	}
	if now.After(sess.verified) {
		sess.verified = now
	}
	return sess, true
}

// needsCheck says whether sess's token is ever asked about again.
func (s *sessions) needsCheck(sess *session) bool { return s.authenticates != nil && sess.token != "" }

// nextCheck is when get will next ask about the session (or find it
// expired); false if there is no such session.
func (s *sessions) nextCheck(id string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.byID[id]
	if !ok {
		return time.Time{}, false
	}
	at := sess.expires
	if s.needsCheck(sess) {
		if next := sess.verified.Add(SessionRecheck); next.Before(at) {
			at = next
		}
	}
	return at, true
}

func (s *sessions) valid(ctx context.Context, id string) bool {
	_, ok := s.get(ctx, id)
	return ok
}

func (s *sessions) close(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, id)
}

// useLink consumes the login link's code: it works once, and only until
// linkExpires (a link left in a terminal's scrollback is no key).
func (s *sessions) useLink(code string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.linkUsed || code == "" || !s.tokenEqual(code, s.linkCode) || !s.clock.Now().Before(s.linkExpires) {
		return false
	}
	s.linkUsed = true
	return true
}

func (s *sessions) tokenEqual(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// watchSession returns a channel closed when session id ends — logged
// out, expired, or its token no longer accepted — asking at each of its
// checks (SessionRecheck) while ctx lasts. A stream (the watches, the
// activity feed) ends with it, as the page's other requests do.
func (s *Server) watchSession(ctx context.Context, id string) <-chan struct{} {
	ended := make(chan struct{})
	go func() {
		for {
			at, ok := s.sessions.nextCheck(id)
			if !ok {
				close(ended)
				return
			}
			t := s.cfg.Clock.NewTimer(at.Sub(s.cfg.Clock.Now()))
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C():
			}
			if !s.sessions.valid(ctx, id) {
				close(ended)
				return
			}
		}
	}()
	return ended
}

func (s *Server) setSessionCookie(w http.ResponseWriter, r *http.Request, sess *session) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: sess.id, Path: "/", Expires: sess.expires,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
}

// sameOrigin refuses a login or logout posted from another site: a
// forged login would put the victim in the attacker's session (what they
// then do is seen by the attacker), a forged logout is a nuisance. The
// SameSite cookie cannot help here (the login has no cookie yet), so the
// browser's own word is asked, with net/http's CrossOriginProtection:
// Sec-Fetch-Site, which every browser has sent since 2023, else Origin
// against the Host. A request with neither header is not from a browser
// that could have been tricked into sending it (curl, a script) and
// passes; old browsers that send neither on a same-origin form post pass
// with it.
func (s *Server) sameOrigin(w http.ResponseWriter, r *http.Request) bool {
	if err := s.csrf.Check(r); err != nil {
		s.writeLogin(w, http.StatusForbidden, "This login or logout came from another site, so it was refused. Use the page's own form.")
		return false
	}
	return true
}

// loginPage shows the token form, or uses the one-time link.
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("code")
	if code == "" {
		s.writeLogin(w, http.StatusOK, "")
		return
	}
	if !s.sessions.useLink(code) {
		s.writeLogin(w, http.StatusForbidden, fmt.Sprintf("This login link is not valid: it has been used already, it is older than %s, "+
			"or it is not the one this server printed. Log in with %s.", s.cfg.LoginLinkTTL, s.tokenWord()))
		return
	}
	sess, err := s.sessions.open(s.cfg.LinkCredential)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.setSessionCookie(w, r, sess)
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

// loginForm checks a token: against Config.Token in step mode, else by
// asking the API server whether it knows it.
func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(w, r) {
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	if !s.tokenAccepted(r, token) {
		s.writeLogin(w, http.StatusUnauthorized, "The API server did not accept this token (Unauthorized).")
		return
	}
	credential := token
	if s.cfg.Token != "" {
		credential = "" // step mode: the cluster itself checks nothing
	}
	sess, err := s.sessions.open(credential)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.setSessionCookie(w, r, sess)
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

func (s *Server) tokenAccepted(r *http.Request, token string) bool {
	if token == "" {
		return false
	}
	if s.cfg.Token != "" {
		return s.sessions.tokenEqual(token, s.cfg.Token)
	}
	return s.probe(r.Context(), token) == http.StatusOK
}

// probe asks the API server for its discovery with token, as a client
// would, and returns the answer's code: 401 when the token does not
// authenticate.
func (s *Server) probe(ctx context.Context, token string) int {
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/api", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	s.cfg.API.ServeHTTP(rec, req)
	return rec.Code
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(w, r) {
		return
	}
	if c, err := r.Cookie(cookieName); err == nil {
		s.sessions.close(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}

// loginHelp is the login page's help, by mode: live mode's users have a
// kubeconfig with a token; step mode's cluster has none, and the token
// is the one kubesim printed beside the link. The key is i18n.js's (the
// page shows its Chinese text), the text the English one without
// scripts.
var loginHelp = map[bool][2]string{
	false: {"login.help", "Log in with the token of your kubeconfig (users[0].user.token), or open the one-time link kubesim printed when it started."},
	true:  {"login.help.step", "Open the login link kubesim printed when it started (it works once), or log in with the token printed beside it."},
}

// tokenWord is where the login's token comes from, in an error message.
func (s *Server) tokenWord() string {
	if s.cfg.Token != "" {
		return "the token kubesim printed"
	}
	return "the kubeconfig's token"
}

func (s *Server) writeLogin(w http.ResponseWriter, code int, msg string) {
	b, err := assets.ReadFile("assets/login.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	help := loginHelp[s.cfg.Token != ""]
	page := strings.NewReplacer("<!--MESSAGE-->", html.EscapeString(msg), "<!--HELP-KEY-->", help[0], "<!--HELP-->", html.EscapeString(help[1])).Replace(string(b))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, page)
}
