package ui

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/request"
)

// The page's own routes (/ui/api/...) are the API server's too, in live
// mode: each request goes through the API server's filters with the
// session's token, as a request of kubectl's would —
//
//   - authentication: a token that no longer authenticates is a 401, and
//     ends the session;
//   - the audit log: every page request is an event naming the user, its
//     path and its answer; an action says what it did in an annotation
//     (kubesim.io/controller-switch, kubesim.io/node-kubelet);
//   - authorization: each route is a non-resource path, the verb the
//     request's method (get, post), decided by RBAC. The bootstrap role
//     kubesim:web-page lets every authenticated user read the page and
//     use its apply box; the routes that act on the cluster itself —
//     a controller's switch (post /ui/api/switch), a node's kubelet
//     (post /ui/api/node) — are cluster-admin's alone by default.
//
// What the page then shows is the user's too: the watches and the apply
// box call the API with the session's token, and the feeds (activity,
// why, decision) keep only what the user may get, asking the API server's
// authorizer (mayGet). Step mode's cluster has no authentication: the
// session is its gate, and nothing else is asked.

// call is one request of the page's own routes.
type call struct {
	sess *session
	// user is the session's user as the API server's filters
	// authenticated it; nil in step mode and on a cluster without
	// authentication, where the feeds keep everything.
	user *authn.UserInfo
	// audited carries the request's audit event (audit.AddAnnotations);
	// the handler's own context does not, so that the API calls it makes
	// are audited as themselves.
	audited context.Context
}

// pageCall is what authed hands to serveGuarded through the filters.
type pageCall struct {
	h    func(http.ResponseWriter, *http.Request, *call)
	sess *session
	// ctx is the request's context before the filters added the user and
	// the audit event to it.
	ctx context.Context
	// reached says the filters let the request through.
	reached bool
}

type pageCallKey struct{}

// authed lets a /ui/api request in only with a live session (and, but for
// a GET, the page's header), then, in live mode, through the API server's
// filters as the session's user.
func (s *Server) authed(h func(http.ResponseWriter, *http.Request, *call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ck, err := r.Cookie(cookieName)
		if err != nil {
			writeStatus(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
			return
		}
		sess, ok := s.sessions.get(r.Context(), ck.Value)
		if !ok {
			writeStatus(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
			return
		}
		if r.Method != http.MethodGet && r.Header.Get(Header) == "" {
			writeStatus(w, http.StatusForbidden, "Forbidden", "the web page's session needs the "+Header+" header")
			return
		}
		if s.guard == nil {
			h(w, r, &call{sess: sess, audited: r.Context()})
			return
		}
		pc := &pageCall{h: h, sess: sess, ctx: r.Context()}
		r2 := r.Clone(context.WithValue(r.Context(), pageCallKey{}, pc))
		// The page acts as the session's user, and as nobody else.
		for _, k := range []string{"Cookie", "Authorization", "Impersonate-User", "Impersonate-Group", "Impersonate-Uid"} {
			r2.Header.Del(k)
		}
		for k := range r2.Header {
			if strings.HasPrefix(http.CanonicalHeaderKey(k), "Impersonate-Extra-") {
				delete(r2.Header, k)
			}
		}
		if sess.token != "" {
			r2.Header.Set("Authorization", "Bearer "+sess.token)
		}
		rw := &refusalWriter{ResponseWriter: w}
		s.guard.ServeHTTP(rw, r2)
		if !pc.reached && rw.code == http.StatusUnauthorized {
			// The token no longer authenticates: the session is over.
			s.sessions.close(sess.id)
		}
	}
}

// serveGuarded is the page's route behind the API server's filters.
func (s *Server) serveGuarded(w http.ResponseWriter, r *http.Request) {
	pc, ok := r.Context().Value(pageCallKey{}).(*pageCall)
	if !ok {
		writeStatus(w, http.StatusNotFound, "NotFound", "the page's routes are served by the page")
		return
	}
	pc.reached = true
	c := &call{sess: pc.sess, audited: r.Context()}
	c.user, _ = authn.UserFrom(r.Context())
	pc.h(w, r.WithContext(pc.ctx), c)
}

// refusalWriter notes the code of an answer the filters gave themselves.
type refusalWriter struct {
	http.ResponseWriter
	code int
}

func (r *refusalWriter) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}

// Flush passes flushes on: the page's streams need them.
func (r *refusalWriter) Flush() { _ = http.NewResponseController(r.ResponseWriter).Flush() }

// Unwrap gives http.ResponseController the writer underneath.
func (r *refusalWriter) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// getAttributes describes a get of the object at path — a collection with
// name, or the object's own path, a subresource's included (the object is
// what is read) — as the authorizer reads it; a path without a name is a
// list. ok is false for a path that names no API object.
func getAttributes(u *authn.UserInfo, path, name string) (authz.Attributes, bool) {
	info := request.ParseParts(http.MethodGet, path, "")
	if !info.IsResourceRequest || info.Resource == "" {
		return authz.Attributes{}, false
	}
	if info.Name == "" {
		info.Name = name
	}
	verb := "get"
	if info.Name == "" {
		verb = "list"
	}
	return authz.Attributes{User: u, Verb: verb, ResourceRequest: true, Namespace: info.Namespace, APIGroup: info.APIGroup,
		APIVersion: info.APIVersion, Resource: info.Resource, Name: info.Name, Path: info.Path}, true
}

// mayGet says whether the page's user may get the object at path and
// name (getAttributes): nil if so, else the API server's 403 Status for
// it. Without a user (step mode, a cluster without authentication) there
// is nobody to refuse.
func (s *Server) mayGet(ctx context.Context, c *call, path, name string) error {
	if c.user == nil || s.authorizer == nil {
		return nil
	}
	attrs, ok := getAttributes(c.user, path, name)
	if !ok {
		return api.NewBadRequest(fmt.Sprintf("%q is not the path of an API object", path))
	}
	d, reason, err := s.authorizer.Authorize(ctx, attrs)
	if d == authz.DecisionAllow {
		return nil
	}
	if err != nil && reason == "" {
		reason = err.Error()
	}
	return authz.Forbidden(attrs, reason)
}

// mayGetCache remembers a stream's answers of mayGet for SessionRecheck,
// so that a busy feed does not ask the authorizer for every line; what a
// role or binding changes shows within that time, as the session's own
// checks do. It holds at most mayGetCacheSize answers.
type mayGetCache struct {
	s     *Server
	c     *call
	since time.Time
	seen  map[string]bool
}

const mayGetCacheSize = 4096

func (s *Server) newMayGetCache(c *call) *mayGetCache {
	return &mayGetCache{s: s, c: c, since: s.cfg.Clock.Now(), seen: map[string]bool{}}
}

func (m *mayGetCache) allowed(ctx context.Context, path, name string) bool {
	if m.c.user == nil || m.s.authorizer == nil {
		return true
	}
	if now := m.s.cfg.Clock.Now(); now.Sub(m.since) >= SessionRecheck || len(m.seen) >= mayGetCacheSize {
		m.since, m.seen = now, map[string]bool{}
	}
	key := path + "\x00" + name
	ok, found := m.seen[key]
	if !found {
		ok = m.s.mayGet(ctx, m.c, path, name) == nil
		m.seen[key] = ok
	}
	return ok
}
