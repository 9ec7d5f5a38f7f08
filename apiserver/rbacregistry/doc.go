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
// The bootstrap policy also holds each component's role: system:kube-scheduler,
// system:kube-controller-manager (its informers), system:node (the Node
// authorizer's static rules, bound to nobody), and system:controller:<name>
// bound to each controller's service account in kube-system
// (components.go), and kubesim's own kubesim:web-page, which lets every
// authenticated user read the web page's routes (WebPageRole). admin, edit and view are aggregated from
// system:aggregate-to-*; Bootstrap writes them already gathered, and the
// clusterrole-aggregation controller keeps them. At every start the policy
// is reconciled: what a user removed from an object still annotated
// rbac.authorization.kubernetes.io/autoupdate: "true" comes back.
//
// Left out: the bootstrap roles of components kubesim does not have
// (kube-proxy, kube-dns, CSR signers, ...), and the namespaced bootstrap
// roles (kube-system's leader election and the extension-apiserver
// authentication reader).
package rbacregistry
