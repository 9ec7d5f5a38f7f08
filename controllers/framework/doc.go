// Package framework is a small kit for writing controllers of any kind,
// built-in or custom: declare the primary kind, the kinds it owns and a
// Reconcile(ctx, obj) function, and the framework builds the informers, the
// work queue, the mapping from owned objects to their owner, a
// create-or-update helper that sets the controller reference, and status
// updates that retry on conflict.
//
// It simulates sigs.k8s.io/controller-runtime (the builder's For/Owns,
// handler.EnqueueRequestForOwner, controllerutil.CreateOrUpdate and
// SetControllerReference, retry.RetryOnConflict from client-go), which is
// what kubebuilder and operator-sdk — the tools the seed names — generate
// code against. A Controller is an ordinary cluster component: the cluster
// can run it in process (step and live modes), and `kubesim run-controller`
// runs it as its own process against `kubesim serve`, because a controller
// is only a client of the API server.
//
// Left out: leader election, webhooks, metrics, a shared cache between
// controllers (each Controller has its own informers), predicates, and
// finalizer helpers. Read the real one at
// https://github.com/kubernetes-sigs/controller-runtime (pkg/builder,
// pkg/controller/controllerutil, pkg/handler/enqueue_owner.go).
package framework
