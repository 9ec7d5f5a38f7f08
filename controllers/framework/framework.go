package framework

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/client/record"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
)

// DefaultStatusRetries is how many times UpdateStatus tries a status write
// that keeps meeting conflicts (client-go's retry.DefaultRetry has 5 steps).
const DefaultStatusRetries = 5

// ReconcileFunc closes the gap for one primary object. obj is a private
// copy (change it freely). The object no longer existing is not a call:
// what it owned is the garbage collector's, through ownerReferences.
type ReconcileFunc[T api.Object] func(ctx context.Context, obj T) (controllers.Result, error)

// Config builds a Controller whose primary objects decode into T
// (*api.StatefulSet, or *unstructured.Unstructured for a custom resource).
type Config[T api.Object] struct {
	// Name is the controller's name, as --controllers, the trace and
	// `kubesim run-controller` know it (required).
	Name string
	// Component signs the controller's events (Name+"-controller").
	Component string
	// Client is the controller's API client (required).
	Client *client.Client
	// Clock is the injected clock (required).
	Clock clock.Clock
	// Primary is the client of the primary resource (required).
	Primary *client.Resource[T]
	// GVK is the primary's kind, for controller references and events
	// (required).
	GVK api.GroupVersionKind
	// Owns are the kinds the controller creates (built by Owns) or
	// otherwise watches (built by Watches).
	Owns []Watch
	// Reconcile is the controller's logic (required).
	Reconcile ReconcileFunc[T]
	// Namespace limits the controller to one namespace ("" for all).
	Namespace string
	// Workers is the number of concurrent reconciles in live mode (1).
	Workers int
	// StatusRetries bounds UpdateStatus (DefaultStatusRetries).
	StatusRetries int
	// Recorder records events (one signed Component by default).
	Recorder *record.Recorder
	// Logger (discarded when nil).
	Logger *slog.Logger
}

// Controller runs a ReconcileFunc over the primary kind; it is a cluster
// component (Controllers and Run).
type Controller[T api.Object] struct {
	name      string
	client    *client.Client
	clock     clock.Clock
	primary   *client.Resource[T]
	gvk       api.GroupVersionKind
	informer  *cache.Informer[T]
	owns      []Watch
	reconcile ReconcileFunc[T]
	retries   int
	recorder  *record.Recorder
	logger    *slog.Logger
	ctrl      *controllers.Controller
}

