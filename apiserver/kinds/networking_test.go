package kinds

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
)

// networkingSamples are one object of each networking.k8s.io kind, for
// the table tests.
func networkingSamples() map[string]api.Object {
	meta := metav1.ObjectMeta{Name: "x", Namespace: "default", CreationTimestamp: ago(3 * time.Hour)}
	return map[string]api.Object{
		"ingresses": &networkingv1.Ingress{ObjectMeta: meta, Spec: networkingv1.IngressSpec{IngressClassName: ptr("nginx"),
			Rules: []networkingv1.IngressRule{{Host: "a.example.com"}, {}, {Host: "b.example.com"}},
			TLS:   []networkingv1.IngressTLS{{Hosts: []string{"a.example.com"}}}},
			Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{
				{IP: "10.96.0.80"}, {Hostname: "lb.example.com"}, {IP: "10.96.0.80"}}}}},
		"ingressclasses": &networkingv1.IngressClass{ObjectMeta: meta, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx",
			Parameters: &networkingv1.IngressClassParametersReference{APIGroup: ptr("k8s.example.com"), Kind: "IngressParameters", Name: "external-lb"}}},
		"networkpolicies": &networkingv1.NetworkPolicy{ObjectMeta: meta, Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}},
	}
}

// kubectl get ing / ingressclass / netpol print printIngress's,
// printIngressClass's and printNetworkPolicy's columns.
func TestNetworkingTables(t *testing.T) {
	objs := networkingSamples()
	cells := func(name string) []any { return builtin(t, name).Table.Cells(objs[name], tableNow) }
	assert.Equal(t, []any{"x", "nginx", "a.example.com,b.example.com", "10.96.0.80,lb.example.com", "80, 443", "3h"}, cells("ingresses"))
	assert.Equal(t, []any{"x", "k8s.io/ingress-nginx", "IngressParameters.k8s.example.com/external-lb", "3h"}, cells("ingressclasses"))
	assert.Equal(t, []any{"x", "app=db", "3h"}, cells("networkpolicies"))

	// Without class, hosts, address or TLS; an empty pod selector.
	empty := builtin(t, "ingresses").Table.Cells(&networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "y", CreationTimestamp: ago(time.Minute)}}, tableNow)
	assert.Equal(t, []any{"y", "<none>", "*", "", "80", "60s"}, empty)
	all := builtin(t, "networkpolicies").Table.Cells(&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "deny"}}, tableNow)
	assert.Equal(t, "<none>", all[1])
	assert.Equal(t, "a,b,c + 2 more...", ingressHosts([]networkingv1.IngressRule{{Host: "a"}, {Host: "b"}, {Host: "c"}, {Host: "d"}, {Host: "e"}}))

	for name, short := range map[string]string{"ingresses": "ing", "networkpolicies": "netpol"} {
		assert.Equal(t, []string{short}, builtin(t, name).ShortNames)
	}
	assert.Empty(t, builtin(t, "ingressclasses").ShortNames)
	assert.True(t, builtin(t, "ingresses").StatusSubresource)
}

func pathType(t networkingv1.PathType) *networkingv1.PathType { return &t }

func svcBackend(name string, port int32) networkingv1.IngressBackend {
	return networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: name, Port: networkingv1.ServiceBackendPort{Number: port}}}
}

func ingressWith(paths ...networkingv1.HTTPIngressPath) *networkingv1.Ingress {
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: networkingv1.IngressSpec{
		Rules: []networkingv1.IngressRule{{Host: "web.example.com", IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}}}}}}
}

