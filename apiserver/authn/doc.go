// Package authn decides who sent a request to the API server.
//
// It simulates the token path of kube-apiserver's authentication:
// k8s.io/apiserver/pkg/authentication/request/bearertoken (reading
// "Authorization: Bearer <token>"), .../token/tokenfile (the static
// --token-auth-file CSV "token,user,uid,\"group1,group2\""),
// .../group.AuthenticatedGroupAdder (everyone authenticated is in
// system:authenticated), .../request/union, and the filter
// k8s.io/apiserver/pkg/endpoints/filters.WithAuthentication that stores the
// user in the request context or answers 401 Unauthorized. EnsureTokenFile
// creates the admin credential on the first start, as kubeadm creates
// admin.conf.
//
// Impersonation, which switches the user after authentication, is the
// impersonation package's.
//
// Left out: client certificates, service-account and bootstrap tokens,
// OIDC, webhooks, authenticating proxies, anonymous requests (a request
// without a valid token is refused, as with --anonymous-auth=false),
// audiences and token caching.
//
// Read the real ones at
// https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/apiserver/pkg/authentication
// and .../staging/src/k8s.io/apiserver/pkg/endpoints/filters/authentication.go
package authn
