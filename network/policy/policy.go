package policy

import (
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/labels"
)

// Peer is one end of a connection as a NetworkPolicy sees it.
type Peer struct {
	// Pod is the pod at this end (its namespace, labels and container
	// ports); nil for an address that is no pod's (outside the cluster,
	// a node, a hostNetwork pod).
	Pod *corev1.Pod
	// NamespaceLabels are the labels of the pod's namespace, which a
	// namespaceSelector matches.
	NamespaceLabels map[string]string
	// IP is the address at this end, which an ipBlock matches; "" when
	// there is none to match.
	IP string
}

// String names the peer in a Verdict's reason.
func (p Peer) String() string {
	switch {
	case p.Pod != nil:
		return "pod " + p.Pod.Namespace + "/" + p.Pod.Name
	case p.IP != "":
		return p.IP
	}
	return "an address outside the pod network"
}

// Connection is one new connection: from a client to a port of a server.
type Connection struct {
	From, To Peer
	// Protocol is TCP, UDP or SCTP ("" is TCP).
	Protocol corev1.Protocol
	Port     int32
}

// Verdict is the plugin's decision on a connection.
type Verdict struct {
	Allowed bool
	// Reason says why a connection is dropped, naming the side that
	// refuses it and the policies that isolate that side ("" when
	// allowed).
	Reason string
}

// Evaluate decides whether policies (every NetworkPolicy of the cluster;
// those of other namespaces are skipped) let c through.
func Evaluate(c Connection, policies []*networkingv1.NetworkPolicy) Verdict {
	if c.Protocol == "" {
		c.Protocol = corev1.ProtocolTCP
	}
	if c.From.Pod != nil {
		isolating, allowed := egress(c, policies)
		if len(isolating) > 0 && !allowed {
			return Verdict{Reason: fmt.Sprintf("the egress of %s is limited by NetworkPolicy %s, and no rule allows %s %d to %s",
				c.From, names(c.From.Pod.Namespace, isolating), c.Protocol, c.Port, c.To)}
		}
	}
	if c.To.Pod != nil {
		isolating, allowed := ingress(c, policies)
		if len(isolating) > 0 && !allowed {
			return Verdict{Reason: fmt.Sprintf("the ingress of %s is limited by NetworkPolicy %s, and no rule allows %s %d from %s",
				c.To, names(c.To.Pod.Namespace, isolating), c.Protocol, c.Port, c.From)}
		}
	}
	return Verdict{Allowed: true}
}

// egress returns the policies that isolate the client for egress and
// whether one of their rules allows c.
func egress(c Connection, policies []*networkingv1.NetworkPolicy) (isolating []string, allowed bool) {
	for _, np := range policies {
		if !selects(np, c.From.Pod, networkingv1.PolicyTypeEgress) {
			continue
		}
		isolating = append(isolating, np.Name)
		for _, rule := range np.Spec.Egress {
			if portsMatch(rule.Ports, c) && peersMatch(rule.To, np.Namespace, c.To) {
				allowed = true
			}
		}
	}
	return isolating, allowed
}

// ingress is egress for the server's side.
func ingress(c Connection, policies []*networkingv1.NetworkPolicy) (isolating []string, allowed bool) {
	for _, np := range policies {
		if !selects(np, c.To.Pod, networkingv1.PolicyTypeIngress) {
			continue
		}
		isolating = append(isolating, np.Name)
		for _, rule := range np.Spec.Ingress {
			if portsMatch(rule.Ports, c) && peersMatch(rule.From, np.Namespace, c.From) {
				allowed = true
			}
		}
	}
	return isolating, allowed
}

// Isolated reports whether a policy of policies isolates pod for
// direction t (Ingress or Egress).
func Isolated(pod *corev1.Pod, t networkingv1.PolicyType, policies []*networkingv1.NetworkPolicy) bool {
	for _, np := range policies {
		if selects(np, pod, t) {
			return true
		}
	}
	return false
}

