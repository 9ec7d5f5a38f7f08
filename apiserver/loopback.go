package apiserver

import (
	"context"
	"net/http"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/request"
)

// LoopbackIdentity picks the user an in-process request acts as; nil
// keeps the API server's own privileged loopback.
type LoopbackIdentity func(info *request.Info) *authn.UserInfo

// LoopbackAs wraps a LoopbackHandler so that every request through it is
// made as the user identity picks: the in-process components'
// credential. In Kubernetes each component presents a client certificate
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
		// The Info parsed here is handed on with the user, so that the
		// chain need not parse the request again (Info.ParsedFrom checks it
		// is this request's).
		pending := &loopbackUser{info: request.Parse(req)}
		if u := identity(pending.info); u != nil {
			pending.u = u.DeepCopy()
		}
		loopback.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), loopbackUserKey{}, pending)))
	})
}

// loopbackUserKey is the context key under which LoopbackAs hands the
// loopback chain the user of one request.
type loopbackUserKey struct{}

// loopbackUser is what LoopbackAs hands the chain: the user (nil: the
// privileged loopback) and the request's Info.
type loopbackUser struct {
	u    *authn.UserInfo
	info *request.Info
}

// withLoopbackUser starts the loopback chain. An in-process call runs in
// its caller's context, which may be that of another request (a kubelet
// reading a ConfigMap while it serves an exec, an admission step): the
// user and the request info found there are the outer request's, not
// this one's. So the user is only the one LoopbackAs handed over for
// this very request (then consumed: a call nested inside it is the
// privileged loopback unless it too goes through LoopbackAs), and the
// request info is parsed again.
func withLoopbackUser(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var u *authn.UserInfo
		var info *request.Info
		if p, ok := req.Context().Value(loopbackUserKey{}).(*loopbackUser); ok && p != nil {
			u, info = p.u, p.info
		}
		if !info.ParsedFrom(req) {
			info = request.Parse(req)
		}
		ctx := context.WithValue(req.Context(), loopbackUserKey{}, (*loopbackUser)(nil))
		ctx = authn.WithUser(ctx, u) // nil: no user, the privileged loopback
		ctx = request.WithInfo(ctx, info)
		h.ServeHTTP(w, req.WithContext(ctx))
	})
}

// FixedIdentity is a LoopbackIdentity that is always u.
func FixedIdentity(u *authn.UserInfo) LoopbackIdentity {
	return func(*request.Info) *authn.UserInfo { return u }
}
