// Package policy is the ValidatingAdmissionPolicy admission plugin: it runs
// the CEL validations of every ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1)
// that a ValidatingAdmissionPolicyBinding puts to work, on the requests both
// match, and denies, warns or records as the binding's validationActions say.
// It also checks the two kinds when they are written (expressions must
// compile).
//
// Real counterpart: k8s.io/apiserver/pkg/admission/plugin/policy/validating
// (the plugin, its dispatcher and validator), .../policy/generic (policy and
// binding matching, params), .../policy/matching and the
// admissionregistration validation of
// k8s.io/kubernetes/pkg/apis/admissionregistration/validation.
//
// Left out: the authorizer variable, auditAnnotations and the Audit action
// (accepted, never recorded: kubesim's audit log has no annotations),
// status.typeChecking (expressions are not checked against the matched
// kinds' schemas: object and params are dynamically typed), matchPolicy
// Equivalent across versions (kubesim serves one version per resource), and
// informers: policies, bindings and params are read from storage on each
// request, compiled policies are cached by resourceVersion.
package policy
