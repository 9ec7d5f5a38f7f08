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
// admin.conf. ClientCertAuthenticator is .../request/x509 (--client-ca-file:
// CN the user, O the groups; the chain is verified here so that a
// certificate of another CA is a 401), AnonymousAuthenticator and
// FailOnError are .../request/anonymous and union.NewFailOnError
// (--anonymous-auth). ServiceAccount tokens are package
// apiserver/serviceaccount's; the API server adds them to the union.
//
// Impersonation, which switches the user after authentication, is the
// impersonation package's.
//
// Left out: bootstrap tokens, OIDC, webhooks, authenticating proxies,
// certificate revocation, and caching of token results.
//
// Read the real ones at
// https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/apiserver/pkg/authentication
// and .../staging/src/k8s.io/apiserver/pkg/endpoints/filters/authentication.go
package authn
