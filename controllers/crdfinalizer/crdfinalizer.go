package crdfinalizer

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
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
	crds *cache.Informer[*apiextensionsv1.CustomResourceDefinition]
	ctrl *controllers.Controller
}

// New checks cfg and returns the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, fmt.Errorf("crd: Client and Clock are required")
	}
	if cfg.RecheckDelay <= 0 {
		cfg.RecheckDelay = 5 * time.Second
	}
	fc := &Controller{cfg: cfg}
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: fc, Clock: cfg.Clock, Mode: cfg.Mode,
		Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	fc.ctrl = ctrl
	// A CRD being deleted is the key.
	fc.crds = controllers.InformerFor(ctrl, cfg.Client.CustomResourceDefinitions())
	fc.crds.AddHandler(controllers.EnqueueBeingDeleted[*apiextensionsv1.CustomResourceDefinition](ctrl, "CustomResourceDefinition"))
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
	if !ok || cached.DeletionTimestamp == nil || !slices.Contains(cached.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
		return controllers.Result{}, nil
	}
	crds := fc.cfg.Client.CustomResourceDefinitions()
	c, err := crds.Get(ctx, "", key)
	if api.IsNotFound(err) {
		return controllers.Result{}, nil
	}
	if err != nil {
		return controllers.Result{}, err
	}
	if c.DeletionTimestamp == nil || !slices.Contains(c.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
		return controllers.Result{}, nil
	}
	remaining, err := fc.deleteInstances(ctx, c)
	if err != nil {
		return controllers.Result{}, err
	}
	now := metav1.NewTime(fc.cfg.Clock.Now().UTC().Truncate(time.Second))
	if remaining > 0 {
		cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue,
			Reason: "InstanceDeletionCheck", LastTransitionTime: now,
			Message: fmt.Sprintf("could not confirm zero CustomResources remaining: %d remaining", remaining)}
		if old := api.FindCRDCondition(c, apiextensionsv1.Terminating); old == nil || old.Reason != cond.Reason || old.Message != cond.Message {
			api.SetCRDCondition(c, cond)
			if _, err := crds.UpdateStatus(ctx, c); err != nil {
				return controllers.Result{}, err
			}
		}
		return controllers.Result{RequeueAfter: fc.cfg.RecheckDelay}, nil
	}
	api.SetCRDCondition(c, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionFalse,
		Reason: "InstanceDeletionCompleted", Message: "removed all instances", LastTransitionTime: now})
	if c, err = crds.UpdateStatus(ctx, c); err != nil {
		return controllers.Result{}, err
	}
	c.Finalizers = slices.DeleteFunc(c.Finalizers, func(f string) bool { return f == apiextensionsv1.CustomResourceCleanupFinalizer })
	if _, err := crds.Update(ctx, c); err != nil && !api.IsNotFound(err) {
		return controllers.Result{}, err
	}
	return controllers.Result{}, nil
}

// deleteInstances deletes every object of the CRD (in name order) and
// reports how many still exist afterwards (held by their finalizers).
func (fc *Controller) deleteInstances(ctx context.Context, c *apiextensionsv1.CustomResourceDefinition) (int, error) {
	if !api.IsCRDConditionTrue(c, apiextensionsv1.Established) {
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
		Resource: c.Status.AcceptedNames.Plural, Namespaced: c.Spec.Scope == apiextensionsv1.NamespaceScoped})
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
