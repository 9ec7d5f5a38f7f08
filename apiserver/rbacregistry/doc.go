// Package rbacregistry is what kube-apiserver adds around the RBAC
// authorizer (package authz): the roles and bindings it reads, kept in
// memory (the RBAC authorizer's informer-fed listers), the escalation
// check of the RBAC registry (pkg/registry/rbac: a user may create a role
// or a binding only within the rules it holds, unless it may escalate or
// bind), and the bootstrap policy (plugin/pkg/auth/authorizer/rbac/
// bootstrappolicy: cluster-admin, admin, edit, view, system:basic-user,
// system:discovery, system:public-info-viewer and their bindings).
//
// The cache does not watch: the four resources' storage is decorated with
// a hook that moves a generation on every write, and the next
// authorization reloads the decoded objects. So it follows the writes of
// this API server only; two servers sharing one etcd would not see each
// other's roles until their own next write (Kubernetes' listers watch).
//
// Left out: the clusterrole-aggregation controller (an aggregated
// ClusterRole's rules are the ones stored on it), the bootstrap policy's
// many system: roles for components (the control plane's in-process
// clients are not authorized at all), and its reconciliation of roles a
// user changed (the autoupdate annotation).
package rbacregistry
