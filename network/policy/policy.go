package policy

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

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
	// The client's egress first, then the server's ingress.
	for _, d := range []struct {
		t           networkingv1.PolicyType
		side, other Peer
		toward      string // how the reason names the other end
	}{
		{networkingv1.PolicyTypeEgress, c.From, c.To, "to"},
		{networkingv1.PolicyTypeIngress, c.To, c.From, "from"},
	} {
		if d.side.Pod == nil {
			continue
		}
		isolating, allowed := limits(c, policies, d.t, d.side.Pod, d.other)
		if len(isolating) > 0 && !allowed {
			return Verdict{Reason: fmt.Sprintf("the %s of %s is limited by NetworkPolicy %s, and no rule allows %s %d %s %s",
				strings.ToLower(string(d.t)), d.side, names(d.side.Pod.Namespace, isolating), c.Protocol, c.Port, d.toward, d.other)}
		}
	}
	return Verdict{Allowed: true}
}

// limits returns the policies that isolate pod, one end of c, for
// direction t (Egress for the client, Ingress for the server), and
// whether one of their rules of that direction allows c from or to other,
// the other end.
func limits(c Connection, policies []*networkingv1.NetworkPolicy, t networkingv1.PolicyType, pod *corev1.Pod, other Peer) (isolating []string, allowed bool) {
	for _, np := range policies {
		if !selects(np, pod, t) {
			continue
		}
		isolating = append(isolating, np.Name)
		for _, r := range rules(np, t) {
			if portsMatch(r.ports, c) && peersMatch(r.peers, np.Namespace, other) {
				allowed = true
			}
		}
	}
	return isolating, allowed
}

// rule is an ingress rule (its peers are from) or an egress rule (to).
type rule struct {
	ports []networkingv1.NetworkPolicyPort
	peers []networkingv1.NetworkPolicyPeer
}

// rules are np's rules of direction t.
func rules(np *networkingv1.NetworkPolicy, t networkingv1.PolicyType) []rule {
	var out []rule
	if t == networkingv1.PolicyTypeEgress {
		for _, r := range np.Spec.Egress {
			out = append(out, rule{r.Ports, r.To})
		}
		return out
	}
	for _, r := range np.Spec.Ingress {
		out = append(out, rule{r.Ports, r.From})
	}
	return out
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
