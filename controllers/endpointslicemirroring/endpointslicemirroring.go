package endpointslicemirroring

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
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
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/client/record"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName is the name --controllers uses.
const ControllerName = "endpointslicemirroring"

// Component signs the controller's events.
const Component = "endpoint-slice-mirroring-controller"

// ManagedBy is the managed-by label's value on the mirrored slices.
const ManagedBy = "endpointslicemirroring-controller.k8s.io"

// MaxEndpointsPerSubset is --mirroring-max-endpoints-per-subset's default:
// the addresses of one subset mirrored at most.
const MaxEndpointsPerSubset = 1000

// leaderAnnotation marks an Endpoints object used as a leader-election
// lock (client-go's resourcelock), which is not a list of endpoints.
const leaderAnnotation = "control-plane.alpha.kubernetes.io/leader"

// Config builds a Controller.
type Config struct {
	Client *client.Client
	// Informers shares informers with the other controllers of the
	// process (nil: private ones).
	Informers *cache.Factory
	Clock     clock.Clock
	Mode      runmode.Mode
	Logger    *slog.Logger
	// MaxEndpointsPerSubset is MaxEndpointsPerSubset unless set.
	MaxEndpointsPerSubset int
}

// Controller mirrors the Endpoints of selectorless Services into
// EndpointSlices.
type Controller struct {
	client     *client.Client
	max        int
	recorder   *record.Recorder
	services   *cache.Informer[*corev1.Service]
	endpoints  *cache.Informer[*corev1.Endpoints]
	slices     *cache.Informer[*discoveryv1.EndpointSlice]
	controller *controllers.Controller
}

// New checks cfg and builds the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("endpointslicemirroring: Client and Clock are required")
	}
	if cfg.MaxEndpointsPerSubset <= 0 {
		cfg.MaxEndpointsPerSubset = MaxEndpointsPerSubset
	}
	c := &Controller{client: cfg.Client, max: cfg.MaxEndpointsPerSubset,
		recorder: record.New(record.Config{Client: cfg.Client, Component: Component, Clock: cfg.Clock, Mode: cfg.Mode})}
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: c,
		Informers: cfg.Informers, Clock: cfg.Clock, Mode: cfg.Mode, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	c.controller = ctrl
	// The key is the Service's and its Endpoints' namespace/name: either
	// changing may start or stop the mirroring.
	c.services = controllers.InformerFor(ctrl, cfg.Client.Services())
	c.endpoints = controllers.InformerFor(ctrl, cfg.Client.Endpoints())
	c.slices = controllers.FilteredInformerFor(ctrl, cfg.Client.EndpointSlices(), "",
		client.ListOptions{LabelSelector: discoveryv1.LabelManagedBy + "=" + ManagedBy})
	// A Service matters when it has no selector, or when it gains or
	// loses one (onServiceAdd, onServiceUpdate, onServiceDelete).
	c.services.AddHandler(cache.Handler[*corev1.Service]{
		OnAdd: func(svc *corev1.Service) {
			if svc.Spec.Selector == nil {
				c.enqueue("ADDED", "Service", &svc.ObjectMeta)
			}
		},
		OnUpdate: func(old, svc *corev1.Service) {
			if (old.Spec.Selector == nil) != (svc.Spec.Selector == nil) {
				c.enqueue("MODIFIED", "Service", &svc.ObjectMeta)
			}
		},
		OnDelete: func(svc *corev1.Service) {
			if svc.Spec.Selector == nil {
				c.enqueue("DELETED", "Service", &svc.ObjectMeta)
			}
		},
	})
	c.endpoints.AddHandler(cache.Handler[*corev1.Endpoints]{
		OnAdd:    func(ep *corev1.Endpoints) { c.enqueueEndpoints("ADDED", ep, nil) },
		OnUpdate: func(old, ep *corev1.Endpoints) { c.enqueueEndpoints("MODIFIED", ep, old) },
		OnDelete: func(ep *corev1.Endpoints) { c.enqueueEndpoints("DELETED", ep, nil) },
	})
	// A mirrored slice changed or deleted by someone else is put back.
	c.slices.AddHandler(cache.Handler[*discoveryv1.EndpointSlice]{
		OnUpdate: func(_, s *discoveryv1.EndpointSlice) { c.enqueueSlice("MODIFIED", s) },
		OnDelete: func(s *discoveryv1.EndpointSlice) { c.enqueueSlice("DELETED", s) },
	})
	return c, nil
}

func (c *Controller) enqueue(event, kind string, m *metav1.ObjectMeta) {
	c.controller.Enqueue(m.Namespace+"/"+m.Name, controllers.CauseOf(event, kind, m))
}

