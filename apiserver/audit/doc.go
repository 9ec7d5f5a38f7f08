// Package audit writes the API server's audit log: one audit.k8s.io/v1
// Event per request, as a JSON line, like kube-apiserver's
// --audit-log-path with --audit-policy-file (k8s.io/apiserver
// pkg/audit, pkg/audit/policy and the WithAudit filter of
// pkg/endpoints/filters).
//
// The filter runs right after authentication, so an event names the
// authenticated user; the impersonation filter, further in, reports the
// user it switched to (LogImpersonatedUser), which the event shows as
// impersonatedUser. The policy picks a level per request by its first
// matching rule: None (not logged), Metadata (who, what, when, the
// response's code and, for a failure, its Status), Request (also the
// request body) or RequestResponse (also the response body).
//
// The policy file is the real one's subset: apiVersion audit.k8s.io/v1,
// kind Policy, rules with level, users, userGroups, verbs, namespaces and
// resources (group, resources: "pods", "pods/log", "pods/*", "*/status",
// "*"); a rule without resources matches every request, one with
// resources only resource requests. A request no rule matches is not
// logged. Without a policy file every request is logged at Metadata
// (kube-apiserver logs nothing without one; a teaching server would
// rather show).
//
// Left out: the stages RequestReceived, ResponseStarted and Panic (only
// ResponseComplete is written, for a watch when it ends, for an upgraded
// stream — exec, attach, port-forward — when it ends, with the code 101
// Switching Protocols), omitStages,
// resourceNames and nonResourceURLs in rules, annotations, webhook and
// batching backends, log rotation, bodies that are not JSON (protobuf,
// YAML) and bodies over MaxBodyBytes, and auditing requests refused by
// authentication.
package audit
