// Package policy decides whether a NetworkPolicy lets one connection
// through: the part of a CNI plugin with NetworkPolicy support (Calico's
// Felix, Cilium's agent, kind's kindnetd) that turns the NetworkPolicies
// of the cluster into a verdict on each packet of a new connection. It
// is the API's semantics (networking.k8s.io/v1 NetworkPolicy, see
// https://kubernetes.io/docs/concepts/services-networking/network-policies/)
// as a pure function: kubesim's kubelet asks it before a container's
// nslookup or wget reaches a pod (kubelet/clusternet.go), and the answer
// "dropped" is what the container sees as a timeout.
//
// The rules, as every conformant plugin applies them:
//
//   - A pod is isolated for ingress when a policy of its namespace selects
//     it (spec.podSelector) and lists Ingress in policyTypes; isolated for
//     egress likewise with Egress. A pod no policy isolates accepts and
//     sends everything: policies only ever add allowed traffic to an
//     isolated pod, never take any away, and their order does not matter.
//   - A connection passes when the client's egress allows it (or the
//     client is not isolated for egress) and the server's ingress allows
//     it (or the server is not isolated for ingress). Replies pass: the
//     plugin tracks connections.
//   - A rule allows a connection when one of its ports matches (no ports:
//     every port) and one of its peers matches (no peers: everyone).
//   - A peer is podSelector (pods of the policy's own namespace),
//     namespaceSelector (every pod of the namespaces it selects), both
//     (the pods podSelector selects in those namespaces), or ipBlock (a
//     CIDR less its exceptions).
//   - A port is a protocol (TCP unless said), and a number, a range
//     (port..endPort) or a name, which is looked up among the server
//     pod's container ports; no port: every port of that protocol.
//
// Left out: what the API leaves to each plugin — traffic to and from the
// node (kubelet probes always pass here because they do not go through
// this package at all), hostNetwork pods (the caller treats them as no
// pod), whether an ipBlock matches pod addresses (it does here, as in
// Calico and Cilium, when the caller gives the pod's IP) and Services'
// cluster IPs (it does not: policies see the pod a Service's address was
// translated to, as plugins placed after kube-proxy do); SCTP is matched
// like the others; AdminNetworkPolicy and plugins' own policy kinds.
//
// Read the real ones: the API reference (k8s.io/api/networking/v1
// types.go) and, for an implementation, kube-network-policies
// (sigs.k8s.io/kube-network-policies, pkg/networkpolicy), which kindnetd
// uses.
package policy
