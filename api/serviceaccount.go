package api

import (
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
)

// This file holds core/v1 ServiceAccount and authentication.k8s.io/v1
// TokenRequest (k8s.io/api/core/v1 and authentication/v1 types.go): a
// pod's identity and the request that mints a token for it. The protobuf
// field numbers are those of k8s.io/api's generated.proto.

// ServiceAccount is an identity for processes that run in pods: the
// API server's tokens name it (system:serviceaccount:NAMESPACE:NAME).
type ServiceAccount = corev1.ServiceAccount

// ServiceAccountList is a list of ServiceAccounts.
type ServiceAccountList = corev1.ServiceAccountList

// TokenRequest asks for a token of a service account: POST
// serviceaccounts/NAME/token (kubectl create token).
type TokenRequest = authenticationv1.TokenRequest

// TokenRequestSpec is what the client asks for.
type TokenRequestSpec = authenticationv1.TokenRequestSpec

// TokenRequestStatus is the minted token.
type TokenRequestStatus = authenticationv1.TokenRequestStatus

// BoundObjectReference names the object a token is bound to.
type BoundObjectReference = authenticationv1.BoundObjectReference
