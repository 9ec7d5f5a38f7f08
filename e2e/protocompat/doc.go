// Package protocompat proves kubesim's protobuf envelope and framing
// against k8s.io/apimachinery's protobuf serializer. The objects inside are
// k8s.io/api's own types with their generated code in both; what kubesim
// writes itself is the runtime.Unknown envelope, the lists it assembles
// from cached objects, and the length-delimited frames of a watch, and
// those must be byte for byte what the real serializer and watch encoder
// write. It also writes the product's protobuf goldens (-update). It lives
// in the e2e module because it needs the real serializer, which the
// product does not import.
package protocompat
