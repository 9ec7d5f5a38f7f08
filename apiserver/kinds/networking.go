package kinds

import (
	"fmt"
	"net/netip"
	"reflect"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// --- networking.k8s.io/v1: Ingress, IngressClass, NetworkPolicy ---
//
// The strategies of pkg/registry/networking/{ingress,ingressclass,
// networkpolicy}, the defaults of pkg/apis/networking/v1/defaults.go and
// the validation of pkg/apis/networking/validation, in its words. What
// the objects do is elsewhere: the ingress-nginx controller
// (controllers/ingress) and the pod network (kubelet, network/policy,
// network/ingress). Left out: the update leniency for objects stored
// before a rule tightened (invalid wildcard hosts and TLS secret names
// kept by older Ingresses), and the IP and CIDR forms older releases
// accepted (leading zeros).

// IngressClassAnnotation is the class an Ingress named before
// spec.ingressClassName existed; ingress controllers still read it.
const IngressClassAnnotation = "kubernetes.io/ingress.class"

// networkingResources serves the group.
func networkingResources(gen *schema.Generator) []*registry.Resource {
	g := networkingv1.GroupName
	return []*registry.Resource{
		{
			Group: g, Version: "v1", Name: "ingresses", SingularName: "ingress", Kind: "Ingress", ListKind: "IngressList",
			ShortNames: []string{"ing"}, Namespaced: true,
			New:                 func() api.Object { return &networkingv1.Ingress{} },
			StrategicMergePatch: true,
			Strategy:            ingressStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(networkingv1.Ingress{})),
			StatusSubresource:   true,
			Table:               ingressTable(),
		},
		{
			Group: g, Version: "v1", Name: "ingressclasses", SingularName: "ingressclass", Kind: "IngressClass", ListKind: "IngressClassList",
			New:                 func() api.Object { return &networkingv1.IngressClass{} },
			StrategicMergePatch: true,
			Strategy:            ingressClassStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(networkingv1.IngressClass{})),
			Table:               ingressClassTable(),
		},
		{
			Group: g, Version: "v1", Name: "networkpolicies", SingularName: "networkpolicy", Kind: "NetworkPolicy", ListKind: "NetworkPolicyList",
			ShortNames: []string{"netpol"}, Namespaced: true,
			New:                 func() api.Object { return &networkingv1.NetworkPolicy{} },
			StrategicMergePatch: true,
			Strategy:            networkPolicyStrategy{},
			Schema:              gen.FromGoType(reflect.TypeOf(networkingv1.NetworkPolicy{})),
			Table:               networkPolicyTable(),
		},
	}
}

// --- Ingress ---

type ingressStrategy struct{ registry.DefaultStrategy }

// Validate is ValidateIngressCreate: the spec, the status a controller
// wrote, and the legacy class annotation agreeing with ingressClassName.
func (s ingressStrategy) Validate(obj api.Object) field.ErrorList {
	ing := obj.(*networkingv1.Ingress)
	errs := s.validate(ing)
	if v, set := ing.Annotations[IngressClassAnnotation]; set && ing.Spec.IngressClassName != nil && v != *ing.Spec.IngressClassName {
		errs = append(errs, field.Invalid(field.NewPath("annotations").Child(IngressClassAnnotation), v,
			"must match `ingressClassName` when both are specified"))
	}
	return errs
}

