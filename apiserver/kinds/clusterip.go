package kinds

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/store"
)

// ServiceClusterIPRange is the range Service cluster IPs come from:
// kube-apiserver's --service-cluster-ip-range, here fixed at the default
// of kubeadm and most installers.
const ServiceClusterIPRange = "10.96.0.0/12"

// servicesPrefix is where Services are stored (registry.Store's key
// layout for the core group).
const servicesPrefix = "/registry/core/services/"

// ClusterIPAllocator hands out Service cluster IPs from one range
// (pkg/registry/core/service/ipallocator). One exists per API server: the
// stored Services are the source of truth, so the allocator starts empty
// and reads them on first use, which also rebuilds it after a restart.
//
// Kubernetes picks addresses at random, preferring the upper part of the
// range and leaving the lower part (here the first 256 addresses) to
// addresses that clients ask for, such as 10.96.0.10 for DNS; kubesim
// walks the upper part in order, so runs are reproducible. The first
// address, .1, is the kubernetes Service's by convention and is never
// handed out unasked. Left out: dual stack, the repair loop (objects are
// read once, and every later change goes through this allocator), and
// IPAddress objects.
type ClusterIPAllocator struct {
	cidr netip.Prefix
	// base is the network address; size counts the addresses after it
	// that may be used (the broadcast address excluded).
	base, size uint32
	// static is how many addresses at the start are kept for requests.
	static uint32

	mu      sync.Mutex
	storage store.Interface
	loaded  bool
	// used maps an offset in the range to the Service holding it
	// ("namespace/name").
	used map[uint32]string
	// next is where the next search for a free address starts.
	next uint32
}

// NewClusterIPAllocator returns an allocator over cidr ("10.96.0.0/12").
func NewClusterIPAllocator(cidr string) (*ClusterIPAllocator, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() || p.Bits() > 30 {
		return nil, fmt.Errorf("service cluster IP range %q: want an IPv4 CIDR of at least 4 addresses", cidr)
	}
	p = p.Masked()
	a := p.Addr().As4()
	size := uint32(1)<<(32-p.Bits()) - 2
	static := min(max(size/16, 16), 256)
	if static >= size {
		static = 1
	}
	return &ClusterIPAllocator{cidr: p, base: binary.BigEndian.Uint32(a[:]), size: size, static: static,
		used: map[uint32]string{}, next: static}, nil
}

// Range is the CIDR the allocator serves.
func (a *ClusterIPAllocator) Range() string { return a.cidr.String() }

// decorate remembers the Services' storage (to read them on first use) and
// frees the addresses of deleted Services: a delete removes the key, by
// whatever path it comes (kubectl delete, namespace cleanup, a finalizer
// removed), as Kubernetes' AfterDelete does.
func (a *ClusterIPAllocator) decorate(st store.Interface) store.Interface {
	a.mu.Lock()
	a.storage = st
	a.mu.Unlock()
	return releasingStorage{Interface: st, a: a}
}

type releasingStorage struct {
	store.Interface
	a *ClusterIPAllocator
}

// Delete frees the deleted Service's cluster IPs.
func (r releasingStorage) Delete(ctx context.Context, key string, pre store.Preconditions) (store.KeyValue, error) {
	kv, err := r.Interface.Delete(ctx, key, pre)
	if err == nil {
		var svc corev1.Service
		if json.Unmarshal(kv.Value, &svc) == nil {
			r.a.release(serviceKey(&svc), svc.Spec.ClusterIPs)
		}
	}
	return kv, err
}

// SharedBetweenServers passes the store's answer on to the node port
// allocator, which decorates this one.
func (r releasingStorage) SharedBetweenServers() bool { return isShared(r.Interface) }

func serviceKey(s *corev1.Service) string { return s.Namespace + "/" + s.Name }

// load reads the stored Services once. Callers hold a.mu.
func (a *ClusterIPAllocator) load(ctx context.Context) error {
	if a.loaded || a.storage == nil {
		return nil
	}
	res, err := a.storage.List(ctx, servicesPrefix, store.ListOptions{})
	if err != nil {
		return api.NewInternalError(fmt.Errorf("reading services to rebuild the cluster IP allocator: %w", err))
	}
	for _, kv := range res.Items {
		var svc corev1.Service
		if json.Unmarshal(kv.Value, &svc) != nil {
			continue
		}
		for _, ip := range svc.Spec.ClusterIPs {
			if off, ok := a.offset(ip); ok {
				a.used[off] = serviceKey(&svc)
				// Services stored before their claims (an import):
				// claim their addresses now, or another server could.
				if _, err := a.claimShared(ctx, off, serviceKey(&svc)); err != nil {
					return err
				}
				a.used[off] = serviceKey(&svc)
			}
		}
	}
	a.loaded = true
	return nil
}

// offset places ip in the range; ok is false outside it (network and
// broadcast addresses included).
func (a *ClusterIPAllocator) offset(ip string) (uint32, bool) {
	addr, err := netip.ParseAddr(ip)
	if err != nil || !addr.Is4() || !a.cidr.Contains(addr) {
		return 0, false
	}
	b := addr.As4()
	off := binary.BigEndian.Uint32(b[:]) - a.base
	return off, off >= 1 && off <= a.size
}

func (a *ClusterIPAllocator) ip(off uint32) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], a.base+off)
	return netip.AddrFrom4(b).String()
}

// needsClusterIP: every Service but ExternalName and headless ones gets
// an address.
func needsClusterIP(s *corev1.Service) bool {
	return s.Spec.Type != corev1.ServiceTypeExternalName && s.Spec.ClusterIP != corev1.ClusterIPNone
}

