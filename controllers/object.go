package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/client/record"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/runmode"
)

// DefaultStatusRetries is how many times UpdateStatus tries a status write
// that keeps meeting conflicts (client-go's retry.DefaultRetry has 5 steps).
const DefaultStatusRetries = 5

// ObjectReconcileFunc closes the gap for one primary object. obj is a private
// copy (change it freely). The object no longer existing is not a call:
// what it owned is the garbage collector's, through ownerReferences.
type ObjectReconcileFunc[T api.Object] func(ctx context.Context, obj T) (Result, error)

// ObjectConfig builds an ObjectController whose primary objects decode
// into T (*api.StatefulSet, or *unstructured.Unstructured for a custom
// resource).
type ObjectConfig[T api.Object] struct {
	// Name is the controller's name, as --controllers, the trace and
	// `kubesim run-controller` know it (required).
	Name string
	// Component signs the controller's events (Name+"-controller").
	Component string
	// Client is the controller's API client (required).
	Client *client.Client
	// Informers shares informers with the other controllers of the
	// process (nil: private ones).
	Informers *cache.Factory
	// Clock is the injected clock (required).
	Clock clock.Clock
	// Mode is how the controller runs (Live or Step), for its queue and
	// its event recorder.
	Mode runmode.Mode
	// Primary is the client of the primary resource (required).
	Primary *client.Resource[T]
	// GVK is the primary's kind, for controller references and events
	// (required).
	GVK schema.GroupVersionKind
	// Owns are the kinds the controller creates (built by Owns) or
	// otherwise watches (built by Watches).
	Owns []Watch
	// Reconcile is the controller's logic (required).
	Reconcile ObjectReconcileFunc[T]
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

// ObjectController runs an ObjectReconcileFunc over the primary kind: the
// typed layer over one Controller (its queue of keys), which it returns
// from Controllers for a stepper; Run runs it live.
type ObjectController[T api.Object] struct {
	name      string
	client    *client.Client
	clock     clock.Clock
	primary   *client.Resource[T]
	gvk       schema.GroupVersionKind
	informer  *cache.Informer[T]
	owns      []Watch
	reconcile ObjectReconcileFunc[T]
	retries   int
	recorder  *record.Recorder
	logger    *slog.Logger
	ctrl      *Controller
}

// NewObjectController builds the controller and its informers (not yet
// synced).
func NewObjectController[T api.Object](cfg ObjectConfig[T]) (*ObjectController[T], error) {
	if cfg.Name == "" || cfg.Client == nil || cfg.Clock == nil || cfg.Primary == nil || cfg.GVK.Kind == "" || cfg.Reconcile == nil {
		return nil, errors.New("controllers: Name, Client, Clock, Primary, GVK and Reconcile are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Component == "" {
		cfg.Component = cfg.Name + "-controller"
	}
	if cfg.Recorder == nil {
		cfg.Recorder = record.New(record.Config{Client: cfg.Client, Component: cfg.Component, Clock: cfg.Clock, Mode: cfg.Mode})
	}
	if cfg.StatusRetries <= 0 {
		cfg.StatusRetries = DefaultStatusRetries
	}
	c := &ObjectController[T]{
		name: cfg.Name, client: cfg.Client, clock: cfg.Clock, primary: cfg.Primary, gvk: cfg.GVK,
		informer:  cache.For(cfg.Informers, cfg.Primary, cfg.Namespace, client.ListOptions{}, cfg.Logger),
		owns:      cfg.Owns,
		reconcile: cfg.Reconcile, retries: cfg.StatusRetries, recorder: cfg.Recorder,
		logger: cfg.Logger.With("controller", cfg.Name),
	}
	sources := []Source{c.informer}
	for _, w := range cfg.Owns {
		if w == nil {
			return nil, errors.New("controllers: a nil Watch in Owns")
		}
		sources = append(sources, w.source(cfg.Informers, cfg.Namespace, cfg.Logger))
	}
	ctrl, err := New(Config{Name: cfg.Name, Reconciler: ReconcileFunc(c.reconcileKey),
		Sources: sources, Clock: cfg.Clock, Mode: cfg.Mode, Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	c.ctrl = ctrl
	c.informer.AddHandler(EnqueueObject[T](ctrl, cfg.GVK.Kind))
	for _, w := range cfg.Owns {
		w.bind(ctrl, cfg.GVK)
	}
	return c, nil
}

// reconcileKey adapts the key-based queue to an object-based Reconcile:
// it reads the primary from the cache and hands Reconcile a copy.
func (c *ObjectController[T]) reconcileKey(ctx context.Context, key string) (Result, error) {
	ns, name := splitKey(key)
	obj, ok := c.informer.Get(ns, name)
	if !ok {
		return Result{}, nil
	}
	return c.reconcile(ctx, api.DeepCopy(obj).(T))
}

func splitKey(key string) (ns, name string) {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

// Name is the controller's name.
func (c *ObjectController[T]) Name() string { return c.name }

// Controllers returns the controller's one loop, for the stepper.
func (c *ObjectController[T]) Controllers() []*Controller {
	return []*Controller{c.ctrl}
}

// Run runs the controller until ctx ends (live mode).
func (c *ObjectController[T]) Run(ctx context.Context) { c.ctrl.Run(ctx) }

// Client is the controller's API client.
func (c *ObjectController[T]) Client() *client.Client { return c.client }

// Clock is the controller's clock.
func (c *ObjectController[T]) Clock() clock.Clock { return c.clock }

// Logger is the controller's logger.
func (c *ObjectController[T]) Logger() *slog.Logger { return c.logger }

// GVK is the primary kind.
func (c *ObjectController[T]) GVK() schema.GroupVersionKind { return c.gvk }

// Informer is the cache of primary objects (shared: copy before changing).
func (c *ObjectController[T]) Informer() *cache.Informer[T] { return c.informer }

// Enqueue queues a primary object's key ("namespace/name") with a cause.
func (c *ObjectController[T]) Enqueue(key string, cause Cause) { c.ctrl.Enqueue(key, cause) }

// Eventf records an event about a primary object.
func (c *ObjectController[T]) Eventf(ctx context.Context, obj T, eventtype, reason, format string, args ...any) {
	c.recorder.Eventf(ctx, record.Ref(obj, c.gvk), eventtype, reason, format, args...)
}

// Recorder is the controller's event recorder, for events about owned
// objects.
func (c *ObjectController[T]) Recorder() *record.Recorder { return c.recorder }

// SetControllerReference makes owner the controller of obj
// (controllerutil.SetControllerReference): it fails when another object
// already controls obj, and replaces an older reference to owner's name.
func (c *ObjectController[T]) SetControllerReference(owner T, obj api.Object) error {
	return SetControllerReference(api.Meta(owner), c.gvk, api.Meta(obj))
}

// SetControllerReference adds to m a controller reference to owner of kind
// gvk, unless it has one already; another controller is an
// AlreadyOwnedError.
func SetControllerReference(owner *metav1.ObjectMeta, gvk schema.GroupVersionKind, m *metav1.ObjectMeta) error {
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
	Object *metav1.ObjectMeta
	Owner  metav1.OwnerReference
}

// Error is worded as controller-runtime's.
func (e *AlreadyOwnedError) Error() string {
	return fmt.Sprintf("Object %s/%s is already owned by another %s controller %s", e.Object.Namespace, e.Object.Name, e.Owner.Kind, e.Owner.Name)
}
