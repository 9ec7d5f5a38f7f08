// Package finalizer is the apiextensions-apiserver's CRD finalizer
// controller (k8s.io/apiextensions-apiserver/pkg/controller/finalizer):
// when a CustomResourceDefinition is deleted, it deletes every custom
// resource the CRD defines, then removes the customresourcecleanup
// finalizer so that the CRD goes and its resource leaves discovery. It is
// a client of the API server like every loop, so it lives apart from the
// server code in package crd.
//
// Left out: the real controller deletes namespace by namespace with
// DeleteCollection and polls for a minute; this one deletes object by
// object and requeues after RecheckDelay while objects remain.
package finalizer

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/crd"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName names the loop in traces and logs.
const ControllerName = "customresourcecleanup-controller"

// Config builds a Controller.
type Config struct {
	// Client talks to the API server.
	Client *client.Client
	Clock  clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode runmode.Mode
	// RecheckDelay is how long to wait while custom resources remain (their
	// own finalizers may hold them): 5s, as the real controller polls.
	RecheckDelay time.Duration
	Logger       *slog.Logger
}

// Controller deletes every custom resource of a CRD being deleted,
// then removes the customresourcecleanup finalizer so that the CRD goes,
// and with it the resource from discovery: pkg/controller/finalizer of
// the apiextensions-apiserver.
type Controller struct {
	cfg  Config
	crds *cache.Informer[*api.CustomResourceDefinition]
	ctrl *controllers.Controller
}

// CRDClient is a typed client of apiextensions.k8s.io/v1
// CustomResourceDefinitions.
func CRDClient(c *client.Client) *client.Resource[*api.CustomResourceDefinition] {
	return client.For(c, client.ResourceInfo{Group: crd.Group, Version: "v1", Resource: crd.Resource},
		func() *api.CustomResourceDefinition { return &api.CustomResourceDefinition{} })
}

// New checks cfg and returns the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, fmt.Errorf("crd: Client and Clock are required")
	}
	if cfg.RecheckDelay <= 0 {
		cfg.RecheckDelay = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	fc := &Controller{cfg: cfg}
	fc.crds = cache.New(CRDClient(cfg.Client), "", client.ListOptions{}, cfg.Logger)
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: fc, Clock: cfg.Clock, Mode: cfg.Mode,
		Logger: cfg.Logger, Sources: []controllers.Source{fc.crds}})
	if err != nil {
		return nil, err
	}
	fc.ctrl = ctrl
	// Only CRDs being deleted are work.
	enqueue := controllers.EnqueueObject[*api.CustomResourceDefinition](ctrl, crd.Kind)
	fc.crds.AddHandler(cache.Handler[*api.CustomResourceDefinition]{
		OnAdd: func(c *api.CustomResourceDefinition) {
			if c.DeletionTimestamp != nil {
				enqueue.OnAdd(c)
			}
		},
		OnUpdate: func(old, c *api.CustomResourceDefinition) {
			if c.DeletionTimestamp != nil {
				enqueue.OnUpdate(old, c)
			}
		},
	})
	return fc, nil
}

// Controllers returns the loop, for the stepper.
func (fc *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{fc.ctrl}
}

// Run runs the loop until ctx ends (live mode).
func (fc *Controller) Run(ctx context.Context) { fc.ctrl.Run(ctx) }

// Reconcile implements controllers.Reconciler: key is a CRD name.
func (fc *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	cached, ok := fc.crds.Get("", key)
	if !ok || cached.DeletionTimestamp == nil || !slices.Contains(cached.Finalizers, registry.FinalizerCustomResourceGC) {
		return controllers.Result{}, nil
	}
	crds := CRDClient(fc.cfg.Client)
	c, err := crds.Get(ctx, "", key)
	if api.IsNotFound(err) {
		return controllers.Result{}, nil
	}
	if err != nil {
		return controllers.Result{}, err
	}
	if c.DeletionTimestamp == nil || !slices.Contains(c.Finalizers, registry.FinalizerCustomResourceGC) {
		return controllers.Result{}, nil
	}
	remaining, err := fc.deleteInstances(ctx, c)
	if err != nil {
		return controllers.Result{}, err
	}
	now := api.NewTime(fc.cfg.Clock.Now().UTC().Truncate(time.Second))
	if remaining > 0 {
		cond := api.CustomResourceDefinitionCondition{Type: api.Terminating, Status: api.ConditionTrue,
			Reason: "InstanceDeletionCheck", LastTransitionTime: now,
			Message: fmt.Sprintf("could not confirm zero CustomResources remaining: %d remaining", remaining)}
		if old := crd.FindCondition(c, api.Terminating); old == nil || old.Reason != cond.Reason || old.Message != cond.Message {
			crd.SetCondition(c, cond)
			if _, err := crds.UpdateStatus(ctx, c); err != nil {
				return controllers.Result{}, err
			}
		}
		return controllers.Result{RequeueAfter: fc.cfg.RecheckDelay}, nil
	}
	crd.SetCondition(c, api.CustomResourceDefinitionCondition{Type: api.Terminating, Status: api.ConditionFalse,
		Reason: "InstanceDeletionCompleted", Message: "removed all instances", LastTransitionTime: now})
	if c, err = crds.UpdateStatus(ctx, c); err != nil {
		return controllers.Result{}, err
	}
	c.Finalizers = slices.DeleteFunc(c.Finalizers, func(f string) bool { return f == registry.FinalizerCustomResourceGC })
	if _, err := crds.Update(ctx, c); err != nil && !api.IsNotFound(err) {
		return controllers.Result{}, err
	}
	return controllers.Result{}, nil
}

// deleteInstances deletes every object of the CRD (in name order) and
// reports how many still exist afterwards (held by their finalizers).
func (fc *Controller) deleteInstances(ctx context.Context, c *api.CustomResourceDefinition) (int, error) {
	if !crd.IsConditionTrue(c, api.Established) {
		// Never served: no object can exist.
		return 0, nil
	}
	version := ""
	for _, v := range c.Spec.Versions {
		if v.Served {
			version = v.Name
			break
		}
	}
	if version == "" {
		return 0, nil
	}
	res := client.Dynamic(fc.cfg.Client, client.ResourceInfo{Group: c.Spec.Group, Version: version,
		Resource: c.Status.AcceptedNames.Plural, Namespaced: c.Spec.Scope == api.NamespaceScoped})
	list, err := res.List(ctx, "", client.ListOptions{})
	if api.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	remaining := 0
	for _, obj := range list.Items {
		if obj.DeletionTimestamp != nil {
			remaining++
			continue
		}
		err := res.Delete(ctx, obj.Namespace, obj.Name, nil)
		if err != nil && !api.IsNotFound(err) {
			return 0, err
		}
	}
	if len(list.Items) > remaining {
		// Deleted some: look again, since finalizers may hold them.
		again, err := res.List(ctx, "", client.ListOptions{})
		if err != nil {
			return 0, err
		}
		return len(again.Items), nil
	}
	return remaining, nil
}
