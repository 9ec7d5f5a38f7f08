package endpointslice

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName is the name --controllers uses.
const ControllerName = "endpointslice"

// ManagedBy is the managed-by label's value on the controller's slices.
const ManagedBy = "endpointslice-controller.k8s.io"

// MaxEndpointsPerSlice is --max-endpoints-per-slice's default.
const MaxEndpointsPerSlice = 100

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
	// MaxEndpointsPerSlice is 100 unless set.
	MaxEndpointsPerSlice int
}

// Controller keeps each Service's EndpointSlices.
type Controller struct {
	client     *client.Client
	max        int
	services   *cache.Informer[*corev1.Service]
	pods       *cache.Informer[*corev1.Pod]
	slices     *cache.Informer[*discoveryv1.EndpointSlice]
	controller *controllers.Controller
}

// New checks cfg and builds the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("endpointslice: Client and Clock are required")
	}
	if cfg.MaxEndpointsPerSlice <= 0 {
		cfg.MaxEndpointsPerSlice = MaxEndpointsPerSlice
	}
	c := &Controller{client: cfg.Client, max: cfg.MaxEndpointsPerSlice}
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: c,
		Informers: cfg.Informers, Clock: cfg.Clock, Mode: cfg.Mode, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	// The services are the keys; the pods they select make their slices.
	c.services = controllers.InformerFor(ctrl, cfg.Client.Services())
	c.pods = controllers.InformerFor(ctrl, cfg.Client.Pods())
	// Only the slices this controller manages (another may manage some).
	c.slices = controllers.FilteredInformerFor(ctrl, cfg.Client.EndpointSlices(), "",
		client.ListOptions{LabelSelector: discoveryv1.LabelManagedBy + "=" + ManagedBy})
	c.services.AddHandler(controllers.EnqueueObject[*corev1.Service](ctrl, "Service"))
	c.pods.AddHandler(cache.Handler[*corev1.Pod]{
		OnAdd:    func(p *corev1.Pod) { c.enqueuePod("ADDED", p, nil) },
		OnUpdate: func(old, p *corev1.Pod) { c.enqueuePod("MODIFIED", p, old) },
		OnDelete: func(p *corev1.Pod) { c.enqueuePod("DELETED", p, nil) },
	})
	// A slice changed or deleted by someone else is put back.
	c.slices.AddHandler(cache.Handler[*discoveryv1.EndpointSlice]{
		OnUpdate: func(_, s *discoveryv1.EndpointSlice) { c.enqueueSlice("MODIFIED", s) },
		OnDelete: func(s *discoveryv1.EndpointSlice) { c.enqueueSlice("DELETED", s) },
	})
	return c, nil
}