// ValidateUpdate is ValidateIngressUpdate: the spec may change, and a
// status write (the controller's) is checked with it.
func (s ingressStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList {
	return s.validate(obj.(*networkingv1.Ingress))
}

func (ingressStrategy) validate(ing *networkingv1.Ingress) field.ErrorList {
	errs := validateIngressSpec(&ing.Spec, field.NewPath("spec"))
	return append(errs, validateIngressLoadBalancerStatus(&ing.Status.LoadBalancer, field.NewPath("status", "loadBalancer"))...)
}

// The path sequences and endings an Exact or Prefix path may not hold
// (they would let a path escape its prefix once normalised).
var (
	invalidPathSequences = []string{"//", "/./", "/../", "%2f", "%2F"}
	invalidPathSuffixes  = []string{"/..", "/."}
	supportedPathTypes   = []string{string(networkingv1.PathTypeExact), string(networkingv1.PathTypeImplementationSpecific), string(networkingv1.PathTypePrefix)}
)

// ingressRulesValue prints an empty rules list as Kubernetes does (its
// internal type, in Go syntax).
type ingressRulesValue struct{}

// GoString implements fmt.GoStringer for field.FormatValue's %#v.
func (ingressRulesValue) GoString() string { return "[]networking.IngressRule(nil)" }

func validateIngressSpec(spec *networkingv1.IngressSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(spec.Rules) == 0 && spec.DefaultBackend == nil {
		errs = append(errs, field.Invalid(p, ingressRulesValue{}, "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.DefaultBackend != nil {
		errs = append(errs, validateIngressBackend(spec.DefaultBackend, p.Child("defaultBackend"))...)
	}
	for i := range spec.Rules {
		errs = append(errs, validateIngressRule(&spec.Rules[i], p.Child("rules").Index(i))...)
	}
	for i, tls := range spec.TLS {
		tp := p.Child("tls").Index(i)
		for j, host := range tls.Hosts {
			errs = append(errs, validateHost(host, tp.Child("hosts").Index(j), false)...)
		}
		if tls.SecretName != "" {
			errs = append(errs, validateString(tls.SecretName, tp.Child("secretName"), labels.IsDNS1123Subdomain)...)
		}
	}
	if spec.IngressClassName != nil {
		errs = append(errs, validateString(*spec.IngressClassName, p.Child("ingressClassName"), labels.IsDNS1123Subdomain)...)
	}
	return errs
}

// validateHost checks a rule's or a TLS entry's host: a DNS subdomain, or
// a wildcard one ("*.example.com"); a rule's host may not be an IP.
func validateHost(host string, p *field.Path, rule bool) field.ErrorList {
	var errs field.ErrorList
	if rule && validIP(host) {
		errs = append(errs, field.Invalid(p, host, "must be a DNS name, not an IP address"))
	}
	is := labels.IsDNS1123Subdomain
	if strings.Contains(host, "*") {
		is = IsWildcardDNS1123Subdomain
	}
	return append(errs, validateString(host, p, is)...)
}

func validateIngressRule(rule *networkingv1.IngressRule, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if rule.Host != "" {
		errs = append(errs, validateHost(rule.Host, p.Child("host"), true)...)
	}
	if rule.HTTP == nil {
		return errs
	}
	hp := p.Child("http")
	if len(rule.HTTP.Paths) == 0 {
		errs = append(errs, field.Required(hp.Child("paths"), ""))
	}
	for i := range rule.HTTP.Paths {
		errs = append(errs, validateHTTPIngressPath(&rule.HTTP.Paths[i], hp.Child("paths").Index(i))...)
	}
	return errs
}

// validateHTTPIngressPath: a pathType (v1 has no default), an absolute
// path that cannot escape its prefix, and a backend.
func validateHTTPIngressPath(path *networkingv1.HTTPIngressPath, p *field.Path) field.ErrorList {
	if path.PathType == nil {
		return field.ErrorList{field.Required(p.Child("pathType"), "pathType must be specified")}
	}
	var errs field.ErrorList
	pp := p.Child("path")
	switch *path.PathType {
	case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
		if !strings.HasPrefix(path.Path, "/") {
			errs = append(errs, field.Invalid(pp, path.Path, "must be an absolute path"))
		}
		for _, seq := range invalidPathSequences {
			if strings.Contains(path.Path, seq) {
				errs = append(errs, field.Invalid(pp, path.Path, fmt.Sprintf("must not contain '%s'", seq)))
			}
		}
		for _, suffix := range invalidPathSuffixes {
			if strings.HasSuffix(path.Path, suffix) {
				errs = append(errs, field.Invalid(pp, path.Path, fmt.Sprintf("cannot end with '%s'", suffix)))
			}
		}
	case networkingv1.PathTypeImplementationSpecific:
		if path.Path != "" && !strings.HasPrefix(path.Path, "/") {
			errs = append(errs, field.Invalid(pp, path.Path, "must be an absolute path"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("pathType"), *path.PathType, supportedPathTypes))
	}
	return append(errs, validateIngressBackend(&path.Backend, p.Child("backend"))...)
}

// validateIngressBackend: exactly one of service and resource; a service
// backend names its Service and one port, by name or by number.
func validateIngressBackend(b *networkingv1.IngressBackend, p *field.Path) field.ErrorList {
	switch {
	case b.Resource != nil && b.Service != nil:
		return field.ErrorList{field.Invalid(p, "", "cannot set both resource and service backends")}
	case b.Resource != nil:
		return validateTypedLocalObjectReference(b.Resource.APIGroup, b.Resource.Kind, b.Resource.Name, p.Child("resource"))
	case b.Service == nil:
		return field.ErrorList{field.Invalid(p, "", "resource or service backend is required")}
	}
	var errs field.ErrorList
	sp := p.Child("service")
	if b.Service.Name == "" {
		errs = append(errs, field.Required(sp.Child("name"), ""))
	} else {
		errs = append(errs, validateString(b.Service.Name, sp.Child("name"), IsDNS1035Label)...)
	}
	port := b.Service.Port
	switch {
	case port.Name != "" && port.Number != 0:
		errs = append(errs, field.Invalid(p, "", "cannot set both port name & port number"))
	case port.Name != "":
		errs = append(errs, validateString(port.Name, sp.Child("port", "name"), IsValidPortName)...)
	case port.Number != 0:
		if !validPortNum(port.Number) {
			errs = append(errs, field.Invalid(sp.Child("port", "number"), port.Number, portRangeErrMsg))
		}
	default:
		errs = append(errs, field.Required(p, "port name or number is required"))
	}
	return errs
}

// validateTypedLocalObjectReference checks a resource backend or an
// IngressClass's parameters: a kind and a name that fit in a URL path
// segment, and a DNS subdomain group.
func validateTypedLocalObjectReference(group *string, kind, name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if group != nil {
		errs = append(errs, validateString(*group, p.Child("apiGroup"), labels.IsDNS1123Subdomain)...)
	}
	if kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), "kind is required"))
	}
	errs = append(errs, validateString(kind, p.Child("kind"), IsValidPathSegmentName)...)
	if name == "" {
		errs = append(errs, field.Required(p.Child("name"), "name is required"))
	}
	errs = append(errs, validateString(name, p.Child("name"), IsValidPathSegmentName)...)
	return errs
}

