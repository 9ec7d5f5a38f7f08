package api

import (
	rbacv1 "k8s.io/api/rbac/v1"
)

// This file holds rbac.authorization.k8s.io/v1 (k8s.io/api/rbac/v1/types.go):
// who may do what. The protobuf field numbers are those of k8s.io/api's
// generated.proto.

// Verbs and resources that match everything in a PolicyRule.
const (
	VerbAll              = "*"
	ResourceAll          = "*"
	APIGroupAll          = "*"
	NonResourceAll       = "*"
	RBACGroupName        = "rbac.authorization.k8s.io"
	AutoUpdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate"
)

// The kinds a Subject names.
const (
	UserKind           = "User"
	GroupSubjectKind   = "Group"
	ServiceAccountKind = "ServiceAccount"
)

// PolicyRule says what actions a role allows on which resources (or
// non-resource URLs).
type PolicyRule = rbacv1.PolicyRule

// Subject is who a binding grants a role to.
type Subject = rbacv1.Subject

// RoleRef names the role a binding grants; it cannot change once set.
type RoleRef = rbacv1.RoleRef

// Role is a namespaced set of rules.
type Role = rbacv1.Role

// RoleList is a list of Roles.
type RoleList = rbacv1.RoleList

// ClusterRole is a cluster-wide set of rules, usable in any namespace
// through a RoleBinding or everywhere through a ClusterRoleBinding.
type ClusterRole = rbacv1.ClusterRole

// AggregationRule selects the ClusterRoles whose rules are combined.
type AggregationRule = rbacv1.AggregationRule

// ClusterRoleList is a list of ClusterRoles.
type ClusterRoleList = rbacv1.ClusterRoleList

// RoleBinding grants a Role or ClusterRole within its namespace.
type RoleBinding = rbacv1.RoleBinding

// RoleBindingList is a list of RoleBindings.
type RoleBindingList = rbacv1.RoleBindingList

// ClusterRoleBinding grants a ClusterRole in every namespace and on
// cluster-scoped resources.
type ClusterRoleBinding = rbacv1.ClusterRoleBinding

// ClusterRoleBindingList is a list of ClusterRoleBindings.
type ClusterRoleBindingList = rbacv1.ClusterRoleBindingList
