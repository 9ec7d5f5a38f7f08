package api

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// This file holds admissionregistration.k8s.io/v1's ValidatingAdmissionPolicy
// and ValidatingAdmissionPolicyBinding (k8s.io/api/admissionregistration/v1):
// CEL validations run in the API server itself, no webhook. The rules,
// operations, failure and match policies are shared with the webhook
// configurations of admissionregistration.go.

// ValidatingAdmissionPolicy is a set of CEL validations and the requests
// they apply to. It does nothing until a binding names it.
type ValidatingAdmissionPolicy = admissionregistrationv1.ValidatingAdmissionPolicy

// ValidatingAdmissionPolicyList is a list of ValidatingAdmissionPolicies.
type ValidatingAdmissionPolicyList = admissionregistrationv1.ValidatingAdmissionPolicyList

// ValidatingAdmissionPolicySpec is what the policy checks and when.
type ValidatingAdmissionPolicySpec = admissionregistrationv1.ValidatingAdmissionPolicySpec

// ValidatingAdmissionPolicyStatus holds the type-checking results.
type ValidatingAdmissionPolicyStatus = admissionregistrationv1.ValidatingAdmissionPolicyStatus

// TypeChecking lists the warnings of checking expressions against the
// matched types.
type TypeChecking = admissionregistrationv1.TypeChecking

// ExpressionWarning is one expression's type-checking warning.
type ExpressionWarning = admissionregistrationv1.ExpressionWarning

// ParamKind names the kind of the params ("group/version" and kind).
type ParamKind = admissionregistrationv1.ParamKind

// Validation is one CEL expression that must be true.
type Validation = admissionregistrationv1.Validation

// Variable is a named expression.
type Variable = admissionregistrationv1.Variable

// AuditAnnotation is an expression whose value goes to the audit event.
type AuditAnnotation = admissionregistrationv1.AuditAnnotation

// ValidatingAdmissionPolicyBinding puts a policy to work: on which
// requests, with which params, with which actions.
type ValidatingAdmissionPolicyBinding = admissionregistrationv1.ValidatingAdmissionPolicyBinding

// ValidatingAdmissionPolicyBindingList is a list of bindings.
type ValidatingAdmissionPolicyBindingList = admissionregistrationv1.ValidatingAdmissionPolicyBindingList

// ValidatingAdmissionPolicyBindingSpec names the policy, its params, the
// requests it narrows to and what a failed validation does.
type ValidatingAdmissionPolicyBindingSpec = admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec

// ParamRef finds the params: one object by name, or all the objects a
// selector matches, in a namespace or in the request's.
type ParamRef = admissionregistrationv1.ParamRef

// ParameterNotFoundActionType is what a binding does without params.
type ParameterNotFoundActionType = admissionregistrationv1.ParameterNotFoundActionType

// The parameter-not-found actions.
const (
	AllowAction ParameterNotFoundActionType = "Allow"
	DenyAction  ParameterNotFoundActionType = "Deny"
)

// MatchResources selects requests by namespace labels, object labels and
// resource rules; exclude rules win.
type MatchResources = admissionregistrationv1.MatchResources

// NamedRuleWithOperations is a rule, optionally limited to some names.
type NamedRuleWithOperations = admissionregistrationv1.NamedRuleWithOperations

// ValidationAction is what a failed validation does.
type ValidationAction = admissionregistrationv1.ValidationAction

// The validation actions.
const (
	Deny  ValidationAction = "Deny"
	Warn  ValidationAction = "Warn"
	Audit ValidationAction = "Audit"
)
