// Package authz decides whether an authenticated user may make a request:
// kube-apiserver's authorization step, between authentication and
// admission. It holds the RBAC authorizer (k8s.io/kubernetes
// plugin/pkg/auth/authorizer/rbac): a request is allowed when a
// ClusterRoleBinding, or a RoleBinding in the request's namespace, grants
// the user (by name, group or service account) a role with a rule that
// matches its verb, API group, resource, subresource and name (or its
// non-resource path). Members of system:masters are allowed everything,
// as kube-apiserver's privileged-group authorizer allows them. Nothing is
// denied outright: RBAC only ever adds permissions.
//
// It also holds the escalation check of RBAC's registry (pkg/registry/rbac
// validation): a user may create a role, or bind one, only with rules it
// holds itself (or with the escalate and bind verbs), and the 403 wording
// of the authorization filter (responsewriters.forbiddenMessage).
//
// This package is the decision only; it reads roles and bindings through
// the narrow RuleSource interface, so that tests give it slices and the
// server its watch-cached listers.
//
// WithAuthorization is the filter the API server puts after
// authentication; the in-process loopback has it too, for the components
// whose identity the cluster attaches there (apiserver.LoopbackAs). A
// request without a user is the API server's own privileged loopback and
// is not authorized, as kube-apiserver's loopback token is in
// system:masters. --authorization-mode lists the authorizers asked in
// order (ParseModes, Union): Node (package nodeauthz), RBAC, AlwaysAllow.
//
// Left out: webhook and ABAC authorizers.
package authz
