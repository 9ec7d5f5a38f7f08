package api

// This file holds admissionregistration.k8s.io/v1's webhook configurations
// (k8s.io/api/admissionregistration/v1): which requests the API server sends
// to which admission webhook. ValidatingAdmissionPolicy, of the same group,
// lives in its own file. The webhooks reuse WebhookClientConfig and
// ServiceReference of apiextensions.go: Kubernetes declares the same shape
// (same JSON names, same protobuf numbers) in both groups.

// AdmissionRegistrationGroupName is the group of the webhook configurations
// and the admission policies.
const AdmissionRegistrationGroupName = "admissionregistration.k8s.io"

// MutatingWebhookConfiguration lists webhooks that may change an object
// before it is stored.
type MutatingWebhookConfiguration struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Webhooks are called in order.
	Webhooks []MutatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=Webhooks"`
}

// MutatingWebhookConfigurationList is a list of MutatingWebhookConfigurations.
type MutatingWebhookConfigurationList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items    []MutatingWebhookConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ValidatingWebhookConfiguration lists webhooks that may only refuse.
type ValidatingWebhookConfiguration struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Webhooks are called in parallel.
	Webhooks []ValidatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=Webhooks"`
}

// ValidatingWebhookConfigurationList is a list of ValidatingWebhookConfigurations.
type ValidatingWebhookConfigurationList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items    []ValidatingWebhookConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// MutatingWebhook is one mutating webhook: where it is, and which
// requests it is sent.
type MutatingWebhook struct {
	// Name is fully qualified ("defaults.example.com") and unique in its
	// configuration.
	Name         string              `json:"name" protobuf:"bytes,1,opt,name=name"`
	ClientConfig WebhookClientConfig `json:"clientConfig" protobuf:"bytes,2,opt,name=clientConfig"`
	// Rules: the webhook is called when any rule matches.
	Rules []RuleWithOperations `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
	// FailurePolicy says what a failed call does (Fail by default).
	FailurePolicy *FailurePolicyType `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	// MatchPolicy Equivalent (the default) also matches a resource reached
	// through another group or version.
	MatchPolicy       *MatchPolicyType `json:"matchPolicy,omitempty" protobuf:"bytes,9,opt,name=matchPolicy,casttype=MatchPolicyType"`
	NamespaceSelector *LabelSelector   `json:"namespaceSelector,omitempty" protobuf:"bytes,5,opt,name=namespaceSelector"`
	ObjectSelector    *LabelSelector   `json:"objectSelector,omitempty" protobuf:"bytes,11,opt,name=objectSelector"`
	// SideEffects None or NoneOnDryRun; a dry run matching a webhook with
	// Some or Unknown is refused.
	SideEffects *SideEffectClass `json:"sideEffects" protobuf:"bytes,6,opt,name=sideEffects,casttype=SideEffectClass"`
	// TimeoutSeconds is 1 to 30 (10 by default).
	TimeoutSeconds          *int32   `json:"timeoutSeconds,omitempty" protobuf:"varint,7,opt,name=timeoutSeconds"`
	AdmissionReviewVersions []string `json:"admissionReviewVersions" protobuf:"bytes,8,rep,name=admissionReviewVersions"`
	// ReinvocationPolicy IfNeeded calls the webhook once more when a later
	// plugin changed the object (Never by default).
	ReinvocationPolicy *ReinvocationPolicyType `json:"reinvocationPolicy,omitempty" protobuf:"bytes,10,opt,name=reinvocationPolicy,casttype=ReinvocationPolicyType"`
	// MatchConditions are CEL expressions; kubesim stores them and refuses
	// nothing by them (no CEL in the webhook dispatcher yet).
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,12,opt,name=matchConditions"`
}

