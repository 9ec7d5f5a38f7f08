// Package controllers is the one framework every control loop of kubesim
// is written in — the built-in controllers, the scheduler, the kubelet, the
// StatefulSet controller and the example operators alike. It has two
// layers, the second built on the first.
//
// # Layer 1: a Reconciler over a queue of keys (Controller)
//
// A Controller is informers (its view of the cluster, the Sources), a work
// queue of keys ("namespace/name", client/workqueue) and a Reconciler:
// Reconcile(ctx, key) compares the desired state stored in the API server
// with the actual state and writes what closes the gap. InformerFor takes
// an informer from the controller manager's factory (Config.Informers) and
// makes it one of the sources, so that a constructor reads as the list of
// what the controller watches, then the handler of each; the handlers
// decide which keys an event queues (EnqueueObject, EnqueueController, or
// the controller's own), with the Cause the trace shows. This is the shape
// of client-go's sample-controller and of every controller of
// kube-controller-manager; kubesim's ReplicaSet, Deployment, garbage
// collector, namespace, node lifecycle and endpoints controllers, the
// scheduler and the kubelet are written on it directly, because they need
// what it leaves open: several primary-like kinds, expectations, their own
// indexes.
//
// # Layer 2: a typed controller of one primary kind (ObjectController)
//
// An ObjectController is a Controller set up for the common case of a
// controller that owns a kind: declare the primary kind, the kinds it owns
// (Owns: an event on an owned object queues its controller owner) or
// otherwise watches (Watches, with a MapFunc), and an ObjectReconcileFunc
// that receives a private copy of the primary object. Helpers write what
// such a controller writes: CreateOrUpdate (with SetControllerReference),
// and UpdateStatus, which retries on Conflict. It simulates
// sigs.k8s.io/controller-runtime (the builder's For/Owns/Watches,
// handler.EnqueueRequestForOwner, controllerutil.CreateOrUpdate), the
// library kubebuilder and operator-sdk generate code against. The
// StatefulSet controller and the example operators (examples/operators/foo,
// redis) are written on it; underneath, each is one layer-1 Controller.
//
// # Two ways to run the same loop
//
// Config.Mode (runmode.Live or runmode.Step) says how a controller runs:
//
//   - live: Run starts the informers' watches and worker goroutines; the
//     queue's timers wake delayed keys;
//   - step: Sync refreshes the informers by listing, and Step reconciles
//     exactly one key, so that the stepper (package stepper) drives every
//     loop from one goroutine on a fake clock and gets the same trace every
//     run.
//
// A component made of controllers (Controllers() and Run) is wired by
// package cluster; ParseEnabled reads kube-controller-manager's
// --controllers switch for it. AdoptPatch and ReleasePatch are the patches
// of the ControllerRefManager's claim.
//
// It simulates k8s.io/controller-manager and the controller pattern of
// k8s.io/client-go (informer → event handler → workqueue → worker), with
// controller-runtime's builder as the second layer. The controllers
// themselves live in sub-packages, one each, and never import one another:
// what they share is here, as in Kubernetes' pkg/controller — ClaimObjects,
// the adopt and release of dependents (controller_ref_manager.go), and
// CauseOf, ComputeHash and NextAvailable (controller_utils.go). Informers are
// shared through client/cache's Factory in live mode only (in step mode
// each controller keeps its own, so that the trace does not move); leader
// election is package cluster's. A controller's queue is measured under
// its name (workqueue_depth{name="replicaset"}, ...) when SetQueueMetrics
// gives it a provider, as the cluster does for every controller it builds
// (controllers/workqueuemetrics is the Prometheus one). Left out:
// predicates and webhooks.
// Read the real ones at https://github.com/kubernetes/sample-controller and
// https://github.com/kubernetes-sigs/controller-runtime (pkg/builder,
// pkg/controller/controllerutil, pkg/handler/enqueue_owner.go).
package controllers