// ValidateIngressCreate's rules, in Kubernetes' words.
func TestIngressValidation(t *testing.T) {
	prefix := func(path string) networkingv1.HTTPIngressPath {
		return networkingv1.HTTPIngressPath{Path: path, PathType: pathType(networkingv1.PathTypePrefix), Backend: svcBackend("web", 80)}
	}
	for _, tc := range []struct {
		name string
		ing  func() *networkingv1.Ingress
		want []string
	}{
		{"valid", func() *networkingv1.Ingress { return ingressWith(prefix("/"), prefix("/api")) }, nil},
		{"only a default backend", func() *networkingv1.Ingress {
			b := svcBackend("web", 80)
			return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: networkingv1.IngressSpec{DefaultBackend: &b}}
		}, nil},
		{"neither rules nor default backend", func() *networkingv1.Ingress { return &networkingv1.Ingress{} },
			[]string{"spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified"}},
		{"pathType required", func() *networkingv1.Ingress {
			p := prefix("/")
			p.PathType = nil
			return ingressWith(p)
		}, []string{"spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"}},
		{"unknown pathType", func() *networkingv1.Ingress {
			p := prefix("/")
			p.PathType = pathType("Regex")
			return ingressWith(p)
		}, []string{`spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"`}},
		{"relative path", func() *networkingv1.Ingress { return ingressWith(prefix("api")) },
			[]string{`spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path`}},
		{"path that escapes", func() *networkingv1.Ingress { return ingressWith(prefix("/a/../b"), prefix("/a/.")) },
			[]string{`spec.rules[0].http.paths[0].path: Invalid value: "/a/../b": must not contain '/../'`,
				`spec.rules[0].http.paths[1].path: Invalid value: "/a/.": cannot end with '/.'`}},
		{"ImplementationSpecific may be empty", func() *networkingv1.Ingress {
			p := prefix("")
			p.PathType = pathType(networkingv1.PathTypeImplementationSpecific)
			return ingressWith(p)
		}, nil},
		{"no paths", func() *networkingv1.Ingress { return ingressWith() },
			[]string{"spec.rules[0].http.paths: Required value"}},
		{"both backends", func() *networkingv1.Ingress {
			p := prefix("/")
			p.Backend.Resource = &corev1.TypedLocalObjectReference{Kind: "StorageBucket", Name: "static"}
			return ingressWith(p)
		}, []string{`spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both resource and service backends`}},
		{"no backend", func() *networkingv1.Ingress {
			p := prefix("/")
			p.Backend = networkingv1.IngressBackend{}
			return ingressWith(p)
		}, []string{`spec.rules[0].http.paths[0].backend: Invalid value: "": resource or service backend is required`}},
		{"a resource backend", func() *networkingv1.Ingress {
			p := prefix("/")
			p.Backend = networkingv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{APIGroup: ptr("k8s.example.com"), Kind: "StorageBucket", Name: "static"}}
			return ingressWith(p)
		}, nil},
		{"port name and number", func() *networkingv1.Ingress {
			p := prefix("/")
			p.Backend.Service.Port.Name = "http"
			return ingressWith(p)
		}, []string{`spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both port name & port number`}},
		{"no port", func() *networkingv1.Ingress {
			p := prefix("/")
			p.Backend.Service.Port.Number = 0
			return ingressWith(p)
		}, []string{"spec.rules[0].http.paths[0].backend: Required value: port name or number is required"}},
		{"bad port and service name", func() *networkingv1.Ingress {
			p := prefix("/")
			p.Backend.Service.Name = "1web"
			p.Backend.Service.Port.Number = 70000
			return ingressWith(p)
		}, []string{`spec.rules[0].http.paths[0].backend.service.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
			`spec.rules[0].http.paths[0].backend.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive`}},
		{"IP host", func() *networkingv1.Ingress {
			ing := ingressWith(prefix("/"))
			ing.Spec.Rules[0].Host = "10.0.0.1"
			return ing
		}, []string{`spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address`}},
		{"wildcard host", func() *networkingv1.Ingress {
			ing := ingressWith(prefix("/"))
			ing.Spec.Rules[0].Host = "*.example.com"
			return ing
		}, nil},
		{"bad wildcard host", func() *networkingv1.Ingress {
			ing := ingressWith(prefix("/"))
			ing.Spec.Rules[0].Host = "foo.*.com"
			return ing
		}, []string{`spec.rules[0].host: Invalid value: "foo.*.com": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"class annotation disagrees", func() *networkingv1.Ingress {
			ing := ingressWith(prefix("/"))
			ing.Annotations = map[string]string{IngressClassAnnotation: "traefik"}
			ing.Spec.IngressClassName = ptr("nginx")
			return ing
		}, []string{`annotations.kubernetes.io/ingress.class: Invalid value: "traefik": must match ` + "`ingressClassName`" + ` when both are specified`}},
		{"bad TLS secret", func() *networkingv1.Ingress {
			ing := ingressWith(prefix("/"))
			ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"web.example.com"}, SecretName: "Web_TLS"}}
			return ing
		}, []string{`spec.tls[0].secretName: Invalid value: "Web_TLS": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, create(t, "ingresses", tc.ing()))
		})
	}
}

// A controller's status write is checked: an IP must be one, a hostname
// must not be one.
func TestIngressStatusValidation(t *testing.T) {
	old := ingressWith(networkingv1.HTTPIngressPath{Path: "/", PathType: pathType(networkingv1.PathTypePrefix), Backend: svcBackend("web", 80)})
	ing := old.DeepCopy()
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "10.96.0.80"}, {IP: "ten"}, {Hostname: "10.0.0.1"}}
	assert.Equal(t, []string{
		`status.loadBalancer.ingress[1].ip: Invalid value: "ten": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
		`status.loadBalancer.ingress[2].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address`,
	}, update(t, "ingresses", ing, old))
}

