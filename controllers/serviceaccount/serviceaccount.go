package serviceaccount

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName names the loop in traces and logs.
const ControllerName = "serviceaccount-controller"

// DefaultName is the account every namespace gets.
const DefaultName = "default"

// Config builds a Controller.
type Config struct {
	Client *client.Client
	// Informers shares informers with the other controllers of the
	// process (kube-controller-manager's SharedInformerFactory; nil:
	// private ones).
	Informers *cache.Factory
	Clock     clock.Clock
	Mode      runmode.Mode
	Logger    *slog.Logger
}

// Controller ensures the default ServiceAccount of every namespace.
type Controller struct {
	cfg        Config
	namespaces *cache.Informer[*api.Namespace]
	accounts   *cache.Informer[*api.ServiceAccount]
	ctrl       *controllers.Controller
}

// New checks cfg and returns the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, fmt.Errorf("serviceaccount: Client and Clock are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{cfg: cfg}
	c.namespaces = cache.For(cfg.Informers, cfg.Client.Namespaces(), "", client.ListOptions{}, cfg.Logger)
	c.accounts = cache.For(cfg.Informers, cfg.Client.ServiceAccounts(), "", client.ListOptions{FieldSelector: "metadata.name=" + DefaultName}, cfg.Logger)
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: c, Clock: cfg.Clock, Mode: cfg.Mode,
		Logger: cfg.Logger, Sources: []controllers.Source{c.namespaces, c.accounts}})
	if err != nil {
		return nil, err
	}
	c.ctrl = ctrl
	// A namespace is the key: its appearance needs an account.
	c.namespaces.AddHandler(cache.Handler[*api.Namespace]{
		OnAdd: func(ns *api.Namespace) {
			ctrl.Enqueue(ns.Name, controllers.CauseOf("ADDED", "Namespace", &ns.ObjectMeta))
		},
	})
	// A deleted default account is made again.
	c.accounts.AddHandler(cache.Handler[*api.ServiceAccount]{
		OnDelete: func(sa *api.ServiceAccount) {
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
	if !ok || ns.Status.Phase == api.NamespaceTerminating || ns.DeletionTimestamp != nil {
		return controllers.Result{}, nil // nothing may be created in it
	}
	if _, ok := c.accounts.Get(key, DefaultName); ok {
		return controllers.Result{}, nil
	}
	sa := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: DefaultName, Namespace: key}}
	_, err := c.cfg.Client.ServiceAccounts().Create(ctx, sa)
	if api.IsAlreadyExists(err) || (err != nil && api.IsForbidden(err)) {
		// Already there (the cache lags), or the namespace began
		// terminating: nothing to do.
		return controllers.Result{}, nil
	}
	return controllers.Result{}, err
}
