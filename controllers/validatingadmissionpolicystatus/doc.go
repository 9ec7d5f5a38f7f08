// Package validatingadmissionpolicystatus is the controller that writes a
// ValidatingAdmissionPolicy's status: observedGeneration, and
// typeChecking.expressionWarnings — each expression checked against the
// schemas of the kinds the policy matches. A warning never stops a policy.
//
// Real counterpart: the validatingadmissionpolicy-status controller of
// kube-controller-manager (pkg/controller/validatingadmissionpolicystatus),
// with the TypeChecker of k8s.io/apiserver/pkg/admission/plugin/policy/validating.
//
// Left out: the check is the API server's, handed in as a function (the
// real controller resolves schemas through discovery and OpenAPI v3); the
// status is written with an update, not a server-side apply.
package validatingadmissionpolicystatus
