// Package namespace is kubesim's namespace controller: it empties a
// namespace that is being deleted, then lets the API server remove it.
//
// It simulates kubernetes/pkg/controller/namespace (namespace_controller.go)
// and its deleter, pkg/controller/namespace/deletion
// (namespaced_resources_deleter.go, status_condition_utils.go). Read those
// for the real thing.
//
// Deleting a namespace makes the API server set its deletionTimestamp and
// status.phase Terminating; the namespace stays while spec.finalizers holds
// "kubernetes". The controller then, for every namespaced resource the
// server serves (Config.Resources, read on every pass so custom resources
// count), deletes every object in the namespace (propagationPolicy
// Background) and lists again to see what remains. It writes the five
// deletion conditions on the namespace's status as Kubernetes words them
// (NamespaceContentRemaining: "Some resources are remaining: pods. has 2
// resource instances", NamespaceFinalizersRemaining, NamespaceDeletion-
// ContentFailure...). While anything remains it looks again after
// RequeueDelay; once nothing does, it removes "kubernetes" from
// spec.finalizers with a PUT to namespaces/finalize (the one write that may
// change them), and the API server deletes the namespace.
// Meanwhile the API server's NamespaceLifecycle admission refuses new
// objects in the namespace.
//
// Left out: discovery (the resources come from Config.Resources, so the
// DiscoveryFailure and GroupVersionParsingFailure conditions always report
// success), deletecollection (objects are deleted one by one, which reads
// well in the step trace), the estimate of pods' graceful termination (a
// fixed RequeueDelay instead), and the periodic resync of every namespace.
package namespace