// enqueueEndpoints queues an Endpoints object that is (or was) to be
// mirrored. Unlike the real controller it also passes over the Endpoints
// of a Service that has a selector — the endpoints controller's, which
// change with every pod —, where the real one queues them only to find
// nothing to do: the Service's own events queue the key when its selector
// comes or goes, so the outcome is the same and the step trace stays
// readable.
func (c *Controller) enqueueEndpoints(event string, ep, old *corev1.Endpoints) {
	if !shouldMirror(ep) && (old == nil || !shouldMirror(old)) {
		return
	}
	if svc, ok := c.services.Get(ep.Namespace, ep.Name); ok && svc.Spec.Selector != nil {
		return
	}
	c.enqueue(event, "Endpoints", &ep.ObjectMeta)
}

func (c *Controller) enqueueSlice(event string, s *discoveryv1.EndpointSlice) {
	if svc := s.Labels[discoveryv1.LabelServiceName]; svc != "" {
		c.controller.Enqueue(s.Namespace+"/"+svc, controllers.CauseOf(event, "EndpointSlice", &s.ObjectMeta))
	}
}

// Controllers implements the cluster's Component.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.controller}
}

// Run runs the controller until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.controller.Run(ctx) }

// Reconcile makes the mirrored slices of one Endpoints object match it:
// one slice per address family and port set, an existing slice of the
// same kind refilled, new ones created, the rest deleted.
func (c *Controller) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	ns, name := cache.SplitKey(key)
	var existing []*discoveryv1.EndpointSlice
	for _, s := range c.slices.List() {
		if s.Namespace == ns && s.Labels[discoveryv1.LabelServiceName] == name {
			existing = append(existing, s)
		}
	}
	sort.Slice(existing, func(i, j int) bool { return existing[i].Name < existing[j].Name })
	ep, ok := c.endpoints.Get(ns, name)
	if ok && !shouldMirror(ep) {
		ok = false
	}
	if svc, found := c.services.Get(ns, name); !found || svc.Spec.Selector != nil {
		// No Service, or one whose slices the endpointslice controller
		// makes from its pods.
		ok = false
	}
	var desired []Slice
	if ok {
		var invalid, skipped int
		desired, invalid, skipped = Desired(ep, c.max)
		if invalid > 0 {
			c.recorder.Eventf(ctx, record.Ref(ep, endpointsGVK), corev1.EventTypeWarning, "InvalidIPAddress",
				"Skipped %d invalid IP addresses when mirroring to EndpointSlices", invalid)
		}
		if skipped > invalid {
			c.recorder.Eventf(ctx, record.Ref(ep, endpointsGVK), corev1.EventTypeWarning, "TooManyAddressesToMirror",
				"A max of %d addresses can be mirrored to EndpointSlices per Endpoints subset. %d addresses were skipped", c.max, skipped)
		}
	}
	for _, d := range desired {
		i := slices.IndexFunc(existing, func(s *discoveryv1.EndpointSlice) bool {
			return s.AddressType == d.AddressType && portsKey(s.Ports) == portsKey(d.Ports)
		})
		if i < 0 {
			// A slice of the same family whose ports changed is reused
			// rather than deleted and created (recycleSlices).
			i = slices.IndexFunc(existing, func(s *discoveryv1.EndpointSlice) bool { return s.AddressType == d.AddressType })
		}
		if i < 0 {
			s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-", Namespace: ns}}
			fill(s, ep, d)
			if _, err := c.client.EndpointSlices().Create(ctx, s); err != nil {
				return controllers.Result{}, err
			}
			continue
		}
		cur := existing[i]
		existing = slices.Delete(existing, i, i+1)
		upd := cur.DeepCopy()
		fill(upd, ep, d)
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

var endpointsGVK = schema.GroupVersionKind{Version: "v1", Kind: "Endpoints"}

// shouldMirror is the real controller's check of the Endpoints itself.
func shouldMirror(ep *corev1.Endpoints) bool {
	if ep.Labels[discoveryv1.LabelSkipMirror] == "true" {
		return false
	}
	_, leader := ep.Annotations[leaderAnnotation]
	return !leader
}

// fill writes the desired content, the Endpoints' labels and annotations
// and the owner reference into s.
func fill(s *discoveryv1.EndpointSlice, ep *corev1.Endpoints, d Slice) {
	lbls := map[string]string{}
	for k, v := range ep.Labels {
		lbls[k] = v
	}
	lbls[discoveryv1.LabelServiceName] = ep.Name
	lbls[discoveryv1.LabelManagedBy] = ManagedBy
	s.Labels = lbls
	annotations := map[string]string{}
	for k, v := range ep.Annotations {
		if k == corev1.EndpointsLastChangeTriggerTime || k == corev1.LastAppliedConfigAnnotation {
			continue
		}
		annotations[k] = v
	}
	s.Annotations = annotations
	if len(annotations) == 0 {
		s.Annotations = nil
	}
	_ = controllers.SetControllerReference(&ep.ObjectMeta, endpointsGVK, &s.ObjectMeta)
	s.AddressType, s.Endpoints, s.Ports = d.AddressType, d.Endpoints, d.Ports
}

// Slice is one desired EndpointSlice's content.
type Slice struct {
	AddressType discoveryv1.AddressType
	Ports       []discoveryv1.EndpointPort
	Endpoints   []discoveryv1.Endpoint
}

// Desired computes the slices of ep: its subsets' addresses grouped by
// address family and port set (subsets with the same ports fall in one
// group, as RepackSubsets makes them), in order of first appearance, each
// sorted by address; at most max addresses of a subset. It also says how
// many addresses were not IPs and how many were left out in all (those
// and the ones past max), as the real reconciler counts them.
func Desired(ep *corev1.Endpoints, max int) (out []Slice, invalid, skipped int) {
	type group struct {
		key string
		Slice
		seen map[string]bool
	}
	var groups []*group
	add := func(ports []discoveryv1.EndpointPort, a corev1.EndpointAddress, ready bool) bool {
		ip, err := netip.ParseAddr(a.IP)
		if err != nil {
			return false
		}
		addressType := discoveryv1.AddressTypeIPv4
		if !ip.Unmap().Is4() {
			addressType = discoveryv1.AddressTypeIPv6
		}
		key := string(addressType) + portsKey(ports)
		i := slices.IndexFunc(groups, func(g *group) bool { return g.key == key })
		if i < 0 {
			groups = append(groups, &group{key: key, Slice: Slice{AddressType: addressType, Ports: ports, Endpoints: []discoveryv1.Endpoint{}}, seen: map[string]bool{}})
			i = len(groups) - 1
		}
		g := groups[i]
		if g.seen[a.IP] {
			return true // the same address twice in one group is one endpoint
		}
		g.seen[a.IP] = true
		g.Endpoints = append(g.Endpoints, endpoint(a, ready))
		return true
	}
	for _, ss := range ep.Subsets {
		ports := endpointPorts(ss.Ports)
		added, total := 0, len(ss.Addresses)+len(ss.NotReadyAddresses)
		for k, addrs := range [][]corev1.EndpointAddress{ss.Addresses, ss.NotReadyAddresses} {
			for _, a := range addrs {
				if added >= max {
					break
				}
				if add(ports, a, k == 0) {
					added++
				} else {
					invalid++
				}
			}
		}
		skipped += total - added
	}
	for _, g := range groups {
		sort.Slice(g.Endpoints, func(i, j int) bool { return g.Endpoints[i].Addresses[0] < g.Endpoints[j].Addresses[0] })
		out = append(out, g.Slice)
	}
	return out, invalid, skipped
}

// endpointPorts converts an Endpoints subset's ports, sorted so that the
// same set in another order is the same group.
func endpointPorts(ports []corev1.EndpointPort) []discoveryv1.EndpointPort {
	out := make([]discoveryv1.EndpointPort, 0, len(ports))
	for _, p := range ports {
		name, port, proto := p.Name, p.Port, p.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		out = append(out, discoveryv1.EndpointPort{Name: &name, Port: &port, Protocol: &proto, AppProtocol: p.AppProtocol})
	}
	sort.Slice(out, func(i, j int) bool {
		return *out[i].Name < *out[j].Name || *out[i].Name == *out[j].Name && *out[i].Port < *out[j].Port
	})
	return out
}

func portsKey(ports []discoveryv1.EndpointPort) string {
	var b strings.Builder
	for _, p := range endpointPortsSorted(ports) {
		b.WriteString("|" + deref(p.Name) + ":" + string(derefProto(p.Protocol)) + ":" + strconv.Itoa(int(derefPort(p.Port))))
	}
	return b.String()
}

func endpointPortsSorted(ports []discoveryv1.EndpointPort) []discoveryv1.EndpointPort {
	out := slices.Clone(ports)
	sort.Slice(out, func(i, j int) bool {
		a, b := deref(out[i].Name), deref(out[j].Name)
		return a < b || a == b && derefPort(out[i].Port) < derefPort(out[j].Port)
	})
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefPort(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

func derefProto(p *corev1.Protocol) corev1.Protocol {
	if p == nil {
		return ""
	}
	return *p
}

// endpoint is addressToEndpoint: the address, whether it is ready, and
// what the Endpoints said of it (node, hostname, target).
func endpoint(a corev1.EndpointAddress, ready bool) discoveryv1.Endpoint {
	e := discoveryv1.Endpoint{Addresses: []string{a.IP}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}, TargetRef: a.TargetRef}
	if a.NodeName != nil {
		node := *a.NodeName
		e.NodeName = &node
	}
	if a.Hostname != "" {
		h := a.Hostname
		e.Hostname = &h
	}
	return e
}
