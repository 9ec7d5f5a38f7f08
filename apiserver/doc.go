// Package apiserver assembles kubesim's API server: the HTTP handler chain
// (panic recovery, authentication, request info), the discovery and OpenAPI
// documents, /version and the health checks, and one generic REST storage
// per resource. Resources can be added and removed while it runs, which is
// how custom resource definitions will come and go.
//
// It simulates k8s.io/apiserver/pkg/server (GenericAPIServer, the handler
// chain in config.go's DefaultBuildHandlerChain) and kube-apiserver's
// wiring of the built-in resources. The pieces live in sub-packages:
// registry (generic storage), handlers (REST verbs), admission, authn,
// discovery, openapi, patch, schema, kinds (the built-in kinds).
//
// Left out: authorization (every authenticated user may do everything, as
// with the AlwaysAllow authorizer), audit logging, API priority and
// fairness, and protobuf.
package apiserver
