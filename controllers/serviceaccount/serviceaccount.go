package serviceaccount

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/controllers"
)

// ControllerName names the loop in traces and logs.
const ControllerName = "serviceaccount-controller"

// DefaultName is the account every namespace gets.
const DefaultName = "default"

// Config builds a Controller: the client, informers, clock and mode every
// controller of the controller manager is given.
type Config = controllers.BaseConfig

// Controller ensures the default ServiceAccount of every namespace.
type Controller struct {
	cfg        Config
	namespaces *cache.Informer[*corev1.Namespace]
	accounts   *cache.Informer[*corev1.ServiceAccount]
	ctrl       *controllers.Controller
}

// New checks cfg and returns the controller.
func New(cfg Config) (*Controller, error) {
	c := &Controller{cfg: cfg}
	ctrl, err := cfg.NewController(ControllerName, c)
	if err != nil {
		return nil, err
	}
	c.ctrl = ctrl
	c.namespaces = controllers.InformerFor(ctrl, cfg.Client.Namespaces())
	// Only the accounts named "default" are this controller's business.
	c.accounts = controllers.FilteredInformerFor(ctrl, cfg.Client.ServiceAccounts(), "",
		client.ListOptions{FieldSelector: "metadata.name=" + DefaultName})
	// A namespace is the key: its appearance needs an account.
	c.namespaces.AddHandler(cache.Handler[*corev1.Namespace]{
		OnAdd: func(ns *corev1.Namespace) {
			ctrl.Enqueue(ns.Name, controllers.CauseOf("ADDED", "Namespace", &ns.ObjectMeta))
		},
	})
	// A deleted default account is made again.
	c.accounts.AddHandler(cache.Handler[*corev1.ServiceAccount]{
		OnDelete: func(sa *corev1.ServiceAccount) {
			ctrl.Enqueue(sa.Namespace, controllers.CauseOf("DELETED", "ServiceAccount", &sa.ObjectMeta))
		},
	})
	return c, nil
}

// Controllers returns the loop, for the stepper.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.ctrl}
}

// Run runs the loop until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.ctrl.Run(ctx) }

// Reconcile implements controllers.Reconciler: key is a namespace name.
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	ns, ok := c.namespaces.Get("", key)
	if !ok || ns.Status.Phase == corev1.NamespaceTerminating || ns.DeletionTimestamp != nil {
		return controllers.Result{}, nil // nothing may be created in it
	}
	if _, ok := c.accounts.Get(key, DefaultName); ok {
		return controllers.Result{}, nil
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: DefaultName, Namespace: key}}
	_, err := c.cfg.Client.ServiceAccounts().Create(ctx, sa)
	if api.IsAlreadyExists(err) || (err != nil && api.IsForbidden(err)) {
		// Already there (the cache lags), or the namespace began
		// terminating: nothing to do.
		return controllers.Result{}, nil
	}
	return controllers.Result{}, err
}
