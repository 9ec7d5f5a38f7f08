package controllers

import (
	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client/cache"
)

// EnqueueObject returns informer handlers that queue the object's own key:
// the primary resource of a controller (a ReplicaSet for the ReplicaSet
// controller).
func EnqueueObject[T api.Object](c *Controller, kind string) cache.Handler[T] {
	add := func(event string) func(T) {
		return func(obj T) { c.Enqueue(cache.Key(api.Meta(obj)), CauseOf(event, kind, api.Meta(obj))) }
	}
	return cache.Handler[T]{
		OnAdd:    add("ADDED"),
		OnUpdate: func(_, obj T) { add("MODIFIED")(obj) },
		OnDelete: add("DELETED"),
	}
}

// EnqueueBeingDeleted is EnqueueObject for objects with a
// deletionTimestamp only: the loops that finish deletions (the namespace
// controller, the CRD finalizer) have no other work, and queueing the rest
// would fill the trace with reconciles that do nothing.
func EnqueueBeingDeleted[T api.Object](c *Controller, kind string) cache.Handler[T] {
	enqueue := EnqueueObject[T](c, kind)
	return cache.Handler[T]{
		OnAdd: func(obj T) {
			if api.Meta(obj).DeletionTimestamp != nil {
				enqueue.OnAdd(obj)
			}
		},
		OnUpdate: func(old, obj T) {
			if api.Meta(obj).DeletionTimestamp != nil {
				enqueue.OnUpdate(old, obj)
			}
		},
	}
}

// EnqueueController returns informer handlers that queue the key of the
// object's controller (its ownerReference with controller: true) when that
// owner is of ownerKind: a pod's change wakes its ReplicaSet. When an
// update changes the owner, both are queued.
func EnqueueController[T api.Object](c *Controller, kind, ownerKind string) cache.Handler[T] {
	enqueue := func(event string, obj T) {
		m := api.Meta(obj)
		ref := api.GetControllerOf(m)
		if ref == nil || ref.Kind != ownerKind {
			return
		}
		key := ref.Name
		if m.Namespace != "" {
			key = m.Namespace + "/" + ref.Name
		}
		c.Enqueue(key, CauseOf(event, kind, api.Meta(obj)))
	}
	return cache.Handler[T]{
		OnAdd: func(obj T) { enqueue("ADDED", obj) },
		OnUpdate: func(old, obj T) {
			enqueue("MODIFIED", obj)
			if o, n := api.GetControllerOf(api.Meta(old)), api.GetControllerOf(api.Meta(obj)); o != nil && (n == nil || o.UID != n.UID) {
				enqueue("MODIFIED", old)
			}
		},
		OnDelete: func(obj T) { enqueue("DELETED", obj) },
	}
}
