// Package clusterroleaggregation is the clusterrole-aggregation
// controller of kube-controller-manager
// (pkg/controller/clusterroleaggregation): a ClusterRole with an
// aggregationRule gets as rules the union of the rules of every other
// ClusterRole its clusterRoleSelectors match, in selector order, then by
// role name, each rule once. That is how admin, edit and view grow when a
// CRD's author ships a ClusterRole labelled
// rbac.authorization.k8s.io/aggregate-to-view: "true".
//
// It acts as system:serviceaccount:kube-system:clusterrole-aggregation-controller,
// whose role may escalate clusterroles: writing rules it does not hold
// itself would otherwise be refused as an escalation.
//
// Left out: the real controller writes with server-side apply (a field
// manager of its own); this one updates the role.
package clusterroleaggregation
