package api

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

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
type MutatingWebhookConfiguration = admissionregistrationv1.MutatingWebhookConfiguration

// MutatingWebhookConfigurationList is a list of MutatingWebhookConfigurations.
type MutatingWebhookConfigurationList = admissionregistrationv1.MutatingWebhookConfigurationList

// ValidatingWebhookConfiguration lists webhooks that may only refuse.
type ValidatingWebhookConfiguration = admissionregistrationv1.ValidatingWebhookConfiguration

// ValidatingWebhookConfigurationList is a list of ValidatingWebhookConfigurations.
type ValidatingWebhookConfigurationList = admissionregistrationv1.ValidatingWebhookConfigurationList

// MutatingWebhook is one mutating webhook: where it is, and which
// requests it is sent.
type MutatingWebhook = admissionregistrationv1.MutatingWebhook

// ValidatingWebhook is one validating webhook.
type ValidatingWebhook = admissionregistrationv1.ValidatingWebhook

// RuleWithOperations is a Rule with the operations it covers.
type RuleWithOperations = admissionregistrationv1.RuleWithOperations

// Rule names resources by group, version and name: "*" is every one;
// resources may be "pods", "pods/status", "pods/*", "*/status" or "*/*".
type Rule = admissionregistrationv1.Rule

// MatchCondition is a CEL expression that must be true for the webhook to
// be called.
type MatchCondition = admissionregistrationv1.MatchCondition

// OperationType is an operation a rule covers.
type OperationType = admissionregistrationv1.OperationType

// The operations of a rule.
const (
	OperationAll     OperationType = "*"
	OperationCreate  OperationType = "CREATE"
	OperationUpdate  OperationType = "UPDATE"
	OperationDelete  OperationType = "DELETE"
	OperationConnect OperationType = "CONNECT"
)

// ScopeType restricts a rule to cluster-scoped or namespaced resources.
type ScopeType = admissionregistrationv1.ScopeType

// The scopes of a rule.
const (
	ClusterScope    ScopeType = "Cluster"
	NamespacedScope ScopeType = "Namespaced"
	AllScopes       ScopeType = "*"
)

// FailurePolicyType says what a failed webhook call does to the request.
type FailurePolicyType = admissionregistrationv1.FailurePolicyType

// The failure policies.
const (
	Ignore FailurePolicyType = "Ignore"
	Fail   FailurePolicyType = "Fail"
)

// MatchPolicyType says how rules match requests.
type MatchPolicyType = admissionregistrationv1.MatchPolicyType

// The match policies.
const (
	Exact      MatchPolicyType = "Exact"
	Equivalent MatchPolicyType = "Equivalent"
)

// SideEffectClass says whether a webhook changes anything outside the
// request.
type SideEffectClass = admissionregistrationv1.SideEffectClass

// The side-effect classes (Unknown and Some only from v1beta1).
const (
	SideEffectClassUnknown      SideEffectClass = "Unknown"
	SideEffectClassNone         SideEffectClass = "None"
	SideEffectClassSome         SideEffectClass = "Some"
	SideEffectClassNoneOnDryRun SideEffectClass = "NoneOnDryRun"
)

// ReinvocationPolicyType says whether a mutating webhook may be called
// twice in one admission.
type ReinvocationPolicyType = admissionregistrationv1.ReinvocationPolicyType

// The reinvocation policies.
const (
	NeverReinvocationPolicy    ReinvocationPolicyType = "Never"
	IfNeededReinvocationPolicy ReinvocationPolicyType = "IfNeeded"
)

// AdmissionWebhookClientConfig is an admission webhook's address: a URL or
// a service (admissionregistration/v1's WebhookClientConfig; the name
// WebhookClientConfig is taken by the CRD conversion webhooks').
type AdmissionWebhookClientConfig = admissionregistrationv1.WebhookClientConfig

// AdmissionServiceReference names the Service of an admission webhook.
type AdmissionServiceReference = admissionregistrationv1.ServiceReference