func TestIngressClassValidation(t *testing.T) {
	class := func(controller string) *networkingv1.IngressClass {
		return &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: controller}}
	}
	assert.Nil(t, create(t, "ingressclasses", class("k8s.io/ingress-nginx")))
	assert.Equal(t, []string{"spec.controller: Required value"}, create(t, "ingressclasses", class("")))
	assert.Equal(t, []string{`spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")`}, create(t, "ingressclasses", class("nginx")))

	// Parameters default to the cluster scope; a namespace scope needs a
	// namespace, the cluster scope refuses one.
	withParams := class("k8s.io/ingress-nginx")
	withParams.Spec.Parameters = &networkingv1.IngressClassParametersReference{Kind: "ConfigMap", Name: "nginx-params"}
	assert.Nil(t, create(t, "ingressclasses", withParams))
	assert.Equal(t, networkingv1.IngressClassParametersReferenceScopeCluster, *withParams.Spec.Parameters.Scope)
	withParams.Spec.Parameters.Scope = ptr(networkingv1.IngressClassParametersReferenceScopeNamespace)
	assert.Equal(t, []string{"spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"}, create(t, "ingressclasses", withParams))
	withParams.Spec.Parameters.Scope = ptr("Galaxy")
	assert.Equal(t, []string{`spec.parameters.scope: Unsupported value: "Galaxy": supported values: "Cluster", "Namespace"`}, create(t, "ingressclasses", withParams))
	withParams.Spec.Parameters.Scope, withParams.Spec.Parameters.Namespace = ptr(networkingv1.IngressClassParametersReferenceScopeCluster), ptr("default")
	assert.Equal(t, []string{"spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"}, create(t, "ingressclasses", withParams))

	// The controller is immutable.
	old := class("k8s.io/ingress-nginx")
	assert.Equal(t, []string{`spec.controller: Invalid value: "example.com/other": field is immutable`}, update(t, "ingressclasses", class("example.com/other"), old))
}

func netpolPort(proto corev1.Protocol, port *intstr.IntOrString, end *int32) networkingv1.NetworkPolicyPort {
	p := networkingv1.NetworkPolicyPort{Port: port, EndPort: end}
	if proto != "" {
		p.Protocol = &proto
	}
	return p
}

// SetDefaults_NetworkPolicy: Ingress always, Egress when there are egress
// rules; TCP for a port without protocol.
func TestNetworkPolicyDefaults(t *testing.T) {
	port := intstr.FromInt32(80)
	np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: networkingv1.NetworkPolicySpec{
		Ingress: []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{netpolPort("", &port, nil)}}},
		Egress:  []networkingv1.NetworkPolicyEgressRule{{}}}}
	assert.Nil(t, create(t, "networkpolicies", np))
	assert.Equal(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}, np.Spec.PolicyTypes)
	assert.Equal(t, corev1.ProtocolTCP, *np.Spec.Ingress[0].Ports[0].Protocol)

	deny := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "deny", Namespace: "default"}}
	assert.Nil(t, create(t, "networkpolicies", deny))
	assert.Equal(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}, deny.Spec.PolicyTypes)

	egressOnly := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "default"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}}}
	assert.Nil(t, create(t, "networkpolicies", egressOnly))
	assert.Equal(t, []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}, egressOnly.Spec.PolicyTypes, "what is said stays")
}

