package podnet

import (
	"context"
	"net"
	"net/netip"
)

// SimulatedDialer connects to port of a simulated pod address ip of its
// node: the connection is answered by what the pod's container listens
// with (the kubelet's simulated servers); ok false when nothing listens
// there.
type SimulatedDialer func(ctx context.Context, ip, port string) (conn net.Conn, ok bool)

// ServeNode says that the simulated pods of the node whose pod range is
// cidr are reached through d: a connection to a pod address is routed to
// its node, as a CNI plugin's routes send it, and that node's kubelet —
// the only one that knows its pods — answers for them.
func (n *Network) ServeNode(cidr netip.Prefix, d SimulatedDialer) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.nodes == nil {
		n.nodes = map[netip.Prefix]SimulatedDialer{}
	}
	n.nodes[cidr.Masked()] = d
}

// ForgetNode undoes ServeNode: a pod address a CNI plugin gave (served as
// a /32 while its sandbox lives) is no longer routed once the sandbox is
// torn down.
func (n *Network) ForgetNode(cidr netip.Prefix) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.nodes, cidr.Masked())
}

// dialSimulated routes a connection to ip:port to the node that has ip,
// by the longest matching range as a routing table does (a pod address
// given by a CNI plugin, served as a /32, wins over a node's range);
// ok false when no node has it or nothing listens there.
func (n *Network) dialSimulated(ctx context.Context, ip, port string) (net.Conn, bool) {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return nil, false
	}
	n.mu.RLock()
	var d SimulatedDialer
	best := -1
	for cidr, nd := range n.nodes {
		if cidr.Contains(addr) && cidr.Bits() > best {
			d, best = nd, cidr.Bits()
		}
	}
	n.mu.RUnlock()
	if d == nil {
		return nil, false
	}
	return d(ctx, ip, port)
}

// sourceKey is the context key of a connection's source address.
type sourceKey struct{}

// WithSource says that connections dialed with ctx come from the address
// ip (the client pod's): the server sees it as the peer's address, as a
// pod sees its client's.
func WithSource(ctx context.Context, ip string) context.Context {
	return context.WithValue(ctx, sourceKey{}, ip)
}

// Source is the source address WithSource gave ctx, or "".
func Source(ctx context.Context) string {
	ip, _ := ctx.Value(sourceKey{}).(string)
	return ip
}

// Pipe is a connection between a client at local and a server at remote
// that exists only in the simulation: what one end writes the other
// reads, and each end can close its writing half (CloseWrite), as a TCP
// connection's FIN, so that a server reading to the end of a request
// sees it end.
func Pipe(local, remote string) (client, server net.Conn) {
	c2s, s2c := newHalf(), newHalf()
	client = &pipeConn{r: s2c, w: c2s, local: simAddr(local), remote: simAddr(remote)}
	server = &pipeConn{r: c2s, w: s2c, local: simAddr(remote), remote: simAddr(local)}
	return client, server
}
