// Package reviews serves the questions a client may put to the
// authorizer and the authenticator, answered on create and never stored:
// authorization.k8s.io/v1 SelfSubjectAccessReview ("may I?", kubectl auth
// can-i), SubjectAccessReview ("may they?"), LocalSubjectAccessReview ("may
// they, in this namespace?") and SelfSubjectRulesReview ("what may I?",
// kubectl auth can-i --list), and authentication.k8s.io/v1
// SelfSubjectReview ("who am I?", kubectl auth whoami) and TokenReview
// ("whose is this token?"). They are kube-apiserver's
// pkg/registry/authorization and pkg/registry/authentication.
//
// Each is a registry.Resource with CreateOnly: the generic handlers decode,
// default, admit and validate the question; this package answers it.
//
// Left out: the spec's field and label selectors and extra, a reason on
// allowed answers (RBAC's "allowed by ClusterRoleBinding ..."), and a
// TokenReview's audiences narrowed to the token's own (the answer names
// those asked for, which the token was checked against).
package reviews
