package api

import (
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
)

// This file holds authorization.k8s.io/v1 (k8s.io/api/authorization/v1)
// and authentication.k8s.io/v1's SelfSubjectReview
// (k8s.io/api/authentication/v1): questions put to the authorizer and the
// authenticator, answered on create and never stored. The protobuf field
// numbers are those of k8s.io/api's generated.proto.

// ResourceAttributes describe a resource request to authorize.
type ResourceAttributes = authorizationv1.ResourceAttributes

// NonResourceAttributes describe a non-resource request (a path).
type NonResourceAttributes = authorizationv1.NonResourceAttributes

// SubjectAccessReviewStatus is the answer: allowed, or why not.
type SubjectAccessReviewStatus = authorizationv1.SubjectAccessReviewStatus

// SelfSubjectAccessReviewSpec asks about the requesting user; exactly one
// of the attributes is set.
type SelfSubjectAccessReviewSpec = authorizationv1.SelfSubjectAccessReviewSpec

// SelfSubjectAccessReview asks "may I?" (kubectl auth can-i).
type SelfSubjectAccessReview = authorizationv1.SelfSubjectAccessReview

// SubjectAccessReviewSpec asks about any user.
type SubjectAccessReviewSpec = authorizationv1.SubjectAccessReviewSpec

// SubjectAccessReview asks "may this user?" (webhooks, kubectl auth can-i
// --as goes through impersonation instead).
type SubjectAccessReview = authorizationv1.SubjectAccessReview

// SelfSubjectRulesReviewSpec names the namespace whose rules to list.
type SelfSubjectRulesReviewSpec = authorizationv1.SelfSubjectRulesReviewSpec

// ResourceRule is a PolicyRule's resource part, as a rules review lists it.
type ResourceRule = authorizationv1.ResourceRule

// NonResourceRule is a PolicyRule's non-resource part.
type NonResourceRule = authorizationv1.NonResourceRule

// SubjectRulesReviewStatus lists what the user may do; Incomplete when
// some rules could not be read (a binding to a missing role).
type SubjectRulesReviewStatus = authorizationv1.SubjectRulesReviewStatus

// SelfSubjectRulesReview lists the requesting user's rules in a namespace
// (kubectl auth can-i --list).
type SelfSubjectRulesReview = authorizationv1.SelfSubjectRulesReview

// UserInfo is who the authenticator says the user is
// (authentication.k8s.io/v1).
type UserInfo = authenticationv1.UserInfo

// SelfSubjectReviewStatus holds the requesting user.
type SelfSubjectReviewStatus = authenticationv1.SelfSubjectReviewStatus

// SelfSubjectReview asks "who am I?" (kubectl auth whoami).
type SelfSubjectReview = authenticationv1.SelfSubjectReview
