// Package handlers turns HTTP requests for resources into calls on the
// generic registry and writes the answers in the shapes Kubernetes clients
// expect: objects, lists, Tables, watch streams and Status errors.
//
// It simulates k8s.io/apiserver/pkg/endpoints/handlers (create.go, get.go,
// update.go, patch.go, delete.go, watch.go, rest.go) and the content
// negotiation of .../endpoints/handlers/negotiation. Left out: protobuf and
// CBOR encodings (JSON and YAML only), and field selectors beyond those each
// resource declares.
package handlers
