package api

// This file holds admissionregistration.k8s.io/v1's ValidatingAdmissionPolicy
// and ValidatingAdmissionPolicyBinding (k8s.io/api/admissionregistration/v1):
// CEL validations run in the API server itself, no webhook. The rules,
// operations, failure and match policies are shared with the webhook
// configurations of admissionregistration.go.

// ValidatingAdmissionPolicy is a set of CEL validations and the requests
// they apply to. It does nothing until a binding names it.
type ValidatingAdmissionPolicy struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       ValidatingAdmissionPolicySpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     ValidatingAdmissionPolicyStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ValidatingAdmissionPolicyList is a list of ValidatingAdmissionPolicies.
type ValidatingAdmissionPolicyList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items    []ValidatingAdmissionPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ValidatingAdmissionPolicySpec is what the policy checks and when.
type ValidatingAdmissionPolicySpec struct {
	// ParamKind is the kind of the objects bindings pass as params.
	ParamKind *ParamKind `json:"paramKind,omitempty" protobuf:"bytes,1,rep,name=paramKind"`
	// MatchConstraints: the requests the policy may apply to (resourceRules
	// required).
	MatchConstraints *MatchResources `json:"matchConstraints,omitempty" protobuf:"bytes,2,rep,name=matchConstraints"`
	Validations      []Validation    `json:"validations,omitempty" protobuf:"bytes,3,rep,name=validations"`
	// FailurePolicy says what an error (not a false validation) does: Fail
	// (the default) or Ignore.
	FailurePolicy    *FailurePolicyType `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	AuditAnnotations []AuditAnnotation  `json:"auditAnnotations,omitempty" protobuf:"bytes,5,rep,name=auditAnnotations"`
	// MatchConditions must all be true for the validations to run.
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,6,rep,name=matchConditions"`
	// Variables are named expressions, read as variables.<name>.
	Variables []Variable `json:"variables,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,7,rep,name=variables"`
}

// ValidatingAdmissionPolicyStatus holds the type-checking results.
type ValidatingAdmissionPolicyStatus struct {
	ObservedGeneration int64         `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	TypeChecking       *TypeChecking `json:"typeChecking,omitempty" protobuf:"bytes,2,opt,name=typeChecking"`
	Conditions         []Condition   `json:"conditions,omitempty" protobuf:"bytes,3,rep,name=conditions"`
}

// TypeChecking lists the warnings of checking expressions against the
// matched types.
type TypeChecking struct {
	ExpressionWarnings []ExpressionWarning `json:"expressionWarnings,omitempty" protobuf:"bytes,1,rep,name=expressionWarnings"`
}

// ExpressionWarning is one expression's type-checking warning.
type ExpressionWarning struct {
	FieldRef string `json:"fieldRef" protobuf:"bytes,2,opt,name=fieldRef"`
	Warning  string `json:"warning" protobuf:"bytes,3,opt,name=warning"`
}

// ParamKind names the kind of the params ("group/version" and kind).
type ParamKind struct {
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,1,rep,name=apiVersion"`
	Kind       string `json:"kind,omitempty" protobuf:"bytes,2,rep,name=kind"`
}

