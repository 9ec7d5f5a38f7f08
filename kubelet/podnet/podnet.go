// Package podnet is kubesim's pod network. Pod IPs are simulated (the
// kubelet gives them from its node's range; nothing listens there), except
// for the few images the kubelet runs for real (package kubelet's
// Config.Images): those listen on a loopback port, and the network records
// "pod IP:container port is really 127.0.0.1:port". Dialing through the
// network follows that table, as packets to a pod IP would be routed to
// its sandbox by a real CNI plugin.
//
// A dial to any other address inside PodCIDR ("10.0.0.0/8") goes to the
// kubelet of the node whose pod range has it (ServeNode), which answers
// with what the pod's simulated container serves there, or is refused, as
// a pod with no process listening refuses it; other addresses (an
// ExternalName service's host) are dialed directly.
//
// Real counterpart: the CNI plugin and the node's routes; there is none to
// read here, it is a table.
package podnet

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"sort"
	"sync"
	"syscall"
	"time"
)

// PodCIDR covers every simulated pod address (nodes get 10.244.x.0/24).
const PodCIDR = "10.0.0.0/8"

// Network maps simulated pod addresses to real ones. The zero value is not
// usable; call New.
type Network struct {
	mu    sync.RWMutex
	addrs map[string]string
	pods  *net.IPNet
	// nodes answer for their simulated pods, by pod range (simulated.go).
	nodes map[netip.Prefix]SimulatedDialer
}

// New returns an empty network.
func New() *Network {
	_, pods, _ := net.ParseCIDR(PodCIDR)
	return &Network{addrs: map[string]string{}, pods: pods}
}

// Register says that podAddr ("10.244.0.5:443") is served at realAddr
// ("127.0.0.1:40123").
func (n *Network) Register(podAddr, realAddr string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.addrs[podAddr] = realAddr
}

// Unregister forgets podAddr (its process stopped).
func (n *Network) Unregister(podAddr string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.addrs, podAddr)
}

// Lookup returns the real address of podAddr.
func (n *Network) Lookup(podAddr string) (string, bool) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	a, ok := n.addrs[podAddr]
	return a, ok
}

// Entries lists "podAddr -> realAddr", sorted (for kubesim's diagnostics).
func (n *Network) Entries() []string {
	n.mu.RLock()
	defer n.mu.RUnlock()
	out := make([]string, 0, len(n.addrs))
	for k, v := range n.addrs {
		out = append(out, k+" -> "+v)
	}
	sort.Strings(out)
	return out
}

// DialContext dials addr through the network.
func (n *Network) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second}
	if real, ok := n.Lookup(addr); ok {
		return d.DialContext(ctx, network, real)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip != nil && n.pods.Contains(ip) {
		if c, ok := n.dialSimulated(ctx, host, port); ok {
			return c, nil
		}
		return nil, &net.OpError{Op: "dial", Net: network, Addr: simAddr(addr),
			Err: fmt.Errorf("connect: %w", syscall.ECONNREFUSED)}
	}
	return d.DialContext(ctx, network, addr)
}

// simAddr is a net.Addr for an address that only exists in the simulation.
type simAddr string

func (a simAddr) Network() string { return "tcp" }
func (a simAddr) String() string  { return string(a) }
