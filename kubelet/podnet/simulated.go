package podnet

import (
	"context"
	"net/netip"
)

// SimulatedServer answers an HTTP GET for path sent to port of a
// simulated pod address ip: what the pod's image is known to serve (the
// kubelet's clusternet.go), ok false when nothing listens there.
type SimulatedServer func(ctx context.Context, ip, port, path string) (code int, body []byte, ok bool)

// ServeNode says that the simulated pods of the node whose pod range is
// cidr are answered by s: a connection to a pod address is routed to its
// node, as a CNI plugin's routes send it, and that node's kubelet — the
// only one that knows its pods — answers for them.
func (n *Network) ServeNode(cidr netip.Prefix, s SimulatedServer) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.nodes == nil {
		n.nodes = map[netip.Prefix]SimulatedServer{}
	}
	n.nodes[cidr.Masked()] = s
}

// SimulatedGet routes an HTTP GET to ip:port to the node that has ip;
// ok false when no node has it or nothing listens there.
func (n *Network) SimulatedGet(ctx context.Context, ip, port, path string) (int, []byte, bool) {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return 0, nil, false
	}
	n.mu.RLock()
	var s SimulatedServer
	for cidr, srv := range n.nodes {
		if cidr.Contains(addr) {
			s = srv
		}
	}
	n.mu.RUnlock()
	if s == nil {
		return 0, nil, false
	}
	return s(ctx, ip, port, path)
}