// Validation is one CEL expression that must be true.
type Validation struct {
	Expression string `json:"expression" protobuf:"bytes,1,opt,name=Expression"`
	// Message is the denial's text ("failed expression: <expression>" when
	// empty).
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// Reason is the status reason of the denial (Invalid by default).
	Reason            *StatusReason `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	MessageExpression string        `json:"messageExpression,omitempty" protobuf:"bytes,4,opt,name=messageExpression"`
}

// Variable is a named expression.
type Variable struct {
	Name       string `json:"name" protobuf:"bytes,1,opt,name=Name"`
	Expression string `json:"expression" protobuf:"bytes,2,opt,name=Expression"`
}

// AuditAnnotation is an expression whose value goes to the audit event.
type AuditAnnotation struct {
	Key             string `json:"key" protobuf:"bytes,1,opt,name=key"`
	ValueExpression string `json:"valueExpression" protobuf:"bytes,2,opt,name=valueExpression"`
}

// ValidatingAdmissionPolicyBinding puts a policy to work: on which
// requests, with which params, with which actions.
type ValidatingAdmissionPolicyBinding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       ValidatingAdmissionPolicyBindingSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// ValidatingAdmissionPolicyBindingList is a list of bindings.
type ValidatingAdmissionPolicyBindingList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items    []ValidatingAdmissionPolicyBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ValidatingAdmissionPolicyBindingSpec names the policy, its params, the
// requests it narrows to and what a failed validation does.
type ValidatingAdmissionPolicyBindingSpec struct {
	PolicyName string    `json:"policyName,omitempty" protobuf:"bytes,1,rep,name=policyName"`
	ParamRef   *ParamRef `json:"paramRef,omitempty" protobuf:"bytes,2,rep,name=paramRef"`
	// MatchResources narrows the policy's matchConstraints.
	MatchResources *MatchResources `json:"matchResources,omitempty" protobuf:"bytes,3,rep,name=matchResources"`
	// ValidationActions: Deny, Warn, Audit (Deny and Warn not together).
	ValidationActions []ValidationAction `json:"validationActions,omitempty" protobuf:"bytes,4,rep,name=validationActions"`
}

// ParamRef finds the params: one object by name, or all the objects a
// selector matches, in a namespace or in the request's.
type ParamRef struct {
	Name      string         `json:"name,omitempty" protobuf:"bytes,1,rep,name=name"`
	Namespace string         `json:"namespace,omitempty" protobuf:"bytes,2,rep,name=namespace"`
	Selector  *LabelSelector `json:"selector,omitempty" protobuf:"bytes,3,rep,name=selector"`
	// ParameterNotFoundAction: Allow, or Deny (subject to the failure
	// policy) when no param is found.
	ParameterNotFoundAction *ParameterNotFoundActionType `json:"parameterNotFoundAction,omitempty" protobuf:"bytes,4,rep,name=parameterNotFoundAction"`
}

// ParameterNotFoundActionType is what a binding does without params.
type ParameterNotFoundActionType string

// The parameter-not-found actions.
const (
	AllowAction ParameterNotFoundActionType = "Allow"
	DenyAction  ParameterNotFoundActionType = "Deny"
)

// MatchResources selects requests by namespace labels, object labels and
// resource rules; exclude rules win.
type MatchResources struct {
	NamespaceSelector    *LabelSelector            `json:"namespaceSelector,omitempty" protobuf:"bytes,1,opt,name=namespaceSelector"`
	ObjectSelector       *LabelSelector            `json:"objectSelector,omitempty" protobuf:"bytes,2,opt,name=objectSelector"`
	ResourceRules        []NamedRuleWithOperations `json:"resourceRules,omitempty" protobuf:"bytes,3,rep,name=resourceRules"`
	ExcludeResourceRules []NamedRuleWithOperations `json:"excludeResourceRules,omitempty" protobuf:"bytes,4,rep,name=excludeResourceRules"`
	MatchPolicy          *MatchPolicyType          `json:"matchPolicy,omitempty" protobuf:"bytes,7,opt,name=matchPolicy,casttype=MatchPolicyType"`
}

// NamedRuleWithOperations is a rule, optionally limited to some names.
type NamedRuleWithOperations struct {
	ResourceNames      []string `json:"resourceNames,omitempty" protobuf:"bytes,1,rep,name=resourceNames"`
	RuleWithOperations `json:",inline" protobuf:"bytes,2,opt,name=ruleWithOperations"`
}

// ValidationAction is what a failed validation does.
type ValidationAction string

// The validation actions.
const (
	Deny  ValidationAction = "Deny"
	Warn  ValidationAction = "Warn"
	Audit ValidationAction = "Audit"
)
