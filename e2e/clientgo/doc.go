// Package clientgo proves that k8s.io/client-go works unchanged against
// kubesim: the generated clientset with its default settings (protobuf
// for built-in kinds), shared informers with watch-list, the dynamic
// client on a custom resource, lease-based leader election, and the
// typed API errors. Its tests are the whole package; there is no code
// to import.
package clientgo
