// Package garbagecollector is kubesim's garbage collector: ownerReferences
// drive cascading deletion of every resource the API server serves,
// built-in or custom.
//
// It simulates kubernetes/pkg/controller/garbagecollector (garbagecollector.go,
// graph_builder.go, graph.go, operations.go, patch.go). Read those files for
// the real thing; the names here follow them:
//
//   - One informer ("monitor") per served resource, over the dynamic client,
//     feeds a graph of nodes keyed by uid: each node knows its owners and its
//     dependents. The list of resources comes from Config.Resources and is
//     read again on every Sync, so a custom resource defined later is
//     watched from then on.
//   - An owner referenced but never observed becomes a "virtual" node and is
//     checked with a live GET; when it does not exist (or has another uid)
//     a virtual delete event removes it, and its dependents are checked.
//   - attemptToDelete: a dependent whose owners are all gone is deleted
//     (propagationPolicy Background unless the dependent carries its own
//     finalizer), a dependent with another live owner only loses the
//     reference to the gone ones. Owners are always confirmed absent with a
//     live GET before anything is deleted, as Kubernetes does.
//   - Foreground: an owner with a deletionTimestamp and the
//     "foregroundDeletion" finalizer has its dependents deleted (with
//     Foreground when they have dependents of their own, so the whole tree
//     goes bottom-up); when no dependent with blockOwnerDeletion remains the
//     collector removes the finalizer, and the API server deletes the owner.
//   - attemptToOrphan: an owner with a deletionTimestamp and the "orphan"
//     finalizer has its reference removed from every dependent, then the
//     finalizer is removed.
//
// Finalizers and ownerReferences are edited with JSON merge patches that
// carry the object's resourceVersion and uid, so a concurrent change makes
// the write fail with a Conflict and the key is retried.
//
// The work queue is the controller framework's: one queue whose keys name
// the action and the node, "attemptToDelete Pod default/web-1 <uid>" or
// "attemptToOrphan ReplicaSet default/web <uid>", where Kubernetes has two
// queues of node pointers. The key reads well in the step trace.
//
// Left out: metadata-only informers (monitors cache whole objects), the
// periodic re-discovery (step mode re-reads Config.Resources on every Sync,
// live mode every ResyncPeriod), the ownerReference namespace/coordinate
// checks and their OwnerRefInvalidNamespace events, cycle detection beyond
// the foreground deadlock case, metrics, and the debug graph endpoint.
// Resources named in Config.IgnoredResources (events and leases by default,
// like the real --gc-ignored-resources of events) are not watched: their
// objects are never collected and never recognised as owners from the
// cache. An owner of an unwatched kind that exists is left alone; it is
// found absent only when one of its dependents is examined.
package garbagecollector