func (c *Controller) enqueueSlice(event string, s *discoveryv1.EndpointSlice) {
	if svc := s.Labels[discoveryv1.LabelServiceName]; svc != "" {
		c.controller.Enqueue(s.Namespace+"/"+svc, controllers.CauseOf(event, "EndpointSlice", &s.ObjectMeta))
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

// Reconcile makes the slices of one Service match its pods: the desired
// slices fill the existing ones in name order, new ones are created with
// a generated name, the rest deleted.
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	ns, name := cache.SplitKey(key)
	svc, ok := c.services.Get(ns, name)
	if ok && (len(svc.Spec.Selector) == 0 || svc.Spec.Type == corev1.ServiceTypeExternalName) {
		// A Service without a selector gets its slices from whoever
		// writes them (the API server's kubernetes Service, a user's
		// selectorless Service); an ExternalName one has none.
		return controllers.Result{}, nil
	}
	var existing []*discoveryv1.EndpointSlice
	for _, s := range c.slices.List() {
		if s.Namespace == ns && s.Labels[discoveryv1.LabelServiceName] == name {
			existing = append(existing, s)
		}
	}
	sort.Slice(existing, func(i, j int) bool { return existing[i].Name < existing[j].Name })
	var desired []Slice
	if ok {
		var pods []*corev1.Pod
		sel := labels.SelectorFromSet(svc.Spec.Selector)
		for _, p := range c.pods.List() {
			if p.Namespace == ns && sel.Matches(labels.Set(p.Labels)) {
				pods = append(pods, p)
			}
		}
		desired = Desired(svc, pods, c.max)
	}
	// Existing slices of each address type are reused for that type.
	for _, d := range desired {
		i := slices.IndexFunc(existing, func(s *discoveryv1.EndpointSlice) bool { return s.AddressType == d.AddressType })
		if i < 0 {
			s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-", Namespace: ns}}
			fill(s, svc, d)
			if _, err := c.client.EndpointSlices().Create(ctx, s); err != nil {
				return controllers.Result{}, err
			}
			continue
		}
		cur := existing[i]
		existing = slices.Delete(existing, i, i+1)
		upd := cur.DeepCopy()
		fill(upd, svc, d)
		if equality.Semantic.DeepEqual(upd, cur) {
			continue
		}
		if _, err := c.client.EndpointSlices().Update(ctx, upd); err != nil {
			return controllers.Result{}, err
		}
	}
	for _, s := range existing {
		if err := c.client.EndpointSlices().Delete(ctx, ns, s.Name, nil); err != nil && !api.IsNotFound(err) {
			return controllers.Result{}, err
		}
	}
	return controllers.Result{}, nil
}

// fill writes the desired content, labels and owner into s.
func fill(s *discoveryv1.EndpointSlice, svc *corev1.Service, d Slice) {
	lbls := map[string]string{}
	for k, v := range svc.Labels {
		lbls[k] = v
	}
	lbls[discoveryv1.LabelServiceName] = svc.Name
	lbls[discoveryv1.LabelManagedBy] = ManagedBy
	s.Labels = lbls
	_ = controllers.SetControllerReference(&svc.ObjectMeta, schema.GroupVersionKind{Version: "v1", Kind: "Service"}, &s.ObjectMeta)
	s.AddressType, s.Endpoints, s.Ports = d.AddressType, d.Endpoints, d.Ports
}

// Slice is one desired EndpointSlice's content.
type Slice struct {
	AddressType discoveryv1.AddressType
	Ports       []discoveryv1.EndpointPort
	Endpoints   []discoveryv1.Endpoint
}

// Desired computes the slices of svc from the pods its selector matched:
// pods with an IP that have not finished, terminating ones included with
// their conditions saying so; grouped by address family and port set, in
// order of first appearance; endpoints sorted by address; at most max a
// slice. Without any endpoint it is one empty slice.
func Desired(svc *corev1.Service, pods []*corev1.Pod, max int) []Slice {
	type group struct {
		key string
		Slice
	}
	var groups []*group
	sorted := slices.Clone(pods)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Status.PodIP < sorted[j].Status.PodIP })
	for _, p := range sorted {
		if p.Status.PodIP == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		var ports []discoveryv1.EndpointPort
		for _, sp := range svc.Spec.Ports {
			port, ok := controllers.FindPort(p, sp)
			if !ok {
				continue
			}
			name, proto := sp.Name, sp.Protocol
			if proto == "" {
				proto = corev1.ProtocolTCP
			}
			ports = append(ports, discoveryv1.EndpointPort{Name: &name, Port: &port, Protocol: &proto, AppProtocol: sp.AppProtocol})
		}
		if len(ports) == 0 && len(svc.Spec.Ports) > 0 {
			continue
		}
		addressType := discoveryv1.AddressTypeIPv4
		if strings.Contains(p.Status.PodIP, ":") {
			addressType = discoveryv1.AddressTypeIPv6
		}
		key := string(addressType) + portsKey(ports)
		i := slices.IndexFunc(groups, func(g *group) bool { return g.key == key })
		if i < 0 {
			groups = append(groups, &group{key: key, Slice: Slice{AddressType: addressType, Ports: ports}})
			i = len(groups) - 1
		}
		groups[i].Endpoints = append(groups[i].Endpoints, endpoint(svc, p))
	}
	var out []Slice
	for _, g := range groups {
		for start := 0; start < len(g.Endpoints); start += max {
			end := min(start+max, len(g.Endpoints))
			out = append(out, Slice{AddressType: g.AddressType, Ports: g.Ports, Endpoints: g.Endpoints[start:end]})
		}
	}
	if len(out) == 0 {
		// A Service that selects nothing (yet) still has one slice, empty,
		// of its primary family: clients watching its slices see that it
		// has no endpoints rather than nothing at all (the reconciler's
		// placeholder slice).
		addressType := discoveryv1.AddressTypeIPv4
		if fams := svc.Spec.IPFamilies; len(fams) > 0 && fams[0] == corev1.IPv6Protocol {
			addressType = discoveryv1.AddressTypeIPv6
		}
		out = []Slice{{AddressType: addressType, Ports: []discoveryv1.EndpointPort{}, Endpoints: []discoveryv1.Endpoint{}}}
	}
	return out
}

func portsKey(ports []discoveryv1.EndpointPort) string {
	var b strings.Builder
	for _, p := range ports {
		b.WriteString("|" + *p.Name + ":" + string(*p.Protocol) + ":" + strconv.Itoa(int(*p.Port)))
	}
	return b.String()
}

// endpoint is podToEndpoint: ready is ready and not terminating, serving
// is ready whether terminating or not; a Service that publishes
// not-ready addresses has every endpoint ready.
func endpoint(svc *corev1.Service, p *corev1.Pod) discoveryv1.Endpoint {
	ready := api.IsPodReady(p)
	terminating := p.DeletionTimestamp != nil
	readyNow := svc.Spec.PublishNotReadyAddresses || ready && !terminating
	node := p.Spec.NodeName
	ep := discoveryv1.Endpoint{
		Addresses:  []string{p.Status.PodIP},
		Conditions: discoveryv1.EndpointConditions{Ready: &readyNow, Serving: &ready, Terminating: &terminating},
		TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID},
	}
	if node != "" {
		ep.NodeName = &node
	}
	if p.Spec.Hostname != "" && p.Spec.Subdomain == svc.Name {
		h := p.Spec.Hostname
		ep.Hostname = &h
	}
	return ep
}
