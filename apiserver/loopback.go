package apiserver

import (
	"net/http"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/request"
)

// LoopbackIdentity picks the user an in-process request acts as; nil
// keeps the API server's own privileged loopback.
type LoopbackIdentity func(info *request.Info) *authn.UserInfo

// LoopbackAs wraps a LoopbackHandler so that every request through it is
// made as the user identity picks: the in-process components' credential
// (issue 14). In Kubernetes each component presents a client certificate
// or a token and the authentication filter finds its user; in process
// there is nothing to present, so the identity is attached here, by the
// code that builds the component's client, and then audited and
// authorized like any user's. It is never read from the request: no
// header a client can send sets it, and the handler wrapped is never
// served on a socket. A request whose picked user is nil goes through as
// the privileged loopback (kube-apiserver's system:apiserver loopback
// token): the API server's own loops, and tests and scenario steps acting
// as the admin.
func LoopbackAs(loopback http.Handler, identity LoopbackIdentity) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		u := identity(request.Parse(req))
		if u == nil {
			loopback.ServeHTTP(w, req)
			return
		}
		loopback.ServeHTTP(w, req.WithContext(authn.WithUser(req.Context(), u.DeepCopy())))
	})
}

// FixedIdentity is a LoopbackIdentity that is always u.
func FixedIdentity(u *authn.UserInfo) LoopbackIdentity {
	return func(*request.Info) *authn.UserInfo { return u }
}

// Authorizer is the server's authorizer: the modes of
// Config.AuthorizationMode in order (benchmarks and reviews ask it).
func (s *Server) Authorizer() authz.Authorizer { return s.authorizer }
