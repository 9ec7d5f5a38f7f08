package kubernetesservice

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName names the loop in traces and logs.
const ControllerName = "kubernetesservice"

const (
	// ServiceName is the Service's name, and its Endpoints' and
	// EndpointSlice's.
	ServiceName = "kubernetes"
	// PortName names the Service's one port and the endpoint's.
	PortName = "https"
	// ServicePort is the port the Service listens on, 443 in every
	// cluster (kube-apiserver's ServicePort).
	ServicePort int32 = 443
	// DefaultSecurePort is kube-apiserver's --secure-port default.
	DefaultSecurePort int32 = 6443
)

// key is the one key of the queue: everything the loop keeps is named
// default/kubernetes.
const key = metav1.NamespaceDefault + "/" + ServiceName

// Config builds a Controller.
type Config struct {
	Client *client.Client
	Clock  clock.Clock
	Mode   runmode.Mode
	Logger *slog.Logger
	// ServiceIP is the Service's cluster IP: the first address of the
	// service range (ServiceIPOf).
	ServiceIP string
	// PublicIP is the API server's advertised address
	// (--advertise-address): the address of the Service's endpoint, where
	// a pod's connection to kubernetes.default.svc arrives. Not a loopback
	// address: Endpoints may not name one.
	PublicIP string
	// SecurePort is the API server's port (--secure-port): the Service's
	// targetPort and the endpoint's port (DefaultSecurePort).
	SecurePort int32
}

// ServiceIPOf is the first address of a service range: 10.96.0.1 of
// 10.96.0.0/12.
func ServiceIPOf(serviceRange string) (string, error) {
	p, err := netip.ParsePrefix(serviceRange)
	if err != nil {
		return "", fmt.Errorf("service range %q: %w", serviceRange, err)
	}
	return p.Masked().Addr().Next().String(), nil
}

// Controller keeps the kubernetes Service, Endpoints and EndpointSlice.
type Controller struct {
	cfg        Config
	ctrl       *controllers.Controller
	namespaces *cache.Informer[*corev1.Namespace]
	services   *cache.Informer[*corev1.Service]
	endpoints  *cache.Informer[*corev1.Endpoints]
	slices     *cache.Informer[*discoveryv1.EndpointSlice]
	// started is set once a reconcile succeeded: the later ones leave the
	// Service's ports and type and the Endpoints' ports as they find them.
	// One worker reconciles the one key, so it needs no lock.
	started bool
}

