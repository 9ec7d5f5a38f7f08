package endpoints

import (
	"context"
	"reflect"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	services   *cache.Informer[*corev1.Service]
	pods       *cache.Informer[*corev1.Pod]
	endpoints  *cache.Informer[*corev1.Endpoints]
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
	c.services.AddHandler(controllers.EnqueueObject[*corev1.Service](ctrl, "Service"))
	c.pods.AddHandler(cache.Handler[*corev1.Pod]{
		OnAdd:    func(p *corev1.Pod) { c.enqueuePod("ADDED", p, nil) },
		OnUpdate: func(old, p *corev1.Pod) { c.enqueuePod("MODIFIED", p, old) },
		OnDelete: func(p *corev1.Pod) { c.enqueuePod("DELETED", p, nil) },
	})
	// An Endpoints changed or deleted by someone else is put back.
	c.endpoints.AddHandler(cache.Handler[*corev1.Endpoints]{
		OnUpdate: func(_, e *corev1.Endpoints) { c.enqueueIfService("MODIFIED", e) },
		OnDelete: func(e *corev1.Endpoints) { c.enqueueIfService("DELETED", e) },
	})
	return c, nil
}

func (c *Controller) enqueueIfService(event string, e *corev1.Endpoints) {
	if _, ok := c.services.Get(e.Namespace, e.Name); ok {
		c.controller.Enqueue(cache.Key(&e.ObjectMeta), controllers.CauseOf(event, "Endpoints", &e.ObjectMeta))
	}
}

// enqueuePod queues the services whose selector matches the pod (before
// or after an update).
func (c *Controller) enqueuePod(event string, p, old *corev1.Pod) {
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
	var pods []*corev1.Pod
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
		e := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: svc.Labels}, Subsets: subsets}
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
func Subsets(svc *corev1.Service, pods []*corev1.Pod) []corev1.EndpointSubset {
	type group struct {
		ports           []corev1.EndpointPort
		ready, notReady []corev1.EndpointAddress
	}
	var groups []*group
	find := func(ports []corev1.EndpointPort) *group {
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
		if p.Status.PodIP == "" || p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		var ports []corev1.EndpointPort
		for _, sp := range svc.Spec.Ports {
			port, ok := controllers.FindPort(p, sp)
			if !ok {
				continue
			}
			ports = append(ports, corev1.EndpointPort{Name: sp.Name, Port: port, Protocol: sp.Protocol, AppProtocol: sp.AppProtocol})
		}
		if len(ports) == 0 && len(svc.Spec.Ports) > 0 {
			continue
		}
		node := p.Spec.NodeName
		addr := corev1.EndpointAddress{IP: p.Status.PodIP, NodeName: &node,
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID}}
		// A pod of the Service's subdomain (a StatefulSet's, an Indexed
		// Job's) is published under its hostname: the cluster DNS answers
		// HOSTNAME.SERVICE from it (endpointsliceutil.ShouldSetHostname).
		if p.Spec.Hostname != "" && p.Spec.Subdomain == svc.Name && p.Namespace == svc.Namespace {
			addr.Hostname = p.Spec.Hostname
		}
		g := find(ports)
		if api.IsPodReady(p) {
			g.ready = append(g.ready, addr)
		} else {
			g.notReady = append(g.notReady, addr)
		}
	}
	var out []corev1.EndpointSubset
	for _, g := range groups {
		byIP := func(a []corev1.EndpointAddress) {
			sort.Slice(a, func(i, j int) bool { return a[i].IP < a[j].IP })
		}
		byIP(g.ready)
		byIP(g.notReady)
		out = append(out, corev1.EndpointSubset{Addresses: g.ready, NotReadyAddresses: g.notReady, Ports: g.ports})
	}
	return out
}
