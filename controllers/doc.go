// Package controllers is the framework every control loop of kubesim is
// written in, and the controller manager that runs many of them in one
// component, like kube-controller-manager.
//
// A controller is informers (its view of the cluster), a work queue of keys,
// and a Reconciler: Reconcile(ctx, key) compares the desired state stored in
// the API server with the actual state and writes what closes the gap. The
// same controller runs two ways:
//
//   - live: Run starts the informers' watches and worker goroutines;
//   - step: Sync refreshes the informers by listing, and Step reconciles
//     exactly one key, so a stepper can drive every loop from one goroutine
//     on a fake clock and get the same trace every run.
//
// It simulates k8s.io/controller-manager and the controller pattern of
// k8s.io/client-go (informer → event handler → workqueue → worker), as
// sample-controller shows it. The controllers themselves live in
// sub-packages, one each, and never import one another: what they share is
// here, as in Kubernetes' pkg/controller — ClaimObjects, the adopt and
// release of dependents (controller_ref_manager.go), and CauseOf,
// ComputeHash and NextAvailable (controller_utils.go). Left out: leader election, shared informer
// factories (each controller has its own informers), and metrics.
package controllers