// New checks cfg and returns the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, fmt.Errorf("kubernetesservice: Client and Clock are required")
	}
	if _, err := netip.ParseAddr(cfg.ServiceIP); err != nil {
		return nil, fmt.Errorf("kubernetesservice: ServiceIP %q: %w", cfg.ServiceIP, err)
	}
	ip, err := netip.ParseAddr(cfg.PublicIP)
	if err != nil {
		return nil, fmt.Errorf("kubernetesservice: PublicIP %q: %w", cfg.PublicIP, err)
	}
	if ip.IsLoopback() || ip.IsUnspecified() {
		return nil, fmt.Errorf("kubernetesservice: PublicIP %s cannot be an endpoint's address", cfg.PublicIP)
	}
	if cfg.SecurePort == 0 {
		cfg.SecurePort = DefaultSecurePort
	}
	c := &Controller{cfg: cfg}
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: c, Clock: cfg.Clock, Mode: cfg.Mode, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	c.ctrl = ctrl
	named := func(name string) client.ListOptions {
		return client.ListOptions{FieldSelector: "metadata.name=" + name}
	}
	c.namespaces = controllers.FilteredInformerFor(ctrl, cfg.Client.Namespaces(), "", named(metav1.NamespaceDefault))
	c.services = controllers.FilteredInformerFor(ctrl, cfg.Client.Services(), metav1.NamespaceDefault, named(ServiceName))
	c.endpoints = controllers.FilteredInformerFor(ctrl, cfg.Client.Endpoints(), metav1.NamespaceDefault, named(ServiceName))
	c.slices = controllers.FilteredInformerFor(ctrl, cfg.Client.EndpointSlices(), metav1.NamespaceDefault, named(ServiceName))

	// The default namespace seen (the server has started) is the first
	// reconcile; then a delete, or a change that leaves an object wrong.
	// The loop's own creates and right updates queue nothing.
	c.namespaces.AddHandler(cache.Handler[*corev1.Namespace]{OnAdd: func(ns *corev1.Namespace) {
		ctrl.Enqueue(key, controllers.CauseOf("ADDED", "Namespace", &ns.ObjectMeta))
	}})
	c.services.AddHandler(cache.Handler[*corev1.Service]{OnDelete: func(s *corev1.Service) {
		ctrl.Enqueue(key, controllers.CauseOf("DELETED", "Service", &s.ObjectMeta))
	}})
	c.endpoints.AddHandler(cache.Handler[*corev1.Endpoints]{
		OnUpdate: func(_, e *corev1.Endpoints) {
			if !c.endpointsRight(e) {
				ctrl.Enqueue(key, controllers.CauseOf("MODIFIED", "Endpoints", &e.ObjectMeta))
			}
		},
		OnDelete: func(e *corev1.Endpoints) {
			ctrl.Enqueue(key, controllers.CauseOf("DELETED", "Endpoints", &e.ObjectMeta))
		},
	})
	c.slices.AddHandler(cache.Handler[*discoveryv1.EndpointSlice]{
		OnUpdate: func(_, s *discoveryv1.EndpointSlice) {
			if e, ok := c.endpoints.Get(metav1.NamespaceDefault, ServiceName); !ok || !sliceRight(s, SliceFromEndpoints(e)) {
				ctrl.Enqueue(key, controllers.CauseOf("MODIFIED", "EndpointSlice", &s.ObjectMeta))
			}
		},
		OnDelete: func(s *discoveryv1.EndpointSlice) {
			ctrl.Enqueue(key, controllers.CauseOf("DELETED", "EndpointSlice", &s.ObjectMeta))
		},
	})
	return c, nil
}

// Controllers returns the loop, for the stepper.
func (c *Controller) Controllers() []*controllers.Controller {
	return []*controllers.Controller{c.ctrl}
}

// Run runs the loop until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) { c.ctrl.Run(ctx) }

// Reconcile implements controllers.Reconciler: UpdateKubernetesService,
// the Service first, then the Endpoints and their EndpointSlice.
func (c *Controller) Reconcile(ctx context.Context, _ string) (controllers.Result, error) {
	first := !c.started
	if err := c.ensureService(ctx, first); err != nil {
		return controllers.Result{}, err
	}
	if err := c.ensureEndpoints(ctx, first); err != nil {
		return controllers.Result{}, err
	}
	c.started = true
	return controllers.Result{}, nil
}

// ServicePorts are the Service's ports (createPortAndServiceSpec).
func (c *Controller) ServicePorts() []corev1.ServicePort {
	return []corev1.ServicePort{{Name: PortName, Protocol: corev1.ProtocolTCP, Port: ServicePort,
		TargetPort: intstr.FromInt32(c.cfg.SecurePort)}}
}

// EndpointPorts are the endpoint's ports (createEndpointPortSpec).
func (c *Controller) EndpointPorts() []corev1.EndpointPort {
	return []corev1.EndpointPort{{Name: PortName, Protocol: corev1.ProtocolTCP, Port: c.cfg.SecurePort}}
}

// DesiredService is the Service as the loop creates it.
func (c *Controller) DesiredService() *corev1.Service {
	single := corev1.IPFamilyPolicySingleStack
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: ServiceName, Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{"provider": "kubernetes", "component": "apiserver"}},
		Spec: corev1.ServiceSpec{
			Ports: c.ServicePorts(),
			// Kept by this loop, not by a selector.
			ClusterIP: c.cfg.ServiceIP, IPFamilyPolicy: &single,
			SessionAffinity: corev1.ServiceAffinityNone, Type: corev1.ServiceTypeClusterIP,
		},
	}
}

