package kubelet

import (
	"fmt"
	"net/netip"
)

// ipam hands out pod addresses from the node's pod CIDR the way the CNI
// host-local plugin does: in order, round-robin after the last one given,
// skipping addresses in use. The first address (.0) is the network, the
// second (.1) is the node's bridge, which kubesim uses as the node's
// InternalIP unless told otherwise.
type ipam struct {
	prefix netip.Prefix
	first  netip.Addr // first pod address
	last   netip.Addr // last pod address (the broadcast address excluded)
	next   netip.Addr
	inUse  map[netip.Addr]bool
}

func newIPAM(cidr string) (*ipam, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return nil, fmt.Errorf("invalid PodCIDR %q: %w", cidr, err)
	}
	p = p.Masked()
	if !p.Addr().Is4() || p.Bits() > 29 {
		return nil, fmt.Errorf("invalid PodCIDR %q: want an IPv4 range of at least 8 addresses (/29 or wider)", cidr)
	}
	first := p.Addr().Next().Next()
	last := lastAddr(p).Prev()
	return &ipam{prefix: p, first: first, last: last, next: first, inUse: map[netip.Addr]bool{}}, nil
}

// lastAddr is the broadcast address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 1
	v := (uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])) | host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// gateway is the .1 address of the range.
func (a *ipam) gateway() string { return a.prefix.Addr().Next().String() }

// allocate returns the next free address.
func (a *ipam) allocate() (string, error) {
	ip := a.next
	for {
		if !a.inUse[ip] {
			a.inUse[ip] = true
			a.next = a.advance(ip)
			return ip.String(), nil
		}
		ip = a.advance(ip)
		if ip == a.next {
			return "", fmt.Errorf("no IP addresses available in range set: %s-%s", a.first, a.last)
		}
	}
}

func (a *ipam) advance(ip netip.Addr) netip.Addr {
	if ip == a.last {
		return a.first
	}
	return ip.Next()
}

// reserve marks an address already given (found in a pod's status) as used.
func (a *ipam) reserve(s string) {
	if ip, err := netip.ParseAddr(s); err == nil && a.prefix.Contains(ip) {
		a.inUse[ip] = true
	}
}

// release frees an address.
func (a *ipam) release(s string) {
	if ip, err := netip.ParseAddr(s); err == nil {
		delete(a.inUse, ip)
	}
}
