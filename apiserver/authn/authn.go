package authn

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
)

// Well-known groups, as in k8s.io/apiserver/pkg/authentication/user.
const (
	// SystemPrivilegedGroup is the group that RBAC lets do anything.
	SystemPrivilegedGroup = "system:masters"
	// AllAuthenticated is added to every authenticated user.
	AllAuthenticated = "system:authenticated"
	// AllUnauthenticated is the group of anonymous requests.
	AllUnauthenticated = "system:unauthenticated"
	// Anonymous is the user name of anonymous requests.
	Anonymous = "system:anonymous"
)

// UserInfo describes an authenticated user, like user.DefaultInfo.
type UserInfo struct {
	Name   string
	UID    string
	Groups []string
	// Extra holds further facts an authenticator vouches for (scopes,
	// say); here only impersonation (Impersonate-Extra-<key>) sets it.
	Extra map[string][]string
}

// DeepCopy returns a copy that shares no slice with u.
func (u *UserInfo) DeepCopy() *UserInfo {
	if u == nil {
		return nil
	}
	c := *u
	c.Groups = slices.Clone(u.Groups)
	if u.Extra != nil {
		c.Extra = make(map[string][]string, len(u.Extra))
		for k, v := range u.Extra {
			c.Extra[k] = slices.Clone(v)
		}
	}
	return &c
}

// Authenticator finds the user a request comes from. ok is false when the
// request carries no credential this authenticator understands, or a
// credential it rejects (then err says why).
type Authenticator interface {
	AuthenticateRequest(req *http.Request) (user *UserInfo, ok bool, err error)
}

// AuthenticatorFunc adapts a function to Authenticator.
type AuthenticatorFunc func(req *http.Request) (*UserInfo, bool, error)

// AuthenticateRequest calls f.
func (f AuthenticatorFunc) AuthenticateRequest(req *http.Request) (*UserInfo, bool, error) {
	return f(req)
}

// Union tries each authenticator in turn and returns the first user found.
// Like union.New in Kubernetes, it reports the errors of the others only
// when none succeeds.
func Union(auths ...Authenticator) Authenticator {
	return AuthenticatorFunc(func(req *http.Request) (*UserInfo, bool, error) {
		var errs []error
		for _, a := range auths {
			u, ok, err := a.AuthenticateRequest(req)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if ok {
				return u, true, nil
			}
		}
		return nil, false, errors.Join(errs...)
	})
}

// authError is a constant error, so that sentinels need no package
// variables.
type authError string

func (e authError) Error() string { return string(e) }

// ErrInvalidToken is what Kubernetes' bearer-token authenticator reports
// for a token no token authenticator accepts.
const ErrInvalidToken = authError("invalid bearer token")

// bearerToken returns the token of an "Authorization: Bearer <token>"
// header; the scheme is case-insensitive as in Kubernetes.
func bearerToken(req *http.Request) (string, bool) {
	auth := strings.TrimSpace(req.Header.Get("Authorization"))
	if auth == "" {
		return "", false
	}
	parts := strings.SplitN(auth, " ", 3)
	if len(parts) < 2 || !strings.EqualFold(parts[0], "bearer") {
		return "", false
	}
	if parts[1] == "" { // "Bearer  token": Kubernetes refuses the extra space
		return "", false
	}
	return parts[1], true
}

// userKey is the context key of the authenticated user.
type userKey struct{}

// WithUser returns a context carrying the user, as
// request.WithUser does.
func WithUser(ctx context.Context, u *UserInfo) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// audiencesKey is the context key of the audiences a token is checked for.
type audiencesKey struct{}

// WithAudiences returns a context asking the authenticators to accept only
// tokens meant for one of auds (authenticator.WithAudiences): a
// TokenReview's spec.audiences.
func WithAudiences(ctx context.Context, auds []string) context.Context {
	return context.WithValue(ctx, audiencesKey{}, auds)
}

// AudiencesFrom returns the audiences set by WithAudiences; ok is false
// when none were, and the server's own audiences apply.
func AudiencesFrom(ctx context.Context) (auds []string, ok bool) {
	auds, ok = ctx.Value(audiencesKey{}).([]string)
	return auds, ok && len(auds) > 0
}

// UserFrom returns the user stored by WithUser.
func UserFrom(ctx context.Context) (*UserInfo, bool) {
	u, ok := ctx.Value(userKey{}).(*UserInfo)
	return u, ok && u != nil
}

// unauthorizedBody is the metav1.Status kube-apiserver sends with a 401;
// kubectl turns its reason into "You must be logged in to the server
// (Unauthorized)".
const unauthorizedBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}` + "\n"

// Unauthorized writes the 401 Status that kube-apiserver writes when
// authentication fails.
func Unauthorized() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		// A client that cannot authenticate gets its answer, not a
		// keep-alive connection to hold open: HTTP/1.1 closes after this
		// response, and Go's HTTP/2 server sends GOAWAY on this header.
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(unauthorizedBody))
	})
}

// WithAuthentication authenticates each request before handler sees it.
// On success the user, with system:authenticated added, is stored in the
// request context (see UserFrom) and the Authorization header is removed
// so that nothing further down is tempted to reuse the credential. On
// failure onUnauthorized answers instead; nil means Unauthorized().
func WithAuthentication(handler http.Handler, auth Authenticator, onUnauthorized http.Handler) http.Handler {
	if onUnauthorized == nil {
		onUnauthorized = Unauthorized()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		u, ok, err := auth.AuthenticateRequest(req)
		if err != nil || !ok || u == nil {
			onUnauthorized.ServeHTTP(w, req)
			return
		}
		u = u.DeepCopy() // the authenticator's copy stays untouched
		if !slices.Contains(u.Groups, AllAuthenticated) && u.Name != Anonymous {
			u.Groups = append(u.Groups, AllAuthenticated)
		}
		req.Header.Del("Authorization")
		handler.ServeHTTP(w, req.WithContext(WithUser(req.Context(), u)))
	})
}

// BearerToken returns the token of an "Authorization: Bearer <token>"
// header, for token authenticators outside this package.
func BearerToken(req *http.Request) (string, bool) { return bearerToken(req) }
