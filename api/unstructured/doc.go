// Package unstructured holds objects whose kind the Go code does not know:
// custom resources, and anything the dynamic client reads.
//
// It simulates k8s.io/apimachinery/pkg/apis/meta/v1/unstructured, with one
// difference that keeps the API server simple: the metadata is decoded into
// the typed api.ObjectMeta (so that every object, built-in or custom, is an
// api.Object with the same metadata handling), and only the rest of the
// object stays a map. Unknown metadata fields are therefore dropped, which is
// also what Kubernetes does to custom resources.
//
// Numbers decode as int64 when they are integers and float64 otherwise, as
// in Kubernetes' unstructured JSON.
package unstructured
