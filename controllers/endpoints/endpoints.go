package endpoints

import (
	"context"
	"reflect"
	"sort"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/controllers"
)

// ControllerName is the name --controllers uses.
const ControllerName = "endpoints"

// Config builds a Controller: the client, informers, clock and mode every
// controller of the controller manager is given.
type Config = controllers.BaseConfig

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
	c := &Controller{client: cfg.Client}
	ctrl, err := cfg.NewController(ControllerName, c)
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	// The services are the keys; the pods they select make their
	// Endpoints.
	c.services = controllers.InformerFor(ctrl, cfg.Client.Services())
	c.pods = controllers.InformerFor(ctrl, cfg.Client.Pods())
	c.endpoints = controllers.InformerFor(ctrl, cfg.Client.Endpoints())
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
			port, ok := controllers.FindPort(p, sp)
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