// ensureService creates the Service when it is missing and, on the first
// reconcile, puts its ports and type right (CreateOrUpdateMasterServiceIfNeeded).
func (c *Controller) ensureService(ctx context.Context, first bool) error {
	svcs := c.cfg.Client.Services()
	svc, err := svcs.Get(ctx, metav1.NamespaceDefault, ServiceName)
	switch {
	case api.IsNotFound(err):
		_, err = svcs.Create(ctx, c.DesiredService())
		if api.IsAlreadyExists(err) {
			return c.ensureService(ctx, first)
		}
		return err
	case err != nil:
		return err
	case !first || ServiceFormatCorrect(svc, c.ServicePorts(), corev1.ServiceTypeClusterIP):
		return nil
	}
	upd := svc.DeepCopy()
	upd.Spec.Ports, upd.Spec.Type = c.ServicePorts(), corev1.ServiceTypeClusterIP
	c.logger().Info("resetting the kubernetes Service's ports and type", "ports", upd.Spec.Ports)
	_, err = svcs.Update(ctx, upd)
	return err
}

// ServiceFormatCorrect is checkServiceFormat: the type and the ports are
// exactly these.
func ServiceFormatCorrect(s *corev1.Service, ports []corev1.ServicePort, t corev1.ServiceType) bool {
	if s.Spec.Type != t || len(s.Spec.Ports) != len(ports) {
		return false
	}
	for i := range ports {
		if ports[i] != s.Spec.Ports[i] {
			return false
		}
	}
	return true
}

// endpointsRight reports whether e is what a reconcile after the first
// would leave: labelled skip-mirror, one subset, the advertised address.
func (c *Controller) endpointsRight(e *corev1.Endpoints) bool {
	format, ips, _ := CheckEndpoints(e, []string{c.cfg.PublicIP}, nil, false)
	return e.Labels[discoveryv1.LabelSkipMirror] == "true" && format && ips
}

// ensureEndpoints is doReconcile of the lease endpoint reconciler, for
// one API server: the Endpoints list its address (and, on the first
// reconcile, its ports); then the EndpointSlice follows them.
func (c *Controller) ensureEndpoints(ctx context.Context, first bool) error {
	eps := c.cfg.Client.Endpoints()
	e, err := eps.Get(ctx, metav1.NamespaceDefault, ServiceName)
	create := false
	switch {
	case api.IsNotFound(err):
		create = true
		e = &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: ServiceName, Namespace: metav1.NamespaceDefault}}
	case err != nil:
		return err
	}
	// No mirroring controller is to copy these Endpoints into a slice:
	// this loop writes the slice itself.
	skipMirrorChanged := e.Labels[discoveryv1.LabelSkipMirror] != "true"
	if skipMirrorChanged {
		if e.Labels == nil {
			e.Labels = map[string]string{}
		}
		e.Labels[discoveryv1.LabelSkipMirror] = "true"
	}
	ports := c.EndpointPorts()
	format, ipsOK, portsOK := CheckEndpoints(e, []string{c.cfg.PublicIP}, ports, first)
	if !skipMirrorChanged && format && ipsOK && portsOK {
		return c.ensureSlice(ctx, e)
	}
	if !format {
		// Something is egregiously wrong: make the record again.
		e.Subsets = []corev1.EndpointSubset{{Ports: ports}}
	}
	if !format || !ipsOK {
		e.Subsets[0].Addresses = []corev1.EndpointAddress{{IP: c.cfg.PublicIP}}
	}
	if !portsOK {
		e.Subsets[0].Ports = ports
	}
	if create {
		e, err = eps.Create(ctx, e)
		if api.IsAlreadyExists(err) {
			return nil // another writer made it: its events queue a look
		}
	} else {
		e, err = eps.Update(ctx, e)
	}
	if err != nil {
		return err
	}
	return c.ensureSlice(ctx, e)
}

