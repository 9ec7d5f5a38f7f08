package validatingadmissionpolicystatus

import (
	"context"
	"fmt"
	"log/slog"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName names the loop in traces and logs, and is its switch
// (--controllers) name.
const ControllerName = "validatingadmissionpolicy-status"

// Config builds a Controller.
type Config struct {
	Client *client.Client
	Clock  clock.Clock
	Mode   runmode.Mode
	Logger *slog.Logger
	// Check type-checks a policy (required).
	Check func(*admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning
}

// Controller keeps the policies' status.
type Controller struct {
	cfg      Config
	policies *cache.Informer[*admissionregistrationv1.ValidatingAdmissionPolicy]
	ctrl     *controllers.Controller
}

// New checks cfg and returns the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil || cfg.Check == nil {
		return nil, fmt.Errorf("validatingadmissionpolicystatus: Client, Clock and Check are required")
	}
	c := &Controller{cfg: cfg}
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: c, Clock: cfg.Clock, Mode: cfg.Mode,
		Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	c.ctrl = ctrl
	// A policy is the key: a new generation is type-checked.
	c.policies = controllers.InformerFor(ctrl, cfg.Client.ValidatingAdmissionPolicies())
	enqueue := func(verb string, p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		ctrl.Enqueue(p.Name, controllers.CauseOf(verb, "ValidatingAdmissionPolicy", &p.ObjectMeta))
	}
	c.policies.AddHandler(cache.Handler[*admissionregistrationv1.ValidatingAdmissionPolicy]{
		OnAdd:    func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { enqueue("ADDED", p) },
		OnUpdate: func(_, p *admissionregistrationv1.ValidatingAdmissionPolicy) { enqueue("MODIFIED", p) },
	})
	return c, nil
}

// Controllers returns the loop, for the stepper.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.ctrl}
}

// Run runs the loop until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.ctrl.Run(ctx) }

// Reconcile implements controllers.Reconciler: a generation not yet
// checked is checked, and the status says so.
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	p, ok := c.policies.Get("", key)
	if !ok || p.Generation <= p.Status.ObservedGeneration {
		return controllers.Result{}, nil
	}
	updated := p.DeepCopy()
	updated.Status.ObservedGeneration = p.Generation
	updated.Status.TypeChecking = &admissionregistrationv1.TypeChecking{ExpressionWarnings: c.cfg.Check(p)}
	_, err := c.cfg.Client.ValidatingAdmissionPolicies().UpdateStatus(ctx, updated)
	if api.IsNotFound(err) || api.IsConflict(err) {
		// Gone, or changed under us: the informer's event brings it back.
		return controllers.Result{}, nil
	}
	return controllers.Result{}, err
}
