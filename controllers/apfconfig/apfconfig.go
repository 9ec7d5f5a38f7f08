package apfconfig

import (
	"context"
	"errors"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/flowcontrol"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/controllers"
)

// ControllerName names the loop in traces and logs.
const ControllerName = "priority-and-fairness-config"

// configKey is the one work item: the whole configuration.
const configKey = "flowcontrol"

// StatusWriter is what the controller writes through: a FlowSchema's
// status.
type StatusWriter interface {
	UpdateStatus(ctx context.Context, fs *flowcontrolv1.FlowSchema) (*flowcontrolv1.FlowSchema, error)
}

// Config builds a Controller; its clock stamps the conditions'
// transitions.
type Config = controllers.BaseConfig

// Controller keeps the FlowSchemas' Dangling conditions.
type Controller struct {
	cfg     Config
	levels  *cache.Informer[*flowcontrolv1.PriorityLevelConfiguration]
	schemas *cache.Informer[*flowcontrolv1.FlowSchema]
	writer  StatusWriter
	ctrl    *controllers.Controller
}

// New checks cfg and returns the controller.
func New(cfg Config) (*Controller, error) {
	c := &Controller{cfg: cfg}
	ctrl, err := cfg.NewController(ControllerName, c)
	if err != nil {
		return nil, err
	}
	c.ctrl, c.writer = ctrl, cfg.Client.FlowSchemas()
	// The levels first: when the schemas arrive, the levels they name
	// are known, so right conditions queue nothing.
	c.levels = controllers.InformerFor(ctrl, cfg.Client.PriorityLevelConfigurations())
	c.schemas = controllers.InformerFor(ctrl, cfg.Client.FlowSchemas())
	onLevel := func(event string) func(*flowcontrolv1.PriorityLevelConfiguration) {
		return func(pl *flowcontrolv1.PriorityLevelConfiguration) {
			for _, fs := range c.schemas.List() {
				if fs.Spec.PriorityLevelConfiguration.Name == pl.Name && c.wrong(fs) {
					ctrl.Enqueue(configKey, controllers.CauseOf(event, "PriorityLevelConfiguration", &pl.ObjectMeta))
					return
				}
			}
		}
	}
	c.levels.AddHandler(cache.Handler[*flowcontrolv1.PriorityLevelConfiguration]{OnAdd: onLevel("ADDED"), OnDelete: onLevel("DELETED")})
	onSchema := func(event string) func(*flowcontrolv1.FlowSchema) {
		return func(fs *flowcontrolv1.FlowSchema) {
			if c.wrong(fs) {
				ctrl.Enqueue(configKey, controllers.CauseOf(event, "FlowSchema", &fs.ObjectMeta))
			}
		}
	}
	c.schemas.AddHandler(cache.Handler[*flowcontrolv1.FlowSchema]{
		OnAdd:    onSchema("ADDED"),
		OnUpdate: func(_, fs *flowcontrolv1.FlowSchema) { onSchema("MODIFIED")(fs) },
	})
	return c, nil
}

// Controllers returns the loop, for the stepper.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.ctrl}
}

// Run runs the loop until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.ctrl.Run(ctx) }

// want is the Dangling condition fs should have, by the levels cached.
func (c *Controller) want(fs *flowcontrolv1.FlowSchema) flowcontrolv1.FlowSchemaCondition {
	_, exists := c.levels.Get("", fs.Spec.PriorityLevelConfiguration.Name)
	return flowcontrol.DanglingCondition(fs, exists)
}

// wrong reports whether fs's condition is not the one it should have.
func (c *Controller) wrong(fs *flowcontrolv1.FlowSchema) bool {
	return flowcontrol.SetDangling(fs.DeepCopy(), c.want(fs), c.cfg.Clock.Now())
}

// Reconcile implements controllers.Reconciler: the one key is the whole
// configuration; every schema whose condition is wrong gets it written.
func (c *Controller) Reconcile(ctx context.Context, _ string) (controllers.Result, error) {
	var errs []error
	now := c.cfg.Clock.Now()
	for _, cached := range c.schemas.List() {
		fs := cached.DeepCopy()
		if !flowcontrol.SetDangling(fs, c.want(cached), now) {
			continue
		}
		_, err := c.writer.UpdateStatus(ctx, fs)
		if err != nil && !api.IsNotFound(err) {
			// A conflict means a newer schema, whose event queues
			// the configuration again.
			if !api.IsConflict(err) {
				errs = append(errs, err)
			}
		}
	}
	return controllers.Result{}, errors.Join(errs...)
}
