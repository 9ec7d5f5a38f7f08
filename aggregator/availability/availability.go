package availability

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/kubesim/kubesim/aggregator"
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

// APIServicesResource is apiregistration.k8s.io/v1 apiservices for the client.
var APIServicesResource = client.ResourceInfo{Group: aggregator.Group, Version: "v1", Resource: aggregator.ResourceName}

// serviceIndex indexes APIServices by "namespace/name" of their Service.
const serviceIndex = "service"

// Checker checks one APIService's backend (aggregator.CheckAvailability).
type Checker func(ctx context.Context, s *api.APIService) aggregator.Availability

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
	apis       *cache.Informer[*api.APIService]
	services   *cache.Informer[*api.Service]
	endpoints  *cache.Informer[*api.Endpoints]
	controller *controllers.Controller
}

// New checks cfg and builds the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil || cfg.Check == nil {
		return nil, errors.New("availability: Client, Clock and Check are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.RecheckInterval <= 0 {
		cfg.RecheckInterval = DefaultRecheckInterval
	}
	c := &Controller{
		cfg:       cfg,
		apis:      cache.New(client.For(cfg.Client, APIServicesResource, func() *api.APIService { return &api.APIService{} }), "", client.ListOptions{}, cfg.Logger),
		services:  cache.New(cfg.Client.Services(), "", client.ListOptions{}, cfg.Logger),
		endpoints: cache.New(cfg.Client.Endpoints(), "", client.ListOptions{}, cfg.Logger),
	}
	c.apis.AddIndexer(serviceIndex, func(s *api.APIService) []string {
		if ref := s.Spec.Service; ref != nil {
			return []string{ref.Namespace + "/" + ref.Name}
		}
		return nil
	})
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: c,
		Sources: []controllers.Source{c.apis, c.services, c.endpoints}, Clock: cfg.Clock, Mode: cfg.Mode, Logger: cfg.Logger,
		// A remote APIService is checked again every 10s for as long as it
		// exists: a heartbeat, which the stepper must not wait on.
		Periodic: true})
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	c.apis.AddHandler(cache.Handler[*api.APIService]{
		OnAdd:    func(s *api.APIService) { c.enqueueAPIService("ADDED", s) },
		OnUpdate: func(_, s *api.APIService) { c.enqueueAPIService("MODIFIED", s) },
	})
	c.services.AddHandler(dependents[*api.Service](c, "Service"))
	c.endpoints.AddHandler(dependents[*api.Endpoints](c, "Endpoints"))
	return c, nil
}

// enqueueAPIService queues s unless it is a local one already marked
// available: the hundred-odd local APIServices need no work, and a trace
// stays free of them.
func (c *Controller) enqueueAPIService(event string, s *api.APIService) {
	if s.Spec.Service == nil {
		if cond := aggregator.AvailableCondition(s); cond != nil && cond.Status == api.ConditionTrue && cond.Reason == aggregator.ReasonLocal {
			return
		}
	}
	c.controller.Enqueue(s.Name, controllers.Cause{Event: event, Kind: "APIService", Name: s.Name, ResourceVersion: s.ResourceVersion})
}

// dependents queues the APIServices served by a Service when the Service
// or its Endpoints change.
func dependents[T api.Object](c *Controller, kind string) cache.Handler[T] {
	enqueue := func(event string, obj T) {
		m := obj.GetObjectMeta()
		for _, s := range c.apis.ByIndex(serviceIndex, m.Namespace+"/"+m.Name) {
			c.controller.Enqueue(s.Name, controllers.Cause{Event: event, Kind: kind, Namespace: m.Namespace, Name: m.Name, ResourceVersion: m.ResourceVersion})
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
	next := Condition(s, av, api.NewTime(c.cfg.Clock.Now().UTC().Truncate(time.Second)))
	var result controllers.Result
	if s.Spec.Service != nil {
		result.RequeueAfter = c.cfg.RecheckInterval
	}
	if cur := aggregator.AvailableCondition(s); cur != nil && cur.Status == next.Status && cur.Reason == next.Reason && cur.Message == next.Message {
		return result, nil
	}
	upd := s.DeepCopy()
	SetCondition(upd, next)
	if _, err := client.For(c.cfg.Client, APIServicesResource, func() *api.APIService { return &api.APIService{} }).UpdateStatus(ctx, upd); err != nil {
		return controllers.Result{}, err
	}
	return result, nil
}

// Condition is the Available condition for av; the transition time moves
// only when the status changes.
func Condition(s *api.APIService, av aggregator.Availability, now api.Time) api.APIServiceCondition {
	status := api.ConditionFalse
	if av.Available {
		status = api.ConditionTrue
	}
	cond := api.APIServiceCondition{Type: api.Available, Status: status, LastTransitionTime: now, Reason: av.Reason, Message: av.Message}
	if cur := aggregator.AvailableCondition(s); cur != nil && cur.Status == status {
		cond.LastTransitionTime = cur.LastTransitionTime
	}
	return cond
}

// SetCondition replaces (or adds) the Available condition of s.
func SetCondition(s *api.APIService, cond api.APIServiceCondition) {
	for i := range s.Status.Conditions {
		if s.Status.Conditions[i].Type == cond.Type {
			s.Status.Conditions[i] = cond
			return
		}
	}
	s.Status.Conditions = append(s.Status.Conditions, cond)
}
