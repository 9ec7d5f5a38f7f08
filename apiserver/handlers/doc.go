// Package handlers turns HTTP requests for resources into calls on the
// generic registry and writes the answers in the shapes Kubernetes clients
// expect: objects, lists, Tables, watch streams and Status errors.
//
// It simulates k8s.io/apiserver/pkg/endpoints/handlers (create.go, get.go,
// update.go, patch.go, delete.go, watch.go, rest.go) and the content
// negotiation of .../endpoints/handlers/negotiation.
//
// Every request body (create, update, subresources, DeleteOptions) is
// decoded by one decoder (decode.go, body.go): JSON and YAML with field
// names matched case-sensitively, unknown and duplicate fields refused,
// warned about or dropped as fieldValidation says (as sigs.k8s.io/json
// and sigs.k8s.io/yaml do); protobuf (application/vnd.kubernetes.protobuf)
// for built-in kinds through the apiserver/protobuf codec. Responses are
// JSON, a Table, or protobuf, as the Accept header asks, or, with
// as=PartialObjectMetadata (PartialObjectMetadataList for a list), the
// objects' metadata alone in JSON or protobuf, custom resources included,
// in answers and in watch events: what client-go's metadata client and
// informers ask (negotiate.go, response.go's transformObject in
// Kubernetes). A server-side apply of a built-in kind that names a field
// its type does not declare is refused whatever fieldValidation says, with
// the 500 and the words of kube-apiserver's field manager (applyfields.go).
//
// Left out: CBOR; YAML responses (a YAML Accept gets JSON, which is YAML
// too); protobuf Tables (Tables are JSON only) and protobuf Status errors
// (errors are JSON, which client-go reads by Content-Type); field
// selectors beyond those each resource declares.
package handlers
