package controllers

import (
	"log/slog"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
)

// ControllerUIDIndex indexes owned objects by the uid of their controller,
// so a reconcile reads only what its object owns.
const ControllerUIDIndex = "controllerUID"

// Watch is a kind a controller watches besides its primary: built by Owns
// or Watches.
type Watch interface {
	// source builds the informer (once the namespace is known), shared
	// through f when f shares.
	source(f *cache.Factory, namespace string, logger *slog.Logger) Source
	// bind adds the handler that queues primary keys.
	bind(ctrl *Controller, primary schema.GroupVersionKind)
}

// MapFunc maps a watched object to the keys ("namespace/name") of the
// primary objects it concerns.
type MapFunc[O api.Object] func(obj O) []string

// Watched caches one watched kind. Read it in Reconcile through Informer,
// OwnedBy or Get.
type Watched[O api.Object] struct {
	// Kind is the watched kind's name, for the trace's causes.
	Kind     string
	resource *client.Resource[O]
	mapFn    MapFunc[O]
	informer *cache.Informer[O]
}

// Owns declares a kind the controller creates and controls: an event on
// one of these objects queues its controller owner, when the owner is of
// the primary kind (handler.EnqueueRequestForOwner with OnlyControllerOwner).
func Owns[O api.Object](res *client.Resource[O], kind string) *Watched[O] {
	return &Watched[O]{Kind: kind, resource: res}
}

// Watches declares a kind whose events queue the primary keys mapFn
// returns (handler.EnqueueRequestsFromMapFunc): a RedisBackup's controller
// wakes when its RedisCluster changes.
func Watches[O api.Object](res *client.Resource[O], kind string, mapFn MapFunc[O]) *Watched[O] {
	return &Watched[O]{Kind: kind, resource: res, mapFn: mapFn}
}

func (w *Watched[O]) source(f *cache.Factory, namespace string, logger *slog.Logger) Source {
	w.informer = cache.For(f, w.resource, namespace, client.ListOptions{}, logger)
	w.informer.AddIndexer(ControllerUIDIndex, func(o O) []string {
		if ref := api.GetControllerOf(api.Meta(o)); ref != nil {
			return []string{string(ref.UID)}
		}
		return nil
	})
	return w.informer
}

func (w *Watched[O]) bind(ctrl *Controller, primary schema.GroupVersionKind) {
	enqueue := func(event string, obj O) {
		m := api.Meta(obj)
		cause := Cause{Event: event, Kind: w.Kind, Namespace: m.Namespace, Name: m.Name, ResourceVersion: m.ResourceVersion}
		for _, key := range w.keys(obj, primary) {
			ctrl.Enqueue(key, cause)
		}
	}
	w.informer.AddHandler(cache.Handler[O]{
		OnAdd: func(obj O) { enqueue("ADDED", obj) },
		OnUpdate: func(old, obj O) {
			enqueue("MODIFIED", obj)
			// A changed owner wakes the old one too (it lost a dependent).
			if o, n := api.GetControllerOf(api.Meta(old)), api.GetControllerOf(api.Meta(obj)); o != nil && (n == nil || o.UID != n.UID) {
				enqueue("MODIFIED", old)
			}
		},
		OnDelete: func(obj O) { enqueue("DELETED", obj) },
	})
}

// keys are the primary keys an event on obj queues.
func (w *Watched[O]) keys(obj O, primary schema.GroupVersionKind) []string {
	if w.mapFn != nil {
		return w.mapFn(obj)
	}
	m := api.Meta(obj)
	ref := api.GetControllerOf(m)
	if ref == nil || ref.Kind != primary.Kind || groupOf(ref.APIVersion) != primary.Group {
		return nil
	}
	if m.Namespace == "" {
		return []string{ref.Name}
	}
	return []string{m.Namespace + "/" + ref.Name}
}

// groupOf is the group of an apiVersion ("" for "v1").
func groupOf(apiVersion string) string {
	for i := len(apiVersion) - 1; i >= 0; i-- {
		if apiVersion[i] == '/' {
			return apiVersion[:i]
		}
	}
	return ""
}

// Resource is the client of the watched kind.
func (w *Watched[O]) Resource() *client.Resource[O] { return w.resource }

// Informer is the watched kind's cache (nil before the controller is
// built; objects are shared: copy before changing).
func (w *Watched[O]) Informer() *cache.Informer[O] { return w.informer }

// Get returns a cached object.
func (w *Watched[O]) Get(ns, name string) (O, bool) { return w.informer.Get(ns, name) }

// OwnedBy returns the cached objects whose controller is owner, in key
// order.
func (w *Watched[O]) OwnedBy(owner api.Object) []O {
	return w.informer.ByIndex(ControllerUIDIndex, string(api.Meta(owner).UID))
}