// ValidateNetworkPolicy's rules for ports, peers, ipBlocks and
// policyTypes.
func TestNetworkPolicyValidation(t *testing.T) {
	n, name := intstr.FromInt32(8080), intstr.FromString("http")
	big, zero := intstr.FromInt32(70000), intstr.FromInt32(0)
	end := func(v int32) *int32 { return &v }
	ingress := func(rule networkingv1.NetworkPolicyIngressRule) *networkingv1.NetworkPolicy {
		return &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
			Spec: networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{rule}}}
	}
	ports := func(ps ...networkingv1.NetworkPolicyPort) *networkingv1.NetworkPolicy {
		return ingress(networkingv1.NetworkPolicyIngressRule{Ports: ps})
	}
	from := func(peers ...networkingv1.NetworkPolicyPeer) *networkingv1.NetworkPolicy {
		return ingress(networkingv1.NetworkPolicyIngressRule{From: peers})
	}
	block := func(cidr string, except ...string) networkingv1.NetworkPolicyPeer {
		return networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: cidr, Except: except}}
	}
	for _, tc := range []struct {
		name string
		np   *networkingv1.NetworkPolicy
		want []string
	}{
		{"port range", ports(netpolPort("TCP", &n, end(8090))), nil},
		{"named port", ports(netpolPort("UDP", &name, nil)), nil},
		{"all ports of a protocol", ports(netpolPort("SCTP", nil, nil)), nil},
		{"bad protocol", ports(netpolPort("ICMP", &n, nil)),
			[]string{`spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"`}},
		{"port out of range", ports(netpolPort("TCP", &big, nil), netpolPort("TCP", &zero, nil)),
			[]string{"spec.ingress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
				"spec.ingress[0].ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive"}},
		{"endPort below port", ports(netpolPort("TCP", &n, end(80))),
			[]string{"spec.ingress[0].ports[0].endPort: Invalid value: 8080: must be greater than or equal to `port`"}},
		{"endPort with a named port", ports(netpolPort("TCP", &name, end(80))),
			[]string{"spec.ingress[0].ports[0].endPort: Forbidden: may not be specified when `port` is non-numeric"}},
		{"endPort without port", ports(netpolPort("TCP", nil, end(80))),
			[]string{"spec.ingress[0].ports[0].endPort: Forbidden: may not be specified when `port` is not specified"}},
		{"bad port name", ports(netpolPort("TCP", ptr(intstr.FromString("HTTP")), nil)),
			[]string{`spec.ingress[0].ports[0].port: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
				`spec.ingress[0].ports[0].port: Invalid value: "HTTP": must contain at least one letter (a-z)`}},
		{"empty peer", from(networkingv1.NetworkPolicyPeer{}),
			[]string{"spec.ingress[0].from[0]: Required value: must specify a peer"}},
		{"pods in namespaces", from(networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{}, NamespaceSelector: &metav1.LabelSelector{}}), nil},
		{"ipBlock with another peer", from(networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{}, IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8"}}),
			[]string{"spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer"}},
		{"ipBlock", from(block("172.17.0.0/16", "172.17.1.0/24")), nil},
		{"ipBlock without cidr", from(block("")), []string{"spec.ingress[0].from[0].ipBlock.cidr: Required value"}},
		{"bad cidr", from(block("10.0.0.0/33")),
			[]string{`spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`}},
		{"except outside the cidr", from(block("172.17.0.0/16", "10.0.0.0/24", "172.17.0.0/16", "x")),
			[]string{"spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: \"10.0.0.0/24\": must be a strict subset of `cidr`",
				"spec.ingress[0].from[0].ipBlock.except[1]: Invalid value: \"172.17.0.0/16\": must be a strict subset of `cidr`",
				`spec.ingress[0].from[0].ipBlock.except[2]: Invalid value: "x": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`}},
		{"bad selector", from(networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a b"}}}),
			[]string{`spec.ingress[0].from[0].namespaceSelector.matchLabels: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
		{"egress rule", &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: networkingv1.NetworkPolicySpec{
			Egress: []networkingv1.NetworkPolicyEgressRule{{Ports: []networkingv1.NetworkPolicyPort{netpolPort("TCP", &big, nil)}, To: []networkingv1.NetworkPolicyPeer{{}}}}}},
			[]string{"spec.egress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
				"spec.egress[0].to[0]: Required value: must specify a peer"}},
		{"bad policy type", &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: networkingv1.NetworkPolicySpec{
			PolicyTypes: []networkingv1.PolicyType{"Sideways"}}},
			[]string{`spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, create(t, "networkpolicies", tc.np))
		})
	}
}
