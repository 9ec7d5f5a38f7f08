// Package protocompat proves kubesim's protobuf codec against the real
// Kubernetes one: the field numbers recorded as struct tags on kubesim's
// API types must equal k8s.io/api's, and every built-in kind must travel
// between kubesim's codec and k8s.io/apimachinery's protobuf serializer,
// both ways, byte for byte. It lives in the e2e module so that the product
// module needs no k8s.io dependency.
package protocompat
