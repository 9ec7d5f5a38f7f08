package ingressnginx

import (
	"context"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/network/ingress"
)

// ControllerName is the name --controllers uses.
const ControllerName = "ingress-nginx"

// Component is the controller's user agent: the name of its Deployment
// and pods in kind's install.
const Component = "ingress-nginx-controller"

// StatusWriter is what the controller writes: an Ingress's status
// (the Ingresses' typed client is one).
type StatusWriter interface {
	UpdateStatus(ctx context.Context, ing *networkingv1.Ingress) (*networkingv1.Ingress, error)
}

// Config builds a Controller. Its client lists and watches Ingresses,
// IngressClasses and the controller's Service, and writes the Ingresses'
// status; without shared informers it lists with the client's identity,
// as the controller's own process would. Namespace limits it to the
// Ingresses of one namespace ("" for all: ingress-nginx's
// --watch-namespace).
type Config = controllers.NamespacedConfig

// Controller publishes the address of the Ingresses it serves.
type Controller struct {
	status    StatusWriter
	ingresses *cache.Informer[*networkingv1.Ingress]
	classes   *cache.Informer[*networkingv1.IngressClass]
	services  *cache.Informer[*corev1.Service]
	ctrl      *controllers.Controller
}

// New builds the controller and its informers (not yet synced).
func New(cfg Config) (*Controller, error) {
	c := &Controller{}
	ctrl, err := cfg.NewController(ControllerName, controllers.ReconcileFunc(c.Reconcile))
	if err != nil {
		return nil, err
	}
	c.ctrl, c.status = ctrl, cfg.Client.Ingresses()
	c.ingresses = controllers.FilteredInformerFor(ctrl, cfg.Client.Ingresses(), cfg.Namespace, client.ListOptions{})
	c.classes = controllers.InformerFor(ctrl, cfg.Client.IngressClasses())
	c.services = controllers.FilteredInformerFor(ctrl, cfg.Client.Services(), ingress.Namespace,
		client.ListOptions{FieldSelector: "metadata.name=" + ingress.ServiceName})

	enqueue := func(event string, ing *networkingv1.Ingress) {
		ctrl.Enqueue(cache.Key(&ing.ObjectMeta), controllers.CauseOf(event, "Ingress", &ing.ObjectMeta))
	}
	c.ingresses.AddHandler(cache.Handler[*networkingv1.Ingress]{
		OnAdd:    func(ing *networkingv1.Ingress) { enqueue("ADDED", ing) },
		OnUpdate: func(_, ing *networkingv1.Ingress) { enqueue("MODIFIED", ing) },
	})
	// A class or the Service changed: every Ingress may have another
	// answer.
	all := func(event, kind string, m *metav1.ObjectMeta) {
		for _, ing := range c.ingresses.List() {
			ctrl.Enqueue(cache.Key(&ing.ObjectMeta), controllers.CauseOf(event, kind, m))
		}
	}
	c.classes.AddHandler(cache.Handler[*networkingv1.IngressClass]{
		OnAdd:    func(ic *networkingv1.IngressClass) { all("ADDED", "IngressClass", &ic.ObjectMeta) },
		OnUpdate: func(_, ic *networkingv1.IngressClass) { all("MODIFIED", "IngressClass", &ic.ObjectMeta) },
		OnDelete: func(ic *networkingv1.IngressClass) { all("DELETED", "IngressClass", &ic.ObjectMeta) },
	})
	c.services.AddHandler(cache.Handler[*corev1.Service]{
		OnAdd:    func(s *corev1.Service) { all("ADDED", "Service", &s.ObjectMeta) },
		OnUpdate: func(_, s *corev1.Service) { all("MODIFIED", "Service", &s.ObjectMeta) },
		OnDelete: func(s *corev1.Service) { all("DELETED", "Service", &s.ObjectMeta) },
	})
	return c, nil
}

// Controllers returns the controller's one loop, for the stepper.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.ctrl}
}

// Run runs the controller until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.ctrl.Run(ctx) }

// Reconcile writes the address into the status of the Ingress key
// (namespace/name) when the controller serves it and the status lacks it.
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	ns, name, _ := strings.Cut(key, "/")
	ing, found := c.ingresses.Get(ns, name)
	if !found {
		return controllers.Result{}, nil
	}
	svc, _ := c.services.Get(ingress.Namespace, ingress.ServiceName)
	want, serve := DesiredStatus(ing, c.classes.List(), svc)
	if !serve || sameStatus(ing.Status.LoadBalancer.Ingress, want) {
		return controllers.Result{}, nil
	}
	updated := ing.DeepCopy()
	updated.Status.LoadBalancer.Ingress = want
	if _, err := c.status.UpdateStatus(ctx, updated); err != nil && !api.IsNotFound(err) {
		return controllers.Result{}, err // a conflict: the newer Ingress is queued already
	}
	return controllers.Result{}, nil
}

// DesiredStatus is the status.loadBalancer.ingress ing should have; serve
// is false for an Ingress of another controller, which it leaves alone.
// Without its Service (not installed, or deleted) the controller has no
// address to publish, and publishes none.
func DesiredStatus(ing *networkingv1.Ingress, classes []*networkingv1.IngressClass, svc *corev1.Service) (want []networkingv1.IngressLoadBalancerIngress, serve bool) {
	if !ingress.Handles(ing, classes) {
		return nil, false
	}
	if svc == nil || svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return nil, true
	}
	return []networkingv1.IngressLoadBalancerIngress{{IP: svc.Spec.ClusterIP}}, true
}

// sameStatus compares two address lists; empty and missing are the same.
func sameStatus(a, b []networkingv1.IngressLoadBalancerIngress) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}