// New builds the controller and its informers (not yet synced).
func New[T api.Object](cfg Config[T]) (*Controller[T], error) {
	if cfg.Name == "" || cfg.Client == nil || cfg.Clock == nil || cfg.Primary == nil || cfg.GVK.Kind == "" || cfg.Reconcile == nil {
		return nil, errors.New("framework: Name, Client, Clock, Primary, GVK and Reconcile are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Component == "" {
		cfg.Component = cfg.Name + "-controller"
	}
	if cfg.Recorder == nil {
		cfg.Recorder = record.New(cfg.Client, cfg.Component, "", cfg.Clock)
	}
	if cfg.StatusRetries <= 0 {
		cfg.StatusRetries = DefaultStatusRetries
	}
	c := &Controller[T]{
		name: cfg.Name, client: cfg.Client, clock: cfg.Clock, primary: cfg.Primary, gvk: cfg.GVK,
		informer:  cache.New(cfg.Primary, cfg.Namespace, client.ListOptions{}, cfg.Logger),
		owns:      cfg.Owns,
		reconcile: cfg.Reconcile, retries: cfg.StatusRetries, recorder: cfg.Recorder,
		logger: cfg.Logger.With("controller", cfg.Name),
	}
	sources := []controllers.Source{c.informer}
	for _, w := range cfg.Owns {
		if w == nil {
			return nil, errors.New("framework: a nil Watch in Owns")
		}
		sources = append(sources, w.source(cfg.Namespace, cfg.Logger))
	}
	ctrl, err := controllers.New(controllers.Config{Name: cfg.Name, Reconciler: controllers.ReconcileFunc(c.reconcileKey),
		Sources: sources, Clock: cfg.Clock, Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	c.ctrl = ctrl
	c.informer.AddHandler(controllers.EnqueueObject[T](ctrl, cfg.GVK.Kind))
	for _, w := range cfg.Owns {
		w.bind(ctrl, cfg.GVK)
	}
	return c, nil
}

// reconcileKey adapts the key-based queue to an object-based Reconcile:
// it reads the primary from the cache and hands Reconcile a copy.
func (c *Controller[T]) reconcileKey(ctx context.Context, key string) (controllers.Result, error) {
	ns, name := splitKey(key)
	obj, ok := c.informer.Get(ns, name)
	if !ok {
		return controllers.Result{}, nil
	}
	return c.reconcile(ctx, obj.DeepCopyObject().(T))
}

func splitKey(key string) (ns, name string) {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

// Name is the controller's name.
func (c *Controller[T]) Name() string { return c.name }

// Controllers returns the controller's one loop, for a manager or stepper.
func (c *Controller[T]) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.ctrl}
}

// Run runs the controller until ctx ends (live mode).
func (c *Controller[T]) Run(ctx context.Context) { c.ctrl.Run(ctx) }

// Client is the controller's API client.
func (c *Controller[T]) Client() *client.Client { return c.client }

// Clock is the controller's clock.
func (c *Controller[T]) Clock() clock.Clock { return c.clock }

// Logger is the controller's logger.
func (c *Controller[T]) Logger() *slog.Logger { return c.logger }

// GVK is the primary kind.
func (c *Controller[T]) GVK() api.GroupVersionKind { return c.gvk }

// Informer is the cache of primary objects (shared: copy before changing).
func (c *Controller[T]) Informer() *cache.Informer[T] { return c.informer }

// Enqueue queues a primary object's key ("namespace/name") with a cause.
func (c *Controller[T]) Enqueue(key string, cause controllers.Cause) { c.ctrl.Enqueue(key, cause) }

// Eventf records an event about a primary object.
func (c *Controller[T]) Eventf(ctx context.Context, obj T, eventtype, reason, format string, args ...any) {
	c.recorder.Eventf(ctx, record.Ref(obj, c.gvk), eventtype, reason, format, args...)
}

// Recorder is the controller's event recorder, for events about owned
// objects.
func (c *Controller[T]) Recorder() *record.Recorder { return c.recorder }

// SetControllerReference makes owner the controller of obj
// (controllerutil.SetControllerReference): it fails when another object
// already controls obj, and replaces an older reference to owner's name.
func (c *Controller[T]) SetControllerReference(owner T, obj api.Object) error {
	return SetControllerReference(owner.GetObjectMeta(), c.gvk, obj.GetObjectMeta())
}

// SetControllerReference adds to m a controller reference to owner of kind
// gvk, unless it has one already; another controller is an
// AlreadyOwnedError.
func SetControllerReference(owner *api.ObjectMeta, gvk api.GroupVersionKind, m *api.ObjectMeta) error {
	ref := api.NewControllerRef(owner, gvk)
	if cur := api.GetControllerOf(m); cur != nil {
		if cur.UID == ref.UID {
			return nil
		}
		return &AlreadyOwnedError{Object: m, Owner: *cur}
	}
	for i, r := range m.OwnerReferences {
		if r.APIVersion == ref.APIVersion && r.Kind == ref.Kind && r.Name == ref.Name {
			m.OwnerReferences[i] = *ref
			return nil
		}
	}
	m.OwnerReferences = append(m.OwnerReferences, *ref)
	return nil
}

// AlreadyOwnedError says an object has another controller.
type AlreadyOwnedError struct {
	Object *api.ObjectMeta
	Owner  api.OwnerReference
}

// Error is worded as controller-runtime's.
func (e *AlreadyOwnedError) Error() string {
	return fmt.Sprintf("Object %s/%s is already owned by another %s controller %s", e.Object.Namespace, e.Object.Name, e.Owner.Kind, e.Owner.Name)
}
