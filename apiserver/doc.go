// Package apiserver assembles kubesim's API server: the HTTP handler chain
// (panic recovery, authentication, audit, impersonation, authorization,
// request info), the discovery and OpenAPI documents, /version and the
// health checks, one generic REST storage per resource, and the admission
// chain every storage runs on a client's write. Resources can be added and
// removed while it runs, which is how custom resource definitions come and
// go.
//
// It simulates k8s.io/apiserver/pkg/server (GenericAPIServer, the handler
// chain in config.go's DefaultBuildHandlerChain) and kube-apiserver's
// wiring of the built-in resources and admission plugins. The pieces live
// in sub-packages: registry (generic storage), handlers (REST verbs),
// admission (the chain and its plugins), authn, authz, nodeauthz,
// rbacregistry, audit, discovery, openapi, patch, schema, metrics, healthz,
// kinds (the built-in kinds). Here, the wiring:
//
//   - server.go: Config, New, the stores, the handler chain;
//   - admission_chain.go: the admission chain, every plugin in order with
//     what it reads and why it sits there; admission_readers.go, what the
//     plugins read from the server's own storage; admission_config_cache.go,
//     the webhook configurations and admission policies cached between
//     writes; admission_policy_typecheck.go, ValidatingAdmissionPolicy type
//     checking for the policy status controller;
//   - bootstrap.go: what Bootstrap creates before the server serves (system
//     namespaces, default RBAC roles, system PriorityClasses, "default"
//     ServiceAccounts);
//   - serviceaccount_tokens.go: the ServiceAccount token issuer
//     (serviceaccounts/NAME/token) and the authenticators it joins;
//   - eviction.go: pods/eviction given the PodDisruptionBudgets;
//   - health.go: the checks /healthz, /livez and /readyz run (ping, etcd,
//     the RBAC bootstrap hook);
//   - loopback.go: the in-process handler and the identity a control-plane
//     component's requests carry through it;
//   - metrics.go: the Prometheus metrics (package metrics) on
//     Config.Metrics' registry, served at /metrics, and where requests are
//     counted (the routes, after authentication and authorization) and
//     storage calls timed (the outermost decorator of each resource's
//     storage).
//
// Left out: API priority and fairness.
package apiserver
