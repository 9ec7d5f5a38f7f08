package clusterroleaggregation

import (
	"context"
	"reflect"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/controllers"
)

// ControllerName names the loop in traces and logs, and is its switch
// (--controllers) name.
const ControllerName = "clusterrole-aggregation"

// Config builds a Controller: the client, informers, clock and mode every
// controller of the controller manager is given.
type Config = controllers.BaseConfig

// Controller keeps aggregated ClusterRoles' rules.
type Controller struct {
	cfg   Config
	roles *cache.Informer[*rbacv1.ClusterRole]
	ctrl  *controllers.Controller
}

// New checks cfg and returns the controller.
func New(cfg Config) (*Controller, error) {
	c := &Controller{cfg: cfg}
	ctrl, err := cfg.NewController(ControllerName, c)
	if err != nil {
		return nil, err
	}
	c.ctrl = ctrl
	c.roles = controllers.InformerFor(ctrl, cfg.Client.ClusterRoles())
	// Any change to any ClusterRole may change what an aggregated one
	// gathers: every aggregated role is looked at again (the real
	// controller does the same).
	enqueueAll := func(verb string, r *rbacv1.ClusterRole) {
		for _, agg := range c.roles.List() {
			if agg.AggregationRule != nil {
				ctrl.Enqueue(agg.Name, controllers.CauseOf(verb, "ClusterRole", &r.ObjectMeta))
			}
		}
	}
	c.roles.AddHandler(cache.Handler[*rbacv1.ClusterRole]{
		OnAdd:    func(r *rbacv1.ClusterRole) { enqueueAll("ADDED", r) },
		OnUpdate: func(_, r *rbacv1.ClusterRole) { enqueueAll("MODIFIED", r) },
		OnDelete: func(r *rbacv1.ClusterRole) { enqueueAll("DELETED", r) },
	})
	return c, nil
}

// Controllers returns the loop, for the stepper.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.ctrl}
}

// Run runs the loop until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.ctrl.Run(ctx) }

// Reconcile implements controllers.Reconciler: key is an aggregated
// ClusterRole's name.
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	role, ok := c.roles.Get("", key)
	if !ok || role.AggregationRule == nil {
		return controllers.Result{}, nil
	}
	rules := api.AggregateClusterRoleRules(role, c.roles.List())
	if reflect.DeepEqual(rules, role.Rules) {
		return controllers.Result{}, nil
	}
	updated := role.DeepCopy()
	updated.Rules = rules
	_, err := c.cfg.Client.ClusterRoles().Update(ctx, updated)
	if api.IsNotFound(err) || api.IsConflict(err) {
		// Gone, or changed under us: the informer's event brings it back.
		return controllers.Result{}, nil
	}
	return controllers.Result{}, err
}
