package policy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The cluster of the tests: a web pod and a db pod in namespace prod
// (team=prod), a client in namespace dev (team=dev), and CoreDNS in
// kube-system.
var (
	prodNS   = map[string]string{"kubernetes.io/metadata.name": "prod", "team": "prod"}
	devNS    = map[string]string{"kubernetes.io/metadata.name": "dev", "team": "dev"}
	systemNS = map[string]string{"kubernetes.io/metadata.name": "kube-system"}
)

func pod(ns, name string, lbls map[string]string, ports ...corev1.ContainerPort) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Ports: ports}}}}
}

var (
	web = Peer{Pod: pod("prod", "web", map[string]string{"app": "web"},
		corev1.ContainerPort{Name: "http", ContainerPort: 8080}), NamespaceLabels: prodNS, IP: "10.244.1.2"}
	db = Peer{Pod: pod("prod", "db", map[string]string{"app": "db"},
		corev1.ContainerPort{Name: "pg", ContainerPort: 5432}), NamespaceLabels: prodNS, IP: "10.244.1.3"}
	client = Peer{Pod: pod("dev", "client", map[string]string{"app": "client"}), NamespaceLabels: devNS, IP: "10.244.2.2"}
	dns    = Peer{Pod: pod("kube-system", "coredns", map[string]string{"k8s-app": "kube-dns"},
		corev1.ContainerPort{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP},
		corev1.ContainerPort{Name: "dns-tcp", ContainerPort: 53}), NamespaceLabels: systemNS}
	outside = Peer{IP: "203.0.113.7"}
)

func conn(from, to Peer, proto corev1.Protocol, port int32) Connection {
	return Connection{From: from, To: to, Protocol: proto, Port: port}
}

func sel(kv ...string) *metav1.LabelSelector {
	s := &metav1.LabelSelector{MatchLabels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		s.MatchLabels[kv[i]] = kv[i+1]
	}
	return s
}

func np(ns, name string, podSelector *metav1.LabelSelector, types ...networkingv1.PolicyType) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: networkingv1.NetworkPolicySpec{PodSelector: *podSelector, PolicyTypes: types}}
}

func withIngress(p *networkingv1.NetworkPolicy, rules ...networkingv1.NetworkPolicyIngressRule) *networkingv1.NetworkPolicy {
	p.Spec.Ingress = rules
	return p
}

func withEgress(p *networkingv1.NetworkPolicy, rules ...networkingv1.NetworkPolicyEgressRule) *networkingv1.NetworkPolicy {
	p.Spec.Egress = rules
	return p
}

func port(proto corev1.Protocol, p intstr.IntOrString, end ...int32) networkingv1.NetworkPolicyPort {
	out := networkingv1.NetworkPolicyPort{Protocol: &proto, Port: &p}
	if len(end) > 0 {
		out.EndPort = &end[0]
	}
	return out
}

const (
	ingressType = networkingv1.PolicyTypeIngress
	egressType  = networkingv1.PolicyTypeEgress
)