// CheckEndpoints is checkEndpointSubsetFormatWithLease: format is one
// subset; ips that its addresses are exactly expectedIPs; ports, checked
// only when reconcilePorts, that its ports are exactly these.
func CheckEndpoints(e *corev1.Endpoints, expectedIPs []string, ports []corev1.EndpointPort, reconcilePorts bool) (format, ips, portsOK bool) {
	if len(e.Subsets) != 1 {
		return false, false, false
	}
	sub := &e.Subsets[0]
	portsOK = true
	if reconcilePorts {
		portsOK = len(sub.Ports) == len(ports)
		for i := 0; portsOK && i < len(ports); i++ {
			portsOK = ports[i] == sub.Ports[i]
		}
	}
	ips = len(sub.Addresses) == len(expectedIPs)
	if ips {
		seen := make(map[string]bool, len(expectedIPs))
		for _, ip := range expectedIPs {
			seen[ip] = false
		}
		for _, a := range sub.Addresses {
			if already, ok := seen[a.IP]; already || !ok {
				ips = false
				break
			}
			seen[a.IP] = true
		}
	}
	return true, ips, portsOK
}

// SliceFromEndpoints is endpointSliceFromEndpoints: the EndpointSlice of
// the same name with the first subset's ports and addresses, ready ones
// and not-ready ones, labelled with the Service's name alone.
func SliceFromEndpoints(e *corev1.Endpoints) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: e.Name, Namespace: e.Namespace, Labels: map[string]string{discoveryv1.LabelServiceName: e.Name}},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
	if len(e.Subsets) == 0 {
		return s
	}
	sub := e.Subsets[0]
	for i := range sub.Ports {
		p := sub.Ports[i]
		s.Ports = append(s.Ports, discoveryv1.EndpointPort{Name: &p.Name, Port: &p.Port, Protocol: &p.Protocol})
	}
	all := append(append([]corev1.EndpointAddress(nil), sub.Addresses...), sub.NotReadyAddresses...)
	if len(all) > 0 && allIPv6(all) {
		s.AddressType = discoveryv1.AddressTypeIPv6
	}
	for i, a := range all {
		if isIPv6(a.IP) != (s.AddressType == discoveryv1.AddressTypeIPv6) {
			continue
		}
		ready := i < len(sub.Addresses)
		ep := discoveryv1.Endpoint{Addresses: []string{a.IP}, Conditions: discoveryv1.EndpointConditions{Ready: &ready},
			TargetRef: a.TargetRef, NodeName: a.NodeName}
		s.Endpoints = append(s.Endpoints, ep)
	}
	return s
}

func isIPv6(s string) bool {
	ip, err := netip.ParseAddr(s)
	return err == nil && ip.Is6() && !ip.Is4In6()
}

func allIPv6(as []corev1.EndpointAddress) bool {
	for _, a := range as {
		if !isIPv6(a.IP) {
			return false
		}
	}
	return true
}

// sliceRight reports whether cur says what want says
// (EnsureEndpointSliceFromEndpoints's comparison).
func sliceRight(cur, want *discoveryv1.EndpointSlice) bool {
	return cur.AddressType == want.AddressType &&
		equality.Semantic.DeepEqual(cur.Endpoints, want.Endpoints) &&
		equality.Semantic.DeepEqual(cur.Ports, want.Ports) &&
		equality.Semantic.DeepEqual(cur.Labels, want.Labels)
}

// ensureSlice is EnsureEndpointSliceFromEndpoints: the slice is made from
// e when missing, made again when its address type differs (which cannot
// change), and replaced when it says something else.
func (c *Controller) ensureSlice(ctx context.Context, e *corev1.Endpoints) error {
	slices := c.cfg.Client.EndpointSlices()
	want := SliceFromEndpoints(e)
	cur, err := slices.Get(ctx, metav1.NamespaceDefault, ServiceName)
	switch {
	case api.IsNotFound(err):
		if _, err := slices.Create(ctx, want); err != nil && !api.IsAlreadyExists(err) {
			return err
		}
		return nil
	case err != nil:
		return err
	case cur.AddressType != want.AddressType:
		if err := slices.Delete(ctx, metav1.NamespaceDefault, ServiceName, nil); err != nil && !api.IsNotFound(err) {
			return err
		}
		_, err = slices.Create(ctx, want)
		return err
	case sliceRight(cur, want):
		return nil
	}
	// A whole new object, without a resourceVersion: what the slice was
	// made of is the Endpoints', whatever was written to it since.
	_, err = slices.Update(ctx, want)
	return err
}

func (c *Controller) logger() *slog.Logger {
	if c.cfg.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.cfg.Logger.With("controller", ControllerName)
}
