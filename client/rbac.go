package client

import "github.com/kubesim/kubesim/api"

// The rbac.authorization.k8s.io/v1 resources.
var (
	ClusterRolesResource        = ResourceInfo{Group: api.RBACGroupName, Version: "v1", Resource: "clusterroles"}
	ClusterRoleBindingsResource = ResourceInfo{Group: api.RBACGroupName, Version: "v1", Resource: "clusterrolebindings"}
	RolesResource               = ResourceInfo{Group: api.RBACGroupName, Version: "v1", Resource: "roles", Namespaced: true}
	RoleBindingsResource        = ResourceInfo{Group: api.RBACGroupName, Version: "v1", Resource: "rolebindings", Namespaced: true}
)

// ClusterRoles is the typed client of cluster roles.
func (c *Client) ClusterRoles() *Resource[*api.ClusterRole] {
	return For(c, ClusterRolesResource, func() *api.ClusterRole { return &api.ClusterRole{} })
}

// ClusterRoleBindings is the typed client of cluster role bindings.
func (c *Client) ClusterRoleBindings() *Resource[*api.ClusterRoleBinding] {
	return For(c, ClusterRoleBindingsResource, func() *api.ClusterRoleBinding { return &api.ClusterRoleBinding{} })
}

// Roles is the typed client of roles.
func (c *Client) Roles() *Resource[*api.Role] {
	return For(c, RolesResource, func() *api.Role { return &api.Role{} })
}

// RoleBindings is the typed client of role bindings.
func (c *Client) RoleBindings() *Resource[*api.RoleBinding] {
	return For(c, RoleBindingsResource, func() *api.RoleBinding { return &api.RoleBinding{} })
}
