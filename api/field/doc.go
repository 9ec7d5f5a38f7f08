// Package field describes errors found in one field of an object, worded
// exactly as Kubernetes words them.
//
// It simulates k8s.io/apimachinery/pkg/util/validation/field. Every
// validator in kubesim (the per-kind strategies of the API server and the
// openAPIV3Schema validator of custom resources) reports through this
// package, so that the causes of a 422 Invalid read like the real ones:
//
//	spec.userID: Invalid value: 999999: spec.userID in body should be less than or equal to 65535
//
// Left out: the "origin" and "covered by declarative validation" markers
// newer Kubernetes versions attach to errors, and error matchers for tests.
package field
