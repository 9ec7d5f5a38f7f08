// Package openapi builds and serves the OpenAPI v3 documents of the API
// server: /openapi/v3 lists one document per group-version with a content
// hash, and /openapi/v3/api/v1 or /openapi/v3/apis/<group>/<version> holds
// that group-version's schemas (components.schemas, one per kind, tagged
// with x-kubernetes-group-version-kind) and its paths.
//
// kubectl needs them for three things: explain walks the schemas; apply,
// create and replace download a document before sending anything, and skip
// their own client-side validation (sending fieldValidation=Strict instead)
// when the kind's PATCH operation carries x-kubernetes-group-version-kind
// and a fieldValidation query parameter; and the hash in the index lets it
// cache documents on disk until they change.
//
// It simulates k8s.io/kube-openapi/pkg/handler3 (the v3 index and
// per-group-version handler with hash-addressed, immutable URLs) and the
// apiserver's builder that turns installed REST routes into an OpenAPI
// document (k8s.io/apiserver/pkg/endpoints/openapi and
// k8s.io/kube-openapi/pkg/builder3), including the builder
// apiextensions-apiserver uses for custom resources (it adds apiVersion,
// kind and metadata to a CRD schema that lacks them, metadata being the
// whole ObjectMeta with its field descriptions).
//
// It serves /openapi/v2 as well (k8s.io/kube-openapi/pkg/handler): one
// Swagger 2.0 document for the whole server, converted from the same v3
// schemas and paths (definitions and operations keep their
// x-kubernetes-group-version-kind; what v2 cannot express, such as
// nullable and anyOf, is dropped as the CRD builder drops it), in JSON or,
// for client-go, which asks for nothing else, as gnostic's protobuf
// openapi_v2.Document. kubectl falls back to it when a group-version is
// missing from /openapi/v3 (apply of a kind nobody serves then reaches
// the real "no matches for kind" error), explain --output
// plaintext-openapiv2 walks it, and helm validates against it.
//
// kube-apiserver builds its documents at start and again when the served
// kinds change (its OpenAPI controllers). Here a document is built when
// first asked for, once whoever asks (concurrent requests wait for the
// build under way), and kept until its inputs change; Handler.Build
// builds the v3 documents ahead, which `kubesim serve` does once it
// listens, so that kubectl's first apply does not wait for them.
//
// Left out: protobuf encoding of the v3 documents, shared definitions referenced by $ref (each kind's
// schema is inline, including its metadata), watch paths, the non
// group-version entries of the index (/version, /apis and so on), and
// most query parameters' long descriptions. A published
// registry.Resource's Schema is assumed never to change in place: the
// document cache keys on the Schema pointer.
//
// Read the real ones at
// https://github.com/kubernetes/kube-openapi/tree/master/pkg/handler3 and
// https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder
package openapi
