package endpoints

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"sort"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/intstr"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName is the name --controllers uses.
const ControllerName = "endpoints"

// Config builds a Controller.
type Config struct {
	Client *client.Client
	// Informers shares informers with the other controllers of the
	// process (kube-controller-manager's SharedInformerFactory; nil:
	// private ones).
	Informers *cache.Factory
	Clock     clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode   runmode.Mode
	Logger *slog.Logger
}

// Controller keeps each Service's Endpoints.
type Controller struct {
	client     *client.Client
	services   *cache.Informer[*api.Service]
	pods       *cache.Informer[*api.Pod]
	endpoints  *cache.Informer[*api.Endpoints]
	controller *controllers.Controller
}

// New checks cfg and builds the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("endpoints: Client and Clock are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		client:    cfg.Client,
		services:  cache.For(cfg.Informers, cfg.Client.Services(), "", client.ListOptions{}, cfg.Logger),
		pods:      cache.For(cfg.Informers, cfg.Client.Pods(), "", client.ListOptions{}, cfg.Logger),
		endpoints: cache.For(cfg.Informers, cfg.Client.Endpoints(), "", client.ListOptions{}, cfg.Logger),
	}
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: c,
		Sources: []controllers.Source{c.services, c.pods, c.endpoints}, Clock: cfg.Clock, Mode: cfg.Mode, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	c.services.AddHandler(controllers.EnqueueObject[*api.Service](ctrl, "Service"))
	c.pods.AddHandler(cache.Handler[*api.Pod]{
		OnAdd:    func(p *api.Pod) { c.enqueuePod("ADDED", p, nil) },
		OnUpdate: func(old, p *api.Pod) { c.enqueuePod("MODIFIED", p, old) },
		OnDelete: func(p *api.Pod) { c.enqueuePod("DELETED", p, nil) },
	})
	// An Endpoints changed or deleted by someone else is put back.
	c.endpoints.AddHandler(cache.Handler[*api.Endpoints]{
		OnUpdate: func(_, e *api.Endpoints) { c.enqueueIfService("MODIFIED", e) },
		OnDelete: func(e *api.Endpoints) { c.enqueueIfService("DELETED", e) },
	})
	return c, nil
}

func (c *Controller) enqueueIfService(event string, e *api.Endpoints) {
	if _, ok := c.services.Get(e.Namespace, e.Name); ok {
		c.controller.Enqueue(cache.Key(&e.ObjectMeta), controllers.CauseOf(event, "Endpoints", &e.ObjectMeta))
	}
}

// enqueuePod queues the services whose selector matches the pod (before
// or after an update).
func (c *Controller) enqueuePod(event string, p, old *api.Pod) {
	for _, k := range controllers.PodServiceMemberships(c.services.List(), p, old) {
		c.controller.Enqueue(k, controllers.CauseOf(event, "Pod", &p.ObjectMeta))
	}
}

// Controllers implements the cluster's Component.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.controller}
}

// Run runs the controller until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.controller.Run(ctx) }

// Reconcile makes the Endpoints of one Service match its pods.
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	ns, name := cache.SplitKey(key)
	svc, ok := c.services.Get(ns, name)
	if !ok || len(svc.Spec.Selector) == 0 {
		// No service, or one whose Endpoints its owner writes: nothing to
		// keep (the garbage of a deleted service goes with its name).
		if !ok {
			if _, had := c.endpoints.Get(ns, name); had {
				err := c.client.Endpoints().Delete(ctx, ns, name, nil)
				if err != nil && !api.IsNotFound(err) {
					return controllers.Result{}, err
				}
			}
		}
		return controllers.Result{}, nil
	}
	var pods []*api.Pod
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	for _, p := range c.pods.List() {
		if p.Namespace == ns && sel.Matches(labels.Set(p.Labels)) {
			pods = append(pods, p)
		}
	}
	subsets := Subsets(svc, pods)
	cur, exists := c.endpoints.Get(ns, name)
	if exists && reflect.DeepEqual(cur.Subsets, subsets) && reflect.DeepEqual(cur.Labels, svc.Labels) {
		return controllers.Result{}, nil
	}
	if !exists {
		e := &api.Endpoints{ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, Labels: svc.Labels}, Subsets: subsets}
		_, err := c.client.Endpoints().Create(ctx, e)
		if api.IsAlreadyExists(err) {
			return controllers.Result{Requeue: true}, nil
		}
		return controllers.Result{}, err
	}
	upd := cur.DeepCopy()
	upd.Labels, upd.Subsets = svc.Labels, subsets
	_, err := c.client.Endpoints().Update(ctx, upd)
	return controllers.Result{}, err
}

// Subsets computes the Endpoints subsets of svc from the pods its selector
// matched: pods with an IP and not being deleted, ready or not; one subset
// per distinct port set, addresses sorted by IP.
func Subsets(svc *api.Service, pods []*api.Pod) []api.EndpointSubset {
	type group struct {
		ports           []api.EndpointPort
		ready, notReady []api.EndpointAddress
	}
	var groups []*group
	find := func(ports []api.EndpointPort) *group {
		for _, g := range groups {
			if reflect.DeepEqual(g.ports, ports) {
				return g
			}
		}
		g := &group{ports: ports}
		groups = append(groups, g)
		return g
	}
	for _, p := range pods {
		if p.Status.PodIP == "" || p.DeletionTimestamp != nil || p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed {
			continue
		}
		var ports []api.EndpointPort
		for _, sp := range svc.Spec.Ports {
			port, ok := targetPort(p, sp)
			if !ok {
				continue
			}
			ports = append(ports, api.EndpointPort{Name: sp.Name, Port: port, Protocol: sp.Protocol, AppProtocol: sp.AppProtocol})
		}
		if len(ports) == 0 && len(svc.Spec.Ports) > 0 {
			continue
		}
		node := p.Spec.NodeName
		addr := api.EndpointAddress{IP: p.Status.PodIP, NodeName: &node,
			TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID}}
		g := find(ports)
		if api.IsPodReady(p) {
			g.ready = append(g.ready, addr)
		} else {
			g.notReady = append(g.notReady, addr)
		}
	}
	var out []api.EndpointSubset
	for _, g := range groups {
		byIP := func(a []api.EndpointAddress) {
			sort.Slice(a, func(i, j int) bool { return a[i].IP < a[j].IP })
		}
		byIP(g.ready)
		byIP(g.notReady)
		out = append(out, api.EndpointSubset{Addresses: g.ready, NotReadyAddresses: g.notReady, Ports: g.ports})
	}
	return out
}

// targetPort resolves a service port's targetPort in pod p: a number, or
// the name of one of its container ports.
func targetPort(p *api.Pod, sp api.ServicePort) (int32, bool) {
	if sp.TargetPort.Type == intstr.String && sp.TargetPort.StrVal != "" {
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.Name == sp.TargetPort.StrVal {
					return cp.ContainerPort, true
				}
			}
		}
		return 0, false
	}
	if sp.TargetPort.IntVal != 0 {
		return sp.TargetPort.IntVal, true
	}
	return sp.Port, true
}
