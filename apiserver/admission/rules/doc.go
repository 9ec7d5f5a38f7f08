// Package rules decides whether a RuleWithOperations covers an admission
// request: its operations, API groups, API versions, resources (with "*",
// "*/*", "pods/*" and "*/status") and scope. Admission webhooks and
// ValidatingAdmissionPolicies match requests with the same Matcher, as in
// kube-apiserver.
//
// Real counterpart: k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules
// (rules.Matcher), which the webhook dispatchers and the policy matcher
// (k8s.io/apiserver/pkg/admission/plugin/policy/matching) share.
//
// Left out: nothing of the rule's fields; the selectors, resourceNames and
// matchPolicy are the callers' (as in Kubernetes).
package rules
