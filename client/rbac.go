package client

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubesim/kubesim/api"
)

// The rbac.authorization.k8s.io/v1 resources.
var (
	ClusterRolesResource        = ResourceInfo{Group: api.RBACGroupName, Version: "v1", Resource: "clusterroles"}
	ClusterRoleBindingsResource = ResourceInfo{Group: api.RBACGroupName, Version: "v1", Resource: "clusterrolebindings"}
	RolesResource               = ResourceInfo{Group: api.RBACGroupName, Version: "v1", Resource: "roles", Namespaced: true}
	RoleBindingsResource        = ResourceInfo{Group: api.RBACGroupName, Version: "v1", Resource: "rolebindings", Namespaced: true}
)

// ClusterRoles is the typed client of cluster roles.
func (c *Client) ClusterRoles() *Resource[*rbacv1.ClusterRole] {
	return For(c, ClusterRolesResource, func() *rbacv1.ClusterRole { return &rbacv1.ClusterRole{} })
}

// ClusterRoleBindings is the typed client of cluster role bindings.
func (c *Client) ClusterRoleBindings() *Resource[*rbacv1.ClusterRoleBinding] {
	return For(c, ClusterRoleBindingsResource, func() *rbacv1.ClusterRoleBinding { return &rbacv1.ClusterRoleBinding{} })
}

// Roles is the typed client of roles.
func (c *Client) Roles() *Resource[*rbacv1.Role] {
	return For(c, RolesResource, func() *rbacv1.Role { return &rbacv1.Role{} })
}

// RoleBindings is the typed client of role bindings.
func (c *Client) RoleBindings() *Resource[*rbacv1.RoleBinding] {
	return For(c, RoleBindingsResource, func() *rbacv1.RoleBinding { return &rbacv1.RoleBinding{} })
}
