// Package serviceaccount issues and checks ServiceAccount tokens: the
// JWT token generator and authenticator of kube-apiserver
// (pkg/serviceaccount: jwt.go, claims.go) with the bound-object checks of
// its validator, and the serviceaccounts/NAME/token subresource that mints
// them (pkg/registry/core/serviceaccount/storage/token.go, TokenRequest of
// authentication.k8s.io/v1, what `kubectl create token` posts).
//
// A token is a JSON Web Token signed with ES256 (jwt.go shows the format
// with the standard library only: base64url, encoding/json, crypto/ecdsa).
// Its claims name the issuer, the audience, the lifetime, the account and,
// for a bound token, the Pod or Secret it is bound to; the authenticator
// accepts it only while those objects exist with the same uids, so that
// deleting a pod or its account revokes its tokens at once. Each token has
// a random jti, reported as the credential-id extra ("JTI=..."); a token
// bound to a scheduled pod also names the pod's node (the node-name and
// node-uid extras, as kube-apiserver 1.32 does by default).
//
// The issuer discovery endpoints (openidmetadata.go) publish the key: an
// OIDC discovery document at /.well-known/openid-configuration and the key
// set at /openid/v1/jwks, readable by every service account
// (system:service-account-issuer-discovery).
//
// Left out: RS256 and several verification keys (--service-account-key-file
// lists), the warnafter claim and the one-year extension of
// kubelet tokens, tokens bound to a Node (boundObjectRef kind Node) and
// the check of a pod-bound token's node, legacy Secret-based tokens, and
// leeway on expiry (a token is expired from its exp second on).
//
// Read the real ones at
// https://github.com/kubernetes/kubernetes/tree/master/pkg/serviceaccount and
// https://github.com/kubernetes/kubernetes/blob/master/pkg/registry/core/serviceaccount/storage/token.go
package serviceaccount