func TestEvaluate(t *testing.T) {
	denyIngress := np("prod", "default-deny-ingress", sel(), ingressType)
	denyEgress := np("dev", "default-deny-egress", sel(), egressType)
	allowDNS := withEgress(np("dev", "allow-dns", sel(), egressType), networkingv1.NetworkPolicyEgressRule{
		To:    []networkingv1.NetworkPolicyPeer{{NamespaceSelector: sel("kubernetes.io/metadata.name", "kube-system"), PodSelector: sel("k8s-app", "kube-dns")}},
		Ports: []networkingv1.NetworkPolicyPort{port("UDP", intstr.FromInt32(53)), port("TCP", intstr.FromInt32(53))}})
	webFromDev := withIngress(np("prod", "web-from-dev", sel("app", "web"), ingressType), networkingv1.NetworkPolicyIngressRule{
		From: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: sel("team", "dev")}}})
	dbFromWeb := withIngress(np("prod", "db-from-web", sel("app", "db"), ingressType), networkingv1.NetworkPolicyIngressRule{
		From:  []networkingv1.NetworkPolicyPeer{{PodSelector: sel("app", "web")}},
		Ports: []networkingv1.NetworkPolicyPort{port("TCP", intstr.FromString("pg"))}})

	for _, tc := range []struct {
		name     string
		c        Connection
		policies []*networkingv1.NetworkPolicy
		allowed  bool
		reason   string
	}{
		{name: "no policy: everything passes", c: conn(client, web, "TCP", 8080), allowed: true},
		{name: "a policy of another namespace does not isolate", c: conn(client, web, "TCP", 8080),
			policies: []*networkingv1.NetworkPolicy{np("dev", "deny", sel(), ingressType)}, allowed: true},
		{name: "default deny ingress", c: conn(client, web, "TCP", 8080), policies: []*networkingv1.NetworkPolicy{denyIngress},
			reason: "the ingress of pod prod/web is limited by NetworkPolicy prod/default-deny-ingress, and no rule allows TCP 8080 from pod dev/client"},
		{name: "default deny ingress leaves egress alone", c: conn(web, client, "TCP", 80), policies: []*networkingv1.NetworkPolicy{denyIngress}, allowed: true},
		{name: "policies add up: one allows what another isolates", c: conn(client, web, "TCP", 8080),
			policies: []*networkingv1.NetworkPolicy{denyIngress, webFromDev}, allowed: true},
		{name: "namespaceSelector alone: every pod of the namespace", c: conn(client, web, "TCP", 9999),
			policies: []*networkingv1.NetworkPolicy{webFromDev}, allowed: true},
		{name: "namespaceSelector: not from another namespace", c: conn(db, web, "TCP", 8080),
			policies: []*networkingv1.NetworkPolicy{webFromDev},
			reason:   "the ingress of pod prod/web is limited by NetworkPolicy prod/web-from-dev, and no rule allows TCP 8080 from pod prod/db"},
		{name: "a policy that selects another pod does not isolate this one", c: conn(client, db, "TCP", 5432),
			policies: []*networkingv1.NetworkPolicy{webFromDev}, allowed: true},
		{name: "podSelector alone: the policy's own namespace", c: conn(web, db, "TCP", 5432),
			policies: []*networkingv1.NetworkPolicy{dbFromWeb}, allowed: true},
		{name: "podSelector alone: not a pod with those labels elsewhere", c: conn(Peer{Pod: pod("dev", "web", map[string]string{"app": "web"}), NamespaceLabels: devNS}, db, "TCP", 5432),
			policies: []*networkingv1.NetworkPolicy{dbFromWeb}, reason: "the ingress of pod prod/db is limited by NetworkPolicy prod/db-from-web, and no rule allows TCP 5432 from pod dev/web"},
		{name: "named port: the server's port of that name", c: conn(web, db, "TCP", 5433),
			policies: []*networkingv1.NetworkPolicy{dbFromWeb}, reason: "the ingress of pod prod/db is limited by NetworkPolicy prod/db-from-web, and no rule allows TCP 5433 from pod prod/web"},
		{name: "named port: the protocol must match too", c: conn(web, db, "UDP", 5432),
			policies: []*networkingv1.NetworkPolicy{dbFromWeb}, reason: "the ingress of pod prod/db is limited by NetworkPolicy prod/db-from-web, and no rule allows UDP 5432 from pod prod/web"},
		{name: "default deny egress", c: conn(client, web, "TCP", 8080), policies: []*networkingv1.NetworkPolicy{denyEgress},
			reason: "the egress of pod dev/client is limited by NetworkPolicy dev/default-deny-egress, and no rule allows TCP 8080 to pod prod/web"},
		{name: "default deny egress stops DNS", c: conn(client, dns, "UDP", 53), policies: []*networkingv1.NetworkPolicy{denyEgress},
			reason: "the egress of pod dev/client is limited by NetworkPolicy dev/default-deny-egress, and no rule allows UDP 53 to pod kube-system/coredns"},
		{name: "DNS allowed to kube-dns in kube-system", c: conn(client, dns, "UDP", 53), policies: []*networkingv1.NetworkPolicy{denyEgress, allowDNS}, allowed: true},
		{name: "the DNS rule allows nothing else", c: conn(client, web, "TCP", 8080), policies: []*networkingv1.NetworkPolicy{denyEgress, allowDNS},
			reason: "the egress of pod dev/client is limited by NetworkPolicy dev/allow-dns, dev/default-deny-egress, and no rule allows TCP 8080 to pod prod/web"},
		{name: "both sides must agree: egress allowed, ingress denied", c: conn(client, web, "TCP", 8080),
			policies: []*networkingv1.NetworkPolicy{withEgress(np("dev", "all-out", sel(), egressType), networkingv1.NetworkPolicyEgressRule{}), denyIngress},
			reason:   "the ingress of pod prod/web is limited by NetworkPolicy prod/default-deny-ingress, and no rule allows TCP 8080 from pod dev/client"},
		{name: "an empty rule allows everything", c: conn(client, web, "TCP", 8080),
			policies: []*networkingv1.NetworkPolicy{withIngress(np("prod", "allow-all", sel(), ingressType), networkingv1.NetworkPolicyIngressRule{})}, allowed: true},
		{name: "policyTypes unset: Ingress, and Egress with egress rules", c: conn(web, client, "TCP", 80),
			policies: []*networkingv1.NetworkPolicy{withEgress(np("prod", "out", sel()), networkingv1.NetworkPolicyEgressRule{
				To: []networkingv1.NetworkPolicyPeer{{PodSelector: sel("app", "db")}}})},
			reason: "the egress of pod prod/web is limited by NetworkPolicy prod/out, and no rule allows TCP 80 to pod dev/client"},
		{name: "port range", c: conn(client, web, "TCP", 8085),
			policies: []*networkingv1.NetworkPolicy{withIngress(np("prod", "range", sel(), ingressType), networkingv1.NetworkPolicyIngressRule{
				Ports: []networkingv1.NetworkPolicyPort{port("TCP", intstr.FromInt32(8080), 8090)}})}, allowed: true},
		{name: "port range: above endPort", c: conn(client, web, "TCP", 8091),
			policies: []*networkingv1.NetworkPolicy{withIngress(np("prod", "range", sel(), ingressType), networkingv1.NetworkPolicyIngressRule{
				Ports: []networkingv1.NetworkPolicyPort{port("TCP", intstr.FromInt32(8080), 8090)}})},
			reason: "the ingress of pod prod/web is limited by NetworkPolicy prod/range, and no rule allows TCP 8091 from pod dev/client"},
		{name: "a port without number: every port of its protocol", c: conn(client, web, "UDP", 4000),
			policies: []*networkingv1.NetworkPolicy{withIngress(np("prod", "udp", sel(), ingressType), networkingv1.NetworkPolicyIngressRule{
				Ports: []networkingv1.NetworkPolicyPort{{Protocol: func() *corev1.Protocol { p := corev1.ProtocolUDP; return &p }()}}})}, allowed: true},
		{name: "ipBlock matches a pod's address", c: conn(client, web, "TCP", 8080),
			policies: []*networkingv1.NetworkPolicy{withIngress(np("prod", "from-block", sel(), ingressType), networkingv1.NetworkPolicyIngressRule{
				From: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.244.0.0/16", Except: []string{"10.244.1.0/24"}}}}})}, allowed: true},
		{name: "ipBlock except", c: conn(db, web, "TCP", 8080),
			policies: []*networkingv1.NetworkPolicy{withIngress(np("prod", "from-block", sel(), ingressType), networkingv1.NetworkPolicyIngressRule{
				From: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.244.0.0/16", Except: []string{"10.244.1.0/24"}}}}})},
			reason: "the ingress of pod prod/web is limited by NetworkPolicy prod/from-block, and no rule allows TCP 8080 from pod prod/db"},
		{name: "egress to an address outside", c: conn(client, outside, "TCP", 443),
			policies: []*networkingv1.NetworkPolicy{withEgress(np("dev", "internet", sel(), egressType), networkingv1.NetworkPolicyEgressRule{
				To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: []string{"10.0.0.0/8"}}}}})}, allowed: true},
		{name: "a selector never matches an address that is no pod", c: conn(client, outside, "TCP", 443),
			policies: []*networkingv1.NetworkPolicy{withEgress(np("dev", "pods-only", sel(), egressType), networkingv1.NetworkPolicyEgressRule{
				To: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: sel()}}})},
			reason: "the egress of pod dev/client is limited by NetworkPolicy dev/pods-only, and no rule allows TCP 443 to 203.0.113.7"},
		{name: "a peer without address matches no ipBlock", c: conn(client, dns, "UDP", 53),
			policies: []*networkingv1.NetworkPolicy{withEgress(np("dev", "everywhere", sel(), egressType), networkingv1.NetworkPolicyEgressRule{
				To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0"}}}})},
			reason: "the egress of pod dev/client is limited by NetworkPolicy dev/everywhere, and no rule allows UDP 53 to pod kube-system/coredns"},
		{name: "matchExpressions", c: conn(client, web, "TCP", 8080),
			policies: []*networkingv1.NetworkPolicy{withIngress(np("prod", "not-dev", sel(), ingressType), networkingv1.NetworkPolicyIngressRule{
				From: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "team", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"dev"}}}}}}})},
			reason: "the ingress of pod prod/web is limited by NetworkPolicy prod/not-dev, and no rule allows TCP 8080 from pod dev/client"},
		{name: "a client that is no pod meets only the server's side", c: conn(outside, web, "TCP", 8080),
			policies: []*networkingv1.NetworkPolicy{denyEgress, webFromDev},
			reason:   "the ingress of pod prod/web is limited by NetworkPolicy prod/web-from-dev, and no rule allows TCP 8080 from 203.0.113.7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Evaluate(tc.c, tc.policies)
			assert.Equal(t, tc.allowed, v.Allowed)
			assert.Equal(t, tc.reason, v.Reason)
		})
	}
}

func TestIsolated(t *testing.T) {
	policies := []*networkingv1.NetworkPolicy{np("prod", "web-in", sel("app", "web"), ingressType)}
	assert.True(t, Isolated(web.Pod, ingressType, policies))
	assert.False(t, Isolated(web.Pod, egressType, policies))
	assert.False(t, Isolated(db.Pod, ingressType, policies))
}
