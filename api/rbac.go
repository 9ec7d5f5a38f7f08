package api

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
type PolicyRule struct {
	// Verbs such as get, list, watch, create, update, patch, delete; "*"
	// for all.
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// APIGroups are the groups of the resources; "" is the core group.
	APIGroups []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
	// Resources, with subresources as "pods/log"; "*" for all.
	Resources []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	// ResourceNames narrows the rule to named objects.
	ResourceNames []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
	// NonResourceURLs are paths such as /healthz or /api/* (ClusterRoles
	// only).
	NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,5,rep,name=nonResourceURLs"`
}

// Subject is who a binding grants a role to.
type Subject struct {
	// Kind is User, Group or ServiceAccount.
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// APIGroup is rbac.authorization.k8s.io for users and groups, "" for
	// service accounts.
	APIGroup string `json:"apiGroup,omitempty" protobuf:"bytes,2,opt,name=apiGroup"`
	// Name of the user, group or service account.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// Namespace of a service account.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`
}

// RoleRef names the role a binding grants; it cannot change once set.
type RoleRef struct {
	APIGroup string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
	// Kind is Role or ClusterRole.
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
}

// Role is a namespaced set of rules.
type Role struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Rules are what the role allows.
	Rules []PolicyRule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
}

// RoleList is a list of Roles.
type RoleList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items    []Role `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ClusterRole is a cluster-wide set of rules, usable in any namespace
// through a RoleBinding or everywhere through a ClusterRoleBinding.
type ClusterRole struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Rules are what the role allows; with an AggregationRule the
	// controller fills them in.
	Rules []PolicyRule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
	// AggregationRule makes this role the union of the ClusterRoles its
	// selectors match.
	AggregationRule *AggregationRule `json:"aggregationRule,omitempty" protobuf:"bytes,3,opt,name=aggregationRule"`
}

// AggregationRule selects the ClusterRoles whose rules are combined.
type AggregationRule struct {
	ClusterRoleSelectors []LabelSelector `json:"clusterRoleSelectors,omitempty" protobuf:"bytes,1,rep,name=clusterRoleSelectors"`
}

// ClusterRoleList is a list of ClusterRoles.
type ClusterRoleList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items    []ClusterRole `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// RoleBinding grants a Role or ClusterRole within its namespace.
type RoleBinding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Subjects   []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	RoleRef    RoleRef   `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// RoleBindingList is a list of RoleBindings.
type RoleBindingList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items    []RoleBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ClusterRoleBinding grants a ClusterRole in every namespace and on
// cluster-scoped resources.
type ClusterRoleBinding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Subjects   []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	RoleRef    RoleRef   `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// ClusterRoleBindingList is a list of ClusterRoleBindings.
type ClusterRoleBindingList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items    []ClusterRoleBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}
