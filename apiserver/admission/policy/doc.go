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
// TypeChecker (typecheck.go) checks a policy's expressions against the
// schemas of the kinds it matches, for the status controller's
// status.typeChecking warnings; rules are matched by package rules, shared
// with the webhooks, and CONNECTs (pods/exec, with the PodExecOptions as
// object) are matched like any other request.
//
// Left out: the authorizer variable, auditAnnotations and the Audit action
// (accepted, never recorded: kubesim's audit log has no annotations),
// type-checking params and variables against their kinds (they stay dyn),
// matchPolicy Equivalent (a policy matches the request's own version; the
// webhooks match equivalent versions), and informers: policies, bindings and params are read from storage on
// each request, compiled policies are cached by resourceVersion.
package policy
