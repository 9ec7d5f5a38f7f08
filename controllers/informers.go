package controllers

import (
	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
)

// InformerFor returns c's informer of every object of res — taken from
// the informer factory of c's Config, so shared with the other
// controllers of the process when the factory shares — and makes it one
// of c's sources: Sync lists it, Run waits for it to sync. It is client-go's
// informer wiring (factory.InformerFor, then the informer's HasSynced
// among the caches the controller waits for) in one call, so that a
// controller's constructor reads as the list of what it watches.
//
// Add the event handlers once every informer of the controller exists:
// a handler added to a shared informer that has already synced (a
// controller switched back on in a running cluster) is replayed the
// cache at once, and may read the controller's other informers.
func InformerFor[T api.Object](c *Controller, res *client.Resource[T]) *cache.Informer[T] {
	return FilteredInformerFor(c, res, "", client.ListOptions{})
}

// FilteredInformerFor is InformerFor of the objects of namespace ("" for
// all) that opts selects (a label or field selector): client-go's
// NewFilteredXInformer, for a controller that needs only some objects of a
// kind (the ServiceAccount controller watches only the accounts named
// "default").
func FilteredInformerFor[T api.Object](c *Controller, res *client.Resource[T], namespace string, opts client.ListOptions) *cache.Informer[T] {
	inf := cache.For(c.informers, res, namespace, opts, c.informerLogger)
	c.AddSource(inf)
	return inf
}
