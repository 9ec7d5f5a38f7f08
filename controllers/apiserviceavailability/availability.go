package apiserviceavailability

import (
	"context"
	"errors"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName is the name --controllers uses.
const ControllerName = "apiservice-availability"

// DefaultRecheckInterval is how often a remote APIService is checked again
// when nothing it depends on changes (its server may stop answering).
const DefaultRecheckInterval = 10 * time.Second

// reasonLocal is kube-aggregator's reason for a local APIService, which
// is always available.
const reasonLocal = "Local"

// serviceIndex indexes APIServices by "namespace/name" of their Service.
const serviceIndex = "service"

// Availability is the result of checking one APIService's backend.
type Availability struct {
	Available bool
	Reason    string
	Message   string
}

// Checker checks one APIService's backend: the aggregator's check, which
// shares the proxy's resolver (aggregator.CheckAvailability), injected by
// the cluster so that this client of the API knows nothing of the server.
type Checker func(ctx context.Context, s *apiregistrationv1.APIService) Availability

// Config builds a Controller.
type Config struct {
	Client *client.Client
	Clock  clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode runmode.Mode
	// Check checks a backend (required).
	Check Checker
	// RecheckInterval (DefaultRecheckInterval).
	RecheckInterval time.Duration
	Logger          *slog.Logger
}

// Controller keeps the Available condition of every APIService.
type Controller struct {
	cfg        Config
	apis       *cache.Informer[*apiregistrationv1.APIService]
	services   *cache.Informer[*corev1.Service]
	endpoints  *cache.Informer[*corev1.Endpoints]
	controller *controllers.Controller
}

// New checks cfg and builds the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil || cfg.Check == nil {
		return nil, errors.New("availability: Client, Clock and Check are required")
	}
	if cfg.RecheckInterval <= 0 {
		cfg.RecheckInterval = DefaultRecheckInterval
	}
	c := &Controller{cfg: cfg}
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: c,
		Clock: cfg.Clock, Mode: cfg.Mode, Logger: cfg.Logger,
		// A remote APIService is checked again every 10s for as long as it
		// exists: a heartbeat, which the stepper must not wait on.
		Periodic: true})
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	// The APIServices are the keys; the Service and Endpoints of a
	// remote one say whether it can be reached.
	c.apis = controllers.InformerFor(ctrl, cfg.Client.APIServices())
	c.services = controllers.InformerFor(ctrl, cfg.Client.Services())
	c.endpoints = controllers.InformerFor(ctrl, cfg.Client.Endpoints())
	c.apis.AddIndexer(serviceIndex, func(s *apiregistrationv1.APIService) []string {
		if ref := s.Spec.Service; ref != nil {
			return []string{ref.Namespace + "/" + ref.Name}
		}
		return nil
	})
	c.apis.AddHandler(cache.Handler[*apiregistrationv1.APIService]{
		OnAdd:    func(s *apiregistrationv1.APIService) { c.enqueueAPIService("ADDED", s) },
		OnUpdate: func(_, s *apiregistrationv1.APIService) { c.enqueueAPIService("MODIFIED", s) },
	})
	c.services.AddHandler(dependents[*corev1.Service](c, "Service"))
	c.endpoints.AddHandler(dependents[*corev1.Endpoints](c, "Endpoints"))
	return c, nil
}

// enqueueAPIService queues s unless it is a local one already marked
// available: the hundred-odd local APIServices need no work, and a trace
// stays free of them.
func (c *Controller) enqueueAPIService(event string, s *apiregistrationv1.APIService) {
	if s.Spec.Service == nil {
		if cond := api.GetAPIServiceConditionByType(s, apiregistrationv1.Available); cond != nil && cond.Status == apiregistrationv1.ConditionTrue && cond.Reason == reasonLocal {
			return
		}
	}
	c.controller.Enqueue(s.Name, controllers.CauseOf(event, "APIService", &s.ObjectMeta))
}

// dependents queues the APIServices served by a Service when the Service
// or its Endpoints change.
func dependents[T api.Object](c *Controller, kind string) cache.Handler[T] {
	enqueue := func(event string, obj T) {
		m := api.Meta(obj)
		for _, s := range c.apis.ByIndex(serviceIndex, m.Namespace+"/"+m.Name) {
			c.controller.Enqueue(s.Name, controllers.CauseOf(event, kind, m))
		}
	}
	return cache.Handler[T]{
		OnAdd:    func(obj T) { enqueue("ADDED", obj) },
		OnUpdate: func(_, obj T) { enqueue("MODIFIED", obj) },
		OnDelete: func(obj T) { enqueue("DELETED", obj) },
	}
}

// Controllers implements the cluster's Component.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.controller}
}

// Run runs the controller until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.controller.Run(ctx) }

// Reconcile checks one APIService and writes its condition when it changed.
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	s, ok := c.apis.Get("", key)
	if !ok {
		return controllers.Result{}, nil
	}
	av := c.cfg.Check(ctx, s)
	next := Condition(s, av, metav1.NewTime(c.cfg.Clock.Now().UTC().Truncate(time.Second)))
	var result controllers.Result
	if s.Spec.Service != nil {
		result.RequeueAfter = c.cfg.RecheckInterval
	}
	if cur := api.GetAPIServiceConditionByType(s, apiregistrationv1.Available); cur != nil && cur.Status == next.Status && cur.Reason == next.Reason && cur.Message == next.Message {
		return result, nil
	}
	upd := s.DeepCopy()
	api.SetAPIServiceCondition(upd, next)
	if _, err := c.cfg.Client.APIServices().UpdateStatus(ctx, upd); err != nil {
		return controllers.Result{}, err
	}
	return result, nil
}

// Condition is the Available condition for av; the transition time moves
// only when the status changes.
func Condition(s *apiregistrationv1.APIService, av Availability, now metav1.Time) apiregistrationv1.APIServiceCondition {
	status := apiregistrationv1.ConditionFalse
	if av.Available {
		status = apiregistrationv1.ConditionTrue
	}
	cond := apiregistrationv1.APIServiceCondition{Type: apiregistrationv1.Available, Status: status, LastTransitionTime: now, Reason: av.Reason, Message: av.Message}
	if cur := api.GetAPIServiceConditionByType(s, apiregistrationv1.Available); cur != nil && cur.Status == status {
		cond.LastTransitionTime = cur.LastTransitionTime
	}
	return cond
}
