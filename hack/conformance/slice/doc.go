// Package slice is a small, fast part of Kubernetes' conformance suite
// (make conformance-slice): real upstream specs of
// k8s.io/kubernetes/test/e2e v1.32.4 that kubesim passes today, compiled
// without the rest of the suite.
//
// e2e.test links every SIG's specs and the cloud providers' SDKs; this
// test binary imports only the e2e framework and the SIG packages named in
// slice_test.go. That saves less than it seems: the framework's pod
// helpers alone bring in most of Kubernetes, so a fresh clone compiles
// nearly as much (the figures are in docs/conformance.md), which keeps the
// slice out of make test for now. specs.txt lists the specs it runs, by
// their full names; `go run ./hack/conformance -slice` builds this binary,
// starts kubesim serve built from the tree and fails when any of them does
// not pass or does not run.
//
// It is a module of its own so that the root module never depends on
// k8s.io/kubernetes.
package slice