// validateIngressLoadBalancerStatus checks what a controller reports: IPs
// are IPs, hostnames DNS names.
func validateIngressLoadBalancerStatus(s *networkingv1.IngressLoadBalancerStatus, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, in := range s.Ingress {
		ip := p.Child("ingress").Index(i)
		if in.IP != "" && !validIP(in.IP) {
			errs = append(errs, field.Invalid(ip.Child("ip"), in.IP, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"))
		}
		if in.Hostname != "" {
			errs = append(errs, validateString(in.Hostname, ip.Child("hostname"), labels.IsDNS1123Subdomain)...)
			if validIP(in.Hostname) {
				errs = append(errs, field.Invalid(ip.Child("hostname"), in.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return errs
}

// The wildcard form of a DNS subdomain (validation.IsWildcardDNS1123Subdomain).
const (
	wildcardDNS1123SubdomainFmt    = `\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`
	wildcardDNS1123SubdomainErrMsg = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character"
)

// IsWildcardDNS1123Subdomain returns why value is not "*." followed by a
// DNS subdomain, or nil.
func IsWildcardDNS1123Subdomain(value string) []string {
	var errs []string
	if len(value) > subdomainMaxLength {
		errs = append(errs, maxLenError(subdomainMaxLength))
	}
	rest, ok := strings.CutPrefix(value, "*.")
	if !ok || len(labels.IsDNS1123Subdomain(rest)) > 0 || len(rest) > subdomainMaxLength {
		errs = append(errs, labels.RegexError(wildcardDNS1123SubdomainErrMsg, wildcardDNS1123SubdomainFmt, "*.example.com"))
	}
	return errs
}

// ingressTable: NAME CLASS HOSTS ADDRESS PORTS AGE (printIngress).
func ingressTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Class", "string", "The name of the IngressClass resource that should be used for additional configuration"),
			col("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule"),
			col("Address", "string", "Address is a list containing ingress points for the load-balancer"),
			col("Ports", "string", "Ports of TLS configurations that open"),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			ing := obj.(*networkingv1.Ingress)
			class := "<none>"
			if ing.Spec.IngressClassName != nil {
				class = *ing.Spec.IngressClassName
			}
			ports := "80"
			if len(ing.Spec.TLS) > 0 {
				ports = "80, 443"
			}
			return []any{ing.Name, class, ingressHosts(ing.Spec.Rules), ingressAddress(ing.Status.LoadBalancer), ports, age(ing.CreationTimestamp.Time, now)}
		},
	}
}

// ingressHosts is formatHosts: the first three hosts, "*" when no rule
// names one.
func ingressHosts(rules []networkingv1.IngressRule) string {
	const max = 3
	var list []string
	more := false
	for _, r := range rules {
		if len(list) == max {
			more = true
		}
		if !more && r.Host != "" {
			list = append(list, r.Host)
		}
	}
	if len(list) == 0 {
		return "*"
	}
	s := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", s, len(rules)-max)
	}
	return s
}

// ingressAddress is ingressLoadBalancerStatusStringer in its wide form
// (the server prints wide): each IP, or hostname, once and sorted.
func ingressAddress(s networkingv1.IngressLoadBalancerStatus) string {
	seen := map[string]bool{}
	var out []string
	for _, in := range s.Ingress {
		a := in.IP
		if a == "" {
			a = in.Hostname
		}
		if a != "" && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// --- IngressClass ---

type ingressClassStrategy struct{ registry.DefaultStrategy }

// Default is SetDefaults_IngressClass: parameters are cluster-scoped
// unless said.
func (ingressClassStrategy) Default(obj api.Object) {
	ic := obj.(*networkingv1.IngressClass)
	if ic.Spec.Parameters != nil && ic.Spec.Parameters.Scope == nil {
		ic.Spec.Parameters.Scope = ptr(networkingv1.IngressClassParametersReferenceScopeCluster)
	}
}

// maxLenIngressClassController bounds spec.controller.
const maxLenIngressClassController = 250

// Validate is ValidateIngressClass.
func (ingressClassStrategy) Validate(obj api.Object) field.ErrorList {
	ic := obj.(*networkingv1.IngressClass)
	p := field.NewPath("spec")
	var errs field.ErrorList
	if len(ic.Spec.Controller) > maxLenIngressClassController {
		errs = append(errs, field.TooLong(p.Child("controller"), "", maxLenIngressClassController))
	}
	errs = append(errs, validateDomainPrefixedPath(ic.Spec.Controller, p.Child("controller"))...)
	if params := ic.Spec.Parameters; params != nil {
		pp := p.Child("parameters")
		errs = append(errs, validateTypedLocalObjectReference(params.APIGroup, params.Kind, params.Name, pp)...)
		switch scope := params.Scope; {
		case scope == nil:
			errs = append(errs, field.Required(pp.Child("scope"), ""))
		case *scope != networkingv1.IngressClassParametersReferenceScopeCluster && *scope != networkingv1.IngressClassParametersReferenceScopeNamespace:
			errs = append(errs, field.NotSupported(pp.Child("scope"), *scope, []string{
				networkingv1.IngressClassParametersReferenceScopeCluster, networkingv1.IngressClassParametersReferenceScopeNamespace}))
		case *scope == networkingv1.IngressClassParametersReferenceScopeNamespace && params.Namespace == nil:
			errs = append(errs, field.Required(pp.Child("namespace"), "`parameters.scope` is set to 'Namespace'"))
		case *scope == networkingv1.IngressClassParametersReferenceScopeNamespace:
			errs = append(errs, validateString(*params.Namespace, pp.Child("namespace"), IsDNS1123Label)...)
		case params.Namespace != nil:
			errs = append(errs, field.Forbidden(pp.Child("namespace"), "`parameters.scope` is set to 'Cluster'"))
		}
	}
	return errs
}

// ValidateUpdate is ValidateIngressClassUpdate: the controller is fixed
// once set (an Ingress of the class must not change hands).
func (s ingressClassStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	ic, o := obj.(*networkingv1.IngressClass), old.(*networkingv1.IngressClass)
	var errs field.ErrorList
	if ic.Spec.Controller != o.Spec.Controller {
		errs = append(errs, field.Invalid(field.NewPath("spec", "controller"), ic.Spec.Controller, immutableErrMsg))
	}
	return append(errs, s.Validate(obj)...)
}

// httpPathChars are the characters validation.IsDomainPrefixedPath
// allows in the path part.
const (
	httpPathFmt   = `[A-Za-z0-9/\-._~%!$&'()*+,;=:]+`
	httpPathChars = `ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-._~%!$&'()*+,;=:`
)

// validateDomainPrefixedPath is validation.IsDomainPrefixedPath
// ("k8s.io/ingress-nginx").
func validateDomainPrefixedPath(s string, p *field.Path) field.ErrorList {
	if s == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	host, path, ok := strings.Cut(s, "/")
	if !ok || host == "" || path == "" {
		return field.ErrorList{field.Invalid(p, s, `must be a domain-prefixed path (such as "acme.io/foo")`)}
	}
	errs := validateString(host, p, labels.IsDNS1123Subdomain)
	if strings.Trim(path, httpPathChars) != "" {
		errs = append(errs, field.Invalid(p, path, labels.RegexError("Invalid path", httpPathFmt)))
	}
	return errs
}

// ingressClassTable: NAME CONTROLLER PARAMETERS AGE (printIngressClass).
func ingressClassTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Controller", "string", "Controller that is responsible for handling this class"),
			col("Parameters", "string", "A reference to a resource with additional parameters"),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			ic := obj.(*networkingv1.IngressClass)
			params := "<none>"
			if p := ic.Spec.Parameters; p != nil {
				params = p.Kind
				if p.APIGroup != nil {
					params += "." + *p.APIGroup
				}
				params += "/" + p.Name
			}
			return []any{ic.Name, ic.Spec.Controller, params, age(ic.CreationTimestamp.Time, now)}
		},
	}
}

// --- NetworkPolicy ---

type networkPolicyStrategy struct{ registry.DefaultStrategy }

// Default is SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort:
// a policy without policyTypes is an Ingress policy, and an Egress one too
// when it has egress rules; a port's protocol is TCP unless said.
func (networkPolicyStrategy) Default(obj api.Object) {
	np := obj.(*networkingv1.NetworkPolicy)
	if len(np.Spec.PolicyTypes) == 0 {
		np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(np.Spec.Egress) > 0 {
			np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}
	}
	defaultPorts := func(ports []networkingv1.NetworkPolicyPort) {
		for i := range ports {
			if ports[i].Protocol == nil {
				ports[i].Protocol = ptr(corev1.ProtocolTCP)
			}
		}
	}
	for i := range np.Spec.Ingress {
		defaultPorts(np.Spec.Ingress[i].Ports)
	}
	for i := range np.Spec.Egress {
		defaultPorts(np.Spec.Egress[i].Ports)
	}
}

// Validate is ValidateNetworkPolicy.
func (networkPolicyStrategy) Validate(obj api.Object) field.ErrorList {
	spec := &obj.(*networkingv1.NetworkPolicy).Spec
	p := field.NewPath("spec")
	errs := validateLabelSelector(&spec.PodSelector, p.Child("podSelector"))
	for i, rule := range spec.Ingress {
		errs = append(errs, validateNetworkPolicyRule(rule.Ports, rule.From, p.Child("ingress").Index(i), "from")...)
	}
	for i, rule := range spec.Egress {
		errs = append(errs, validateNetworkPolicyRule(rule.Ports, rule.To, p.Child("egress").Index(i), "to")...)
	}
	if len(spec.PolicyTypes) > 2 {
		return append(errs, field.Invalid(p.Child("policyTypes"), spec.PolicyTypes, "may not specify more than two policyTypes"))
	}
	for i, t := range spec.PolicyTypes {
		if t != networkingv1.PolicyTypeIngress && t != networkingv1.PolicyTypeEgress {
			errs = append(errs, field.NotSupported(p.Child("policyTypes").Index(i), t,
				[]string{string(networkingv1.PolicyTypeIngress), string(networkingv1.PolicyTypeEgress)}))
		}
	}
	return errs
}

// ValidateUpdate implements registry.Strategy: a policy's spec may change.
func (s networkPolicyStrategy) ValidateUpdate(obj, _ api.Object) field.ErrorList {
	return s.Validate(obj)
}

// validateNetworkPolicyRule checks an ingress or an egress rule at p: its
// ports, and its peers, which an ingress rule calls from and an egress
// rule to.
func validateNetworkPolicyRule(ports []networkingv1.NetworkPolicyPort, peers []networkingv1.NetworkPolicyPeer, p *field.Path, peersName string) field.ErrorList {
	var errs field.ErrorList
	for j := range ports {
		errs = append(errs, validateNetworkPolicyPort(&ports[j], p.Child("ports").Index(j))...)
	}
	for j := range peers {
		errs = append(errs, validateNetworkPolicyPeer(&peers[j], p.Child(peersName).Index(j))...)
	}
	return errs
}

// validateNetworkPolicyPort: a known protocol; a port by number (with an
// optional endPort at or above it) or by name (without endPort).
func validateNetworkPolicyPort(port *networkingv1.NetworkPolicyPort, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if proto := port.Protocol; proto != nil && *proto != corev1.ProtocolTCP && *proto != corev1.ProtocolUDP && *proto != corev1.ProtocolSCTP {
		errs = append(errs, field.NotSupported(p.Child("protocol"), *proto,
			[]string{string(corev1.ProtocolTCP), string(corev1.ProtocolUDP), string(corev1.ProtocolSCTP)}))
	}
	switch {
	case port.Port == nil:
		if port.EndPort != nil {
			errs = append(errs, field.Forbidden(p.Child("endPort"), "may not be specified when `port` is not specified"))
		}
	case port.Port.Type == intstr.Int:
		n := port.Port.IntVal
		if !validPortNum(n) {
			errs = append(errs, field.Invalid(p.Child("port"), n, portRangeErrMsg))
		}
		if port.EndPort != nil {
			if *port.EndPort < n {
				errs = append(errs, field.Invalid(p.Child("endPort"), n, "must be greater than or equal to `port`"))
			}
			if !validPortNum(*port.EndPort) {
				errs = append(errs, field.Invalid(p.Child("endPort"), *port.EndPort, portRangeErrMsg))
			}
		}
	default: // a name
		if port.EndPort != nil {
			errs = append(errs, field.Forbidden(p.Child("endPort"), "may not be specified when `port` is non-numeric"))
		}
		errs = append(errs, validateString(port.Port.StrVal, p.Child("port"), IsValidPortName)...)
	}
	return errs
}

// validateNetworkPolicyPeer: at least one of podSelector, namespaceSelector
// and ipBlock, and ipBlock alone.
func validateNetworkPolicyPeer(peer *networkingv1.NetworkPolicyPeer, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	if peer.PodSelector != nil {
		n++
		errs = append(errs, validateLabelSelector(peer.PodSelector, p.Child("podSelector"))...)
	}
	if peer.NamespaceSelector != nil {
		n++
		errs = append(errs, validateLabelSelector(peer.NamespaceSelector, p.Child("namespaceSelector"))...)
	}
	if peer.IPBlock != nil {
		n++
		errs = append(errs, validateIPBlock(peer.IPBlock, p.Child("ipBlock"))...)
	}
	switch {
	case n == 0:
		errs = append(errs, field.Required(p, "must specify a peer"))
	case n > 1 && peer.IPBlock != nil:
		errs = append(errs, field.Forbidden(p, "may not specify both ipBlock and another peer"))
	}
	return errs
}

const cidrErrMsg = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"

// validateIPBlock: a CIDR, and exceptions strictly inside it.
func validateIPBlock(b *networkingv1.IPBlock, p *field.Path) field.ErrorList {
	if b.CIDR == "" {
		return field.ErrorList{field.Required(p.Child("cidr"), "")}
	}
	cidr, err := netip.ParsePrefix(b.CIDR)
	if err != nil {
		return field.ErrorList{field.Invalid(p.Child("cidr"), b.CIDR, cidrErrMsg)}
	}
	cidr = cidr.Masked()
	var errs field.ErrorList
	for i, ex := range b.Except {
		ep := p.Child("except").Index(i)
		except, err := netip.ParsePrefix(ex)
		if err != nil {
			errs = append(errs, field.Invalid(ep, ex, cidrErrMsg))
			continue
		}
		if !cidr.Contains(except.Masked().Addr()) || cidr.Bits() >= except.Bits() {
			errs = append(errs, field.Invalid(ep, ex, "must be a strict subset of `cidr`"))
		}
	}
	return errs
}

// networkPolicyTable: NAME POD-SELECTOR AGE (printNetworkPolicy).
func networkPolicyTable() *registry.Table {
	return &registry.Table{
		Columns: []metav1.TableColumnDefinition{
			registry.NameColumn,
			col("Pod-Selector", "string", "podSelector selects the pods to which this NetworkPolicy object applies. The array of rules is applied to any pods selected by this field. An empty selector matches all pods in this namespace."),
			registry.AgeColumn,
		},
		Cells: func(obj api.Object, now time.Time) []any {
			np := obj.(*networkingv1.NetworkPolicy)
			return []any{np.Name, formatLabelSelector(&np.Spec.PodSelector), age(np.CreationTimestamp.Time, now)}
		},
	}
}
