package authn

import "net/http"

// AnonymousAuthenticator lets every request in as system:anonymous in the
// group system:unauthenticated, as kube-apiserver does with
// --anonymous-auth=true (k8s.io/apiserver/pkg/authentication/request/anonymous).
// Authorization then decides what anonymous may do; with RBAC, only what
// a binding to system:anonymous or system:unauthenticated grants.
func AnonymousAuthenticator() Authenticator {
	return AuthenticatorFunc(func(*http.Request) (*UserInfo, bool, error) {
		return &UserInfo{Name: Anonymous, Groups: []string{AllUnauthenticated}}, true, nil
	})
}

// FailOnError tries first, then, only when first found no credential at
// all, next: a request with a bad credential is refused rather than let
// in as anonymous (union.NewFailOnError, how kube-apiserver adds the
// anonymous authenticator).
func FailOnError(first, next Authenticator) Authenticator {
	return AuthenticatorFunc(func(req *http.Request) (*UserInfo, bool, error) {
		u, ok, err := first.AuthenticateRequest(req)
		if err != nil || ok {
			return u, ok, err
		}
		return next.AuthenticateRequest(req)
	})
}
