package ui

import (
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

// session is one logged-in browser: the bearer token its API requests
// carry ("" in step mode, whose cluster has no authentication).
type session struct {
	token   string
	expires time.Time
}

// sessions holds the live sessions and the one-time login link's code.
type sessions struct {
	clock clock.Clock
	rand  io.Reader
	ttl   time.Duration

	// opened is told of every session opened (the live record starts).
	opened func()

	mu       sync.Mutex
	byID     map[string]*session
	linkCode string
	linkUsed bool
}

func newSessions(c clock.Clock, r io.Reader, ttl time.Duration) (*sessions, error) {
	s := &sessions{clock: c, rand: r, ttl: ttl, byID: map[string]*session{}}
	code, err := s.randomID()
	if err != nil {
		return nil, err
	}
	s.linkCode = code
	return s, nil
}

func (s *sessions) randomID() (string, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(s.rand, b); err != nil {
		return "", fmt.Errorf("ui: reading random bytes: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// open starts a session for token.
func (s *sessions) open(token string) (string, time.Time, error) {
	id, err := s.randomID()
	if err != nil {
		return "", time.Time{}, err
	}
	exp := s.clock.Now().Add(s.ttl)
	s.mu.Lock()
	s.byID[id] = &session{token: token, expires: exp}
	s.mu.Unlock()
	if s.opened != nil {
		s.opened()
	}
	return id, exp, nil
}

// get returns a live session; an expired one is forgotten.
func (s *sessions) get(id string) (*session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.byID[id]
	if !ok {
		return nil, false
	}
	if !s.clock.Now().Before(sess.expires) {
		delete(s.byID, id)
		return nil, false
	}
	return sess, true
}

func (s *sessions) valid(id string) bool {
	_, ok := s.get(id)
	return ok
}

func (s *sessions) close(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, id)
}

// useLink consumes the login link's code: it works once.
func (s *sessions) useLink(code string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.linkUsed || code == "" || !s.tokenEqual(code, s.linkCode) {
		return false
	}
	s.linkUsed = true
	return true
}

func (s *sessions) tokenEqual(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

func (s *Server) setSessionCookie(w http.ResponseWriter, r *http.Request, id string, exp time.Time) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: id, Path: "/", Expires: exp,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
}

// loginPage shows the token form, or uses the one-time link.
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("code")
	if code == "" {
		s.writeLogin(w, http.StatusOK, "")
		return
	}
	if !s.sessions.useLink(code) {
		s.writeLogin(w, http.StatusForbidden, "This login link is not valid: it has been used already, or it is not the one this server printed. Log in with the kubeconfig's token.")
		return
	}
	id, exp, err := s.sessions.open(s.cfg.LinkCredential)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.setSessionCookie(w, r, id, exp)
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

// loginForm checks a token: against Config.Token in step mode, else by
// asking the API server whether it knows it.
func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) {
	token := strings.TrimSpace(r.PostFormValue("token"))
	if !s.tokenAccepted(r, token) {
		s.writeLogin(w, http.StatusUnauthorized, "The API server did not accept this token (Unauthorized).")
		return
	}
	credential := token
	if s.cfg.Token != "" {
		credential = "" // step mode: the cluster itself checks nothing
	}
	id, exp, err := s.sessions.open(credential)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.setSessionCookie(w, r, id, exp)
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

func (s *Server) tokenAccepted(r *http.Request, token string) bool {
	if token == "" {
		return false
	}
	if s.cfg.Token != "" {
		return s.sessions.tokenEqual(token, s.cfg.Token)
	}
	probe := httptest.NewRequestWithContext(r.Context(), http.MethodGet, "/api", nil)
	probe.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	s.cfg.API.ServeHTTP(rec, probe)
	return rec.Code == http.StatusOK
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(cookieName); err == nil {
		s.sessions.close(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}

func (s *Server) writeLogin(w http.ResponseWriter, code int, msg string) {
	b, err := assets.ReadFile("assets/login.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	page := strings.Replace(string(b), "<!--MESSAGE-->", html.EscapeString(msg), 1)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, page)
}