// selects reports whether np isolates pod for direction t: it is in the
// pod's namespace, its podSelector matches the pod and it is of type t.
// policyTypes is defaulted by the API server; a policy written before
// (or without) it is an Ingress policy, and an Egress one when it has
// egress rules.
func selects(np *networkingv1.NetworkPolicy, pod *corev1.Pod, t networkingv1.PolicyType) bool {
	if np.Namespace != pod.Namespace || !matches(&np.Spec.PodSelector, pod.Labels) {
		return false
	}
	types := np.Spec.PolicyTypes
	if len(types) == 0 {
		types = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(np.Spec.Egress) > 0 {
			types = append(types, networkingv1.PolicyTypeEgress)
		}
	}
	for _, x := range types {
		if x == t {
			return true
		}
	}
	return false
}

// matches reports whether sel selects a set of labels; an empty selector
// selects everything, a selector that does not parse nothing.
func matches(sel *metav1.LabelSelector, set map[string]string) bool {
	s, err := api.LabelSelectorAsSelector(sel)
	return err == nil && s.Matches(labels.Set(set))
}

// portsMatch reports whether one of a rule's ports is c's (no ports:
// every port).
func portsMatch(ports []networkingv1.NetworkPolicyPort, c Connection) bool {
	if len(ports) == 0 {
		return true
	}
	for _, p := range ports {
		if portMatches(p, c) {
			return true
		}
	}
	return false
}

func portMatches(p networkingv1.NetworkPolicyPort, c Connection) bool {
	proto := corev1.ProtocolTCP
	if p.Protocol != nil {
		proto = *p.Protocol
	}
	switch {
	case proto != c.Protocol:
		return false
	case p.Port == nil:
		return true
	case p.Port.Type == intstr.Int:
		end := p.Port.IntVal
		if p.EndPort != nil {
			end = *p.EndPort
		}
		return c.Port >= p.Port.IntVal && c.Port <= end
	}
	// A named port is the server pod's container port of that name and
	// protocol: the same name may be a different number on each pod.
	if c.To.Pod == nil {
		return false
	}
	for _, ctr := range c.To.Pod.Spec.Containers {
		for _, cp := range ctr.Ports {
			cpProto := cp.Protocol
			if cpProto == "" {
				cpProto = corev1.ProtocolTCP
			}
			if cp.Name == p.Port.StrVal && cpProto == c.Protocol && cp.ContainerPort == c.Port {
				return true
			}
		}
	}
	return false
}

// peersMatch reports whether one of a rule's peers is the other end (no
// peers: everyone); ns is the policy's namespace.
func peersMatch(peers []networkingv1.NetworkPolicyPeer, ns string, other Peer) bool {
	if len(peers) == 0 {
		return true
	}
	for _, p := range peers {
		if peerMatches(p, ns, other) {
			return true
		}
	}
	return false
}

func peerMatches(p networkingv1.NetworkPolicyPeer, ns string, other Peer) bool {
	if p.IPBlock != nil {
		return inBlock(p.IPBlock, other.IP)
	}
	if other.Pod == nil {
		return false // pod and namespace selectors select pods only
	}
	if p.NamespaceSelector != nil {
		if !matches(p.NamespaceSelector, other.NamespaceLabels) {
			return false
		}
	} else if other.Pod.Namespace != ns {
		return false // a podSelector alone selects in the policy's namespace
	}
	return p.PodSelector == nil || matches(p.PodSelector, other.Pod.Labels)
}

// inBlock reports whether ip is in the block's CIDR and none of its
// exceptions.
func inBlock(b *networkingv1.IPBlock, ip string) bool {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	cidr, err := netip.ParsePrefix(b.CIDR)
	if err != nil || !cidr.Masked().Contains(addr) {
		return false
	}
	for _, ex := range b.Except {
		if e, err := netip.ParsePrefix(ex); err == nil && e.Masked().Contains(addr) {
			return false
		}
	}
	return true
}

// names lists policies as ns/a, ns/b (sorted) for a reason.
func names(ns string, list []string) string {
	slices.Sort(list)
	out := ""
	for i, n := range list {
		if i > 0 {
			out += ", "
		}
		out += ns + "/" + n
	}
	return out
}
