// Package protobuf reads and writes Kubernetes protobuf
// (application/vnd.kubernetes.protobuf), the encoding kubectl, client-go
// and the controllers of a real cluster use for built-in kinds. It plays
// the part of k8s.io/apimachinery/pkg/runtime/serializer/protobuf together
// with the gogo-generated Marshal and Unmarshal methods of k8s.io/api
// (generated.pb.go), and writes the same bytes as they do.
//
// # One codec, facts beside the types
//
// Kubernetes generates a Marshal/Unmarshal pair per type. kubesim has one
// reflection codec instead: the field numbers are facts of the Kubernetes
// API (k8s.io/api's generated.proto), recorded once as `protobuf:"..."`
// struct tags on the types in package api, in the very format k8s.io/api
// uses. A field of the real type that kubesim does not model is recorded
// as a blank field (`_ struct{}` or `_ string`...) carrying its tag, so
// that the codec knows every number a real client may send and writes the
// zero scalars Kubernetes always writes. e2e/protocompat checks the tags
// against k8s.io/api and the bytes against the real serializer.
//
// The rules of the generated code, which the codec follows: fields in
// field-number order; scalars and strings held by value always written
// (proto2 non-nullable), pointers only when non-nil, structs held by value
// always written (possibly empty); []byte written when non-nil; lists as
// one record per element (not packed); maps as entry messages {key = 1,
// value = 2} sorted by key. The wire type follows the Go type, not the
// tag's first word (the tag of ServiceSpec.healthCheckNodePort says bytes
// for an int32 varint). Time, MicroTime and Quantity write themselves
// (Marshaler, Unmarshaler), as their Kubernetes twins do; json.RawMessage
// stands for RawExtension and FieldsV1, a message {bytes raw = 1}.
//
// # The envelope and watch
//
// A request or response body is the magic "k8s\x00" and a runtime.Unknown
// {typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2, contentEncoding = 3,
// contentType = 4} whose raw is the object's message (Encode, Decode,
// EncodeList). A watch stream is a sequence of frames, each a 4-byte
// big-endian length and a metav1.WatchEvent {type = 1, object = 2
// RawExtension} that is not enveloped itself, while the object inside it
// is (EncodeWatchEvent, Frame): kube-apiserver writes events with the
// "raw" protobuf serializer and embeds objects with the enveloping one.
//
// # State
//
// A Codec caches one plan (the fields, sorted and described) per Go type.
// The API server holds a Codec from New; the package-level functions use
// one shared Codec, justified in default.go: a plan is a pure function of
// a Go type, never changes once built, and is the same for every caller.
//
// # Left out
//
// Custom resources, unstructured objects and Table carry no tags: Supports
// is false for them and they are served as JSON only (kube-apiserver
// serves custom resources as JSON too). A field that is kubesim's own
// (protobuf:"-", such as the x-kubernetes-patch-* keys of generated
// schemas) or in neither JSON nor protobuf (json:"-" without a protobuf
// tag) is not on the wire. Decoding is stricter than the generated code,
// which skips unknown field numbers: here a number neither kubesim nor
// Kubernetes knows is an error. Values of fields kubesim does not model
// are dropped on reading, as the JSON decoder drops unknown fields. The
// streaming list encoding of newer servers writes the same bytes and is
// not a separate path here.
package protobuf