// allocate gives svc its cluster IP: the one asked for if it is free, else
// the next free one. A dry run reports the address without taking it. It
// returns the offset taken (0 when nothing was taken).
func (a *ClusterIPAllocator) allocate(ctx context.Context, svc *corev1.Service, dryRun bool) (uint32, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.load(ctx); err != nil {
		return 0, err
	}
	spec := &svc.Spec
	if want := spec.ClusterIP; want != "" {
		path := field.NewPath("spec", "clusterIPs")
		off, ok := a.offset(want)
		switch {
		case !ok:
			return 0, api.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, field.ErrorList{field.Invalid(path, spec.ClusterIPs,
				fmt.Sprintf("failed to allocate IP %s: the provided IP (%s) is not in the valid range. The range of valid IPs is %s", want, want, a.cidr))})
		case a.used[off] != "" && a.used[off] != heldElsewhere: // another server's claim may be gone: ask the store
			return 0, api.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, field.ErrorList{field.Invalid(path, spec.ClusterIPs,
				fmt.Sprintf("failed to allocate IP %s: provided IP is already allocated", want))})
		}
		if dryRun {
			return 0, nil
		}
		if taken, err := a.claimShared(ctx, off, serviceKey(svc)); err != nil {
			return 0, err
		} else if taken {
			return 0, api.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, field.ErrorList{field.Invalid(path, spec.ClusterIPs,
				fmt.Sprintf("failed to allocate IP %s: provided IP is already allocated", want))})
		}
		a.used[off] = serviceKey(svc)
		return off, nil
	}
	dynamic := a.size - a.static + 1
	for i := range dynamic {
		off := a.static + (a.next-a.static+i)%dynamic
		if a.used[off] != "" {
			continue
		}
		spec.ClusterIP, spec.ClusterIPs = a.ip(off), []string{a.ip(off)}
		if dryRun {
			return 0, nil
		}
		if taken, err := a.claimShared(ctx, off, serviceKey(svc)); err != nil {
			return 0, err
		} else if taken {
			continue // claimed through another server since this one last looked
		}
		a.used[off] = serviceKey(svc)
		a.next = off + 1
		return off, nil
	}
	return 0, api.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: range is full"))
}

// claimShared claims off in a store shared with other API servers
// (sharedclaims.go); with a store of its own the map is enough. A claim
// found taken is remembered. Callers hold a.mu.
func (a *ClusterIPAllocator) claimShared(ctx context.Context, off uint32, owner string) (bool, error) {
	if !isShared(a.storage) {
		return false, nil
	}
	taken, err := claim(ctx, a.storage, serviceIPClaimKey(a.ip(off)), owner)
	if taken {
		a.used[off] = heldElsewhere
	}
	return taken, err
}

// releaseOffset gives back one address if key still holds it. In a
// shared store the claim key goes too, whichever server made it: the
// Service held the address.
func (a *ClusterIPAllocator) releaseOffset(key string, off uint32) {
	if off == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used[off] == key || a.used[off] == heldElsewhere || !a.loaded {
		delete(a.used, off)
		if isShared(a.storage) {
			unclaim(a.storage, serviceIPClaimKey(a.ip(off)))
		}
	}
}

// release gives back the addresses key holds among ips.
func (a *ClusterIPAllocator) release(key string, ips []string) {
	for _, ip := range ips {
		if off, ok := a.offset(ip); ok {
			a.releaseOffset(key, off)
		}
	}
}

// Allocated reports which Service holds ip ("namespace/name"), if any.
func (a *ClusterIPAllocator) Allocated(ip string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	off, ok := a.offset(ip)
	if !ok {
		return "", false
	}
	key, ok := a.used[off]
	return key, ok
}

// BeginCreate allocates the new Service's cluster IP
// (registry.Resource.BeginCreate); a create that fails gives it back.
func (a *ClusterIPAllocator) BeginCreate(ctx context.Context, obj api.Object, dryRun bool) (registry.FinishFunc, error) {
	svc := obj.(*corev1.Service)
	if !needsClusterIP(svc) {
		return func(bool) {}, nil
	}
	off, err := a.allocate(ctx, svc, dryRun)
	if err != nil {
		return nil, err
	}
	key := serviceKey(svc)
	return func(ok bool) {
		if !ok {
			a.releaseOffset(key, off)
		}
	}, nil
}

// BeginUpdate allocates an address for a Service that turns from
// ExternalName into one that needs it, and frees the address of one that
// turns into ExternalName once the update is stored. A cluster IP never
// changes otherwise (validation refuses it).
func (a *ClusterIPAllocator) BeginUpdate(ctx context.Context, obj, old api.Object, dryRun bool) (registry.FinishFunc, error) {
	svc, prev := obj.(*corev1.Service), old.(*corev1.Service)
	key := serviceKey(svc)
	had := len(prev.Spec.ClusterIPs) > 0 && prev.Spec.ClusterIP != corev1.ClusterIPNone
	switch {
	case !had && needsClusterIP(svc):
		if svc.Spec.ClusterIP != "" && strings.Join(svc.Spec.ClusterIPs, ",") == strings.Join(prev.Spec.ClusterIPs, ",") {
			return func(bool) {}, nil
		}
		return a.BeginCreate(ctx, svc, dryRun)
	case had && svc.Spec.Type == corev1.ServiceTypeExternalName:
		return func(ok bool) {
			if ok {
				a.release(key, prev.Spec.ClusterIPs)
			}
		}, nil
	}
	return func(bool) {}, nil
}
