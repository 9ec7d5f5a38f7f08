package api

// This file holds authorization.k8s.io/v1 (k8s.io/api/authorization/v1)
// and authentication.k8s.io/v1's SelfSubjectReview
// (k8s.io/api/authentication/v1): questions put to the authorizer and the
// authenticator, answered on create and never stored. The protobuf field
// numbers are those of k8s.io/api's generated.proto.

// ResourceAttributes describe a resource request to authorize.
type ResourceAttributes struct {
	Namespace   string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	Verb        string `json:"verb,omitempty" protobuf:"bytes,2,opt,name=verb"`
	Group       string `json:"group,omitempty" protobuf:"bytes,3,opt,name=group"`
	Version     string `json:"version,omitempty" protobuf:"bytes,4,opt,name=version"`
	Resource    string `json:"resource,omitempty" protobuf:"bytes,5,opt,name=resource"`
	Subresource string `json:"subresource,omitempty" protobuf:"bytes,6,opt,name=subresource"`
	Name        string `json:"name,omitempty" protobuf:"bytes,7,opt,name=name"`
	// Not kept: field and label selectors of a list or watch.
	_ struct{} `json:"-" protobuf:"bytes,8,opt,name=fieldSelector"`
	_ struct{} `json:"-" protobuf:"bytes,9,opt,name=labelSelector"`
}

// NonResourceAttributes describe a non-resource request (a path).
type NonResourceAttributes struct {
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	Verb string `json:"verb,omitempty" protobuf:"bytes,2,opt,name=verb"`
}

// SubjectAccessReviewStatus is the answer: allowed, or why not.
type SubjectAccessReviewStatus struct {
	Allowed bool `json:"allowed" protobuf:"varint,1,opt,name=allowed"`
	// Denied is true only when an authorizer denied outright (RBAC never
	// does).
	Denied          bool   `json:"denied,omitempty" protobuf:"varint,4,opt,name=denied"`
	Reason          string `json:"reason,omitempty" protobuf:"bytes,2,opt,name=reason"`
	EvaluationError string `json:"evaluationError,omitempty" protobuf:"bytes,3,opt,name=evaluationError"`
}

// SelfSubjectAccessReviewSpec asks about the requesting user; exactly one
// of the attributes is set.
type SelfSubjectAccessReviewSpec struct {
	ResourceAttributes    *ResourceAttributes    `json:"resourceAttributes,omitempty" protobuf:"bytes,1,opt,name=resourceAttributes"`
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty" protobuf:"bytes,2,opt,name=nonResourceAttributes"`
}

// SelfSubjectAccessReview asks "may I?" (kubectl auth can-i).
type SelfSubjectAccessReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       SelfSubjectAccessReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status     SubjectAccessReviewStatus   `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// SubjectAccessReviewSpec asks about any user.
type SubjectAccessReviewSpec struct {
	ResourceAttributes    *ResourceAttributes    `json:"resourceAttributes,omitempty" protobuf:"bytes,1,opt,name=resourceAttributes"`
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty" protobuf:"bytes,2,opt,name=nonResourceAttributes"`
	User                  string                 `json:"user,omitempty" protobuf:"bytes,3,opt,name=user"`
	Groups                []string               `json:"groups,omitempty" protobuf:"bytes,4,rep,name=groups"`
	UID                   string                 `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uid"`
	// Not kept: extra, the authenticator's additional attributes.
	_ struct{} `json:"-" protobuf:"bytes,5,rep,name=extra"`
}

// SubjectAccessReview asks "may this user?" (webhooks, kubectl auth can-i
// --as goes through impersonation instead).
type SubjectAccessReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       SubjectAccessReviewSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status     SubjectAccessReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// SelfSubjectRulesReviewSpec names the namespace whose rules to list.
type SelfSubjectRulesReviewSpec struct {
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
}

// ResourceRule is a PolicyRule's resource part, as a rules review lists it.
type ResourceRule struct {
	Verbs         []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	APIGroups     []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
	Resources     []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	ResourceNames []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
}

// NonResourceRule is a PolicyRule's non-resource part.
type NonResourceRule struct {
	Verbs           []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,2,rep,name=nonResourceURLs"`
}

// SubjectRulesReviewStatus lists what the user may do; Incomplete when
// some rules could not be read (a binding to a missing role).
type SubjectRulesReviewStatus struct {
	ResourceRules    []ResourceRule    `json:"resourceRules" protobuf:"bytes,1,rep,name=resourceRules"`
	NonResourceRules []NonResourceRule `json:"nonResourceRules" protobuf:"bytes,2,rep,name=nonResourceRules"`
	// Kubernetes' tag says bytes,rep for this bool; the wire is a varint
	// (the codec reads the Go type), the tag is copied as it is.
	Incomplete      bool   `json:"incomplete" protobuf:"bytes,3,rep,name=incomplete"`
	EvaluationError string `json:"evaluationError,omitempty" protobuf:"bytes,4,opt,name=evaluationError"`
}

// SelfSubjectRulesReview lists the requesting user's rules in a namespace
// (kubectl auth can-i --list).
type SelfSubjectRulesReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       SelfSubjectRulesReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status     SubjectRulesReviewStatus   `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// UserInfo is who the authenticator says the user is
// (authentication.k8s.io/v1).
type UserInfo struct {
	Username string   `json:"username,omitempty" protobuf:"bytes,1,opt,name=username"`
	UID      string   `json:"uid,omitempty" protobuf:"bytes,2,opt,name=uid"`
	Groups   []string `json:"groups,omitempty" protobuf:"bytes,3,rep,name=groups"`
	// Not kept: extra.
	_ struct{} `json:"-" protobuf:"bytes,4,rep,name=extra"`
}

// SelfSubjectReviewStatus holds the requesting user.
type SelfSubjectReviewStatus struct {
	UserInfo UserInfo `json:"userInfo,omitempty" protobuf:"bytes,1,opt,name=userInfo"`
}

// SelfSubjectReview asks "who am I?" (kubectl auth whoami).
type SelfSubjectReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Status     SelfSubjectReviewStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
}