// ValidatingWebhook is one validating webhook.
type ValidatingWebhook struct {
	Name                    string               `json:"name" protobuf:"bytes,1,opt,name=name"`
	ClientConfig            WebhookClientConfig  `json:"clientConfig" protobuf:"bytes,2,opt,name=clientConfig"`
	Rules                   []RuleWithOperations `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
	FailurePolicy           *FailurePolicyType   `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	MatchPolicy             *MatchPolicyType     `json:"matchPolicy,omitempty" protobuf:"bytes,9,opt,name=matchPolicy,casttype=MatchPolicyType"`
	NamespaceSelector       *LabelSelector       `json:"namespaceSelector,omitempty" protobuf:"bytes,5,opt,name=namespaceSelector"`
	ObjectSelector          *LabelSelector       `json:"objectSelector,omitempty" protobuf:"bytes,10,opt,name=objectSelector"`
	SideEffects             *SideEffectClass     `json:"sideEffects" protobuf:"bytes,6,opt,name=sideEffects,casttype=SideEffectClass"`
	TimeoutSeconds          *int32               `json:"timeoutSeconds,omitempty" protobuf:"varint,7,opt,name=timeoutSeconds"`
	AdmissionReviewVersions []string             `json:"admissionReviewVersions" protobuf:"bytes,8,rep,name=admissionReviewVersions"`
	MatchConditions         []MatchCondition     `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,11,opt,name=matchConditions"`
}

// RuleWithOperations is a Rule with the operations it covers.
type RuleWithOperations struct {
	// Operations: CREATE, UPDATE, DELETE, CONNECT or "*".
	Operations []OperationType `json:"operations,omitempty" protobuf:"bytes,1,rep,name=operations,casttype=OperationType"`
	Rule       `json:",inline" protobuf:"bytes,2,opt,name=rule"`
}

// Rule names resources by group, version and name: "*" is every one;
// resources may be "pods", "pods/status", "pods/*", "*/status" or "*/*".
type Rule struct {
	APIGroups   []string `json:"apiGroups,omitempty" protobuf:"bytes,1,rep,name=apiGroups"`
	APIVersions []string `json:"apiVersions,omitempty" protobuf:"bytes,2,rep,name=apiVersions"`
	Resources   []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	// Scope is Cluster, Namespaced or "*" (the default).
	Scope *ScopeType `json:"scope,omitempty" protobuf:"bytes,4,rep,name=scope"`
}

// MatchCondition is a CEL expression that must be true for the webhook to
// be called.
type MatchCondition struct {
	Name       string `json:"name" protobuf:"bytes,1,opt,name=name"`
	Expression string `json:"expression" protobuf:"bytes,2,opt,name=expression"`
}

// OperationType is an operation a rule covers.
type OperationType string

// The operations of a rule.
const (
	OperationAll     OperationType = "*"
	OperationCreate  OperationType = "CREATE"
	OperationUpdate  OperationType = "UPDATE"
	OperationDelete  OperationType = "DELETE"
	OperationConnect OperationType = "CONNECT"
)

// ScopeType restricts a rule to cluster-scoped or namespaced resources.
type ScopeType string

// The scopes of a rule.
const (
	ClusterScope    ScopeType = "Cluster"
	NamespacedScope ScopeType = "Namespaced"
	AllScopes       ScopeType = "*"
)

// FailurePolicyType says what a failed webhook call does to the request.
type FailurePolicyType string

// The failure policies.
const (
	Ignore FailurePolicyType = "Ignore"
	Fail   FailurePolicyType = "Fail"
)

// MatchPolicyType says how rules match requests.
type MatchPolicyType string

// The match policies.
const (
	Exact      MatchPolicyType = "Exact"
	Equivalent MatchPolicyType = "Equivalent"
)

// SideEffectClass says whether a webhook changes anything outside the
// request.
type SideEffectClass string

// The side-effect classes (Unknown and Some only from v1beta1).
const (
	SideEffectClassUnknown      SideEffectClass = "Unknown"
	SideEffectClassNone         SideEffectClass = "None"
	SideEffectClassSome         SideEffectClass = "Some"
	SideEffectClassNoneOnDryRun SideEffectClass = "NoneOnDryRun"
)

// ReinvocationPolicyType says whether a mutating webhook may be called
// twice in one admission.
type ReinvocationPolicyType string

// The reinvocation policies.
const (
	NeverReinvocationPolicy    ReinvocationPolicyType = "Never"
	IfNeededReinvocationPolicy ReinvocationPolicyType = "IfNeeded"
)
