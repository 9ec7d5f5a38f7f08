// Package impersonation lets an authenticated user act as another: the
// WithImpersonation filter of k8s.io/apiserver
// (pkg/endpoints/filters/impersonation.go), what kubectl's --as,
// --as-group and --as-uid send.
//
// A request may carry Impersonate-User, Impersonate-Group (repeated),
// Impersonate-Uid and Impersonate-Extra-<key> headers. Each value is
// authorized, as the requesting user, with the verb "impersonate" on a
// resource named by the value: users, groups (API group ""), uids and
// userextras/<key> (API group authentication.k8s.io), or serviceaccounts
// in the service account's namespace when the user name is
// system:serviceaccount:<namespace>:<name>. The first one refused ends the
// request with the authorization filter's 403. When all are allowed the
// request goes on as the impersonated user — authorization, the access
// reviews, `kubectl auth whoami` and extension servers (X-Remote-User) see
// only that user — and the headers are removed.
//
// As in Kubernetes, the impersonated user is put in system:authenticated
// unless the groups asked for name it or system:unauthenticated (an
// impersonated system:anonymous gets system:unauthenticated instead); a
// service account without Impersonate-Group gets system:serviceaccounts
// and system:serviceaccounts:<namespace>. Groups, uid or extras without
// Impersonate-User are refused with Kubernetes' plain-text 500 ("requested
// [...] without impersonating a user"): that is what kube-apiserver
// answers, although the request is the client's fault.
//
// The filter runs after authentication and before authorization (and so
// before the aggregator's proxy), as in DefaultBuildHandlerChain.
//
// The audit log's event for the request names the impersonated user
// (audit.LogImpersonatedUser). Left out: kubesim's service accounts have
// no tokens yet, so an impersonated one is only a name.
package impersonation
