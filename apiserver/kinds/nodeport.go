package kinds

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/store"
)

// The node port range: kube-apiserver's --service-node-port-range default.
const (
	NodePortRangeBase = 30000
	NodePortRangeSize = 2768 // 30000-32767
)

// NodePortAllocator hands out the node ports of NodePort and LoadBalancer
// Services (pkg/registry/core/service/portallocator). Like the cluster IP
// allocator, one exists per API server and rebuilds itself from the stored
// Services on first use.
//
// Kubernetes picks ports at random, from the upper part of the range first,
// leaving the lower part (min(max(16, size/32), 128) ports: 30000-30085)
// to ports that clients ask for; kubesim walks the upper part in order and
// then the lower one, so runs are reproducible. Left out: the repair loop.
type NodePortAllocator struct {
	base, size, static int32

	mu      sync.Mutex
	storage store.Interface
	loaded  bool
	// used maps a port to the Service holding it ("namespace/name").
	used map[int32]string
	// next is the offset where the next search starts.
	next int32
}

// NewNodePortAllocator returns an allocator over base..base+size-1.
func NewNodePortAllocator(base, size int32) *NodePortAllocator {
	static := min(max(16, size/32), 128)
	if static >= size {
		static = 0
	}
	return &NodePortAllocator{base: base, size: size, static: static, used: map[int32]string{}, next: static}
}

func (a *NodePortAllocator) rangeString() string {
	return fmt.Sprintf("%d-%d", a.base, a.base+a.size-1)
}

// needsNodePorts: NodePort and LoadBalancer Services get a port on every
// node for each of their ports.
func needsNodePorts(s *corev1.Service) bool {
	return s.Spec.Type == corev1.ServiceTypeNodePort || s.Spec.Type == corev1.ServiceTypeLoadBalancer
}

// decorate remembers the Services' storage and frees the node ports of
// deleted Services.
func (a *NodePortAllocator) decorate(st store.Interface) store.Interface {
	a.mu.Lock()
	a.storage = st
	a.mu.Unlock()
	return nodePortReleasingStorage{Interface: st, a: a}
}

type nodePortReleasingStorage struct {
	store.Interface
	a *NodePortAllocator
}

// Delete frees the deleted Service's node ports.
func (r nodePortReleasingStorage) Delete(ctx context.Context, key string, pre store.Preconditions) (store.KeyValue, error) {
	kv, err := r.Interface.Delete(ctx, key, pre)
	if err == nil {
		var svc corev1.Service
		if json.Unmarshal(kv.Value, &svc) == nil {
			r.a.release(serviceKey(&svc), nodePortsOf(&svc))
		}
	}
	return kv, err
}

func nodePortsOf(s *corev1.Service) []int32 {
	var out []int32
	for _, p := range s.Spec.Ports {
		if p.NodePort != 0 {
			out = append(out, p.NodePort)
		}
	}
	return out
}

// load reads the stored Services once. Callers hold a.mu.
func (a *NodePortAllocator) load(ctx context.Context) error {
	if a.loaded || a.storage == nil {
		return nil
	}
	res, err := a.storage.List(ctx, servicesPrefix, store.ListOptions{})
	if err != nil {
		return api.NewInternalError(fmt.Errorf("reading services to rebuild the node port allocator: %w", err))
	}
	for _, kv := range res.Items {
		var svc corev1.Service
		if json.Unmarshal(kv.Value, &svc) != nil {
			continue
		}
		for _, p := range nodePortsOf(&svc) {
			// Claimed now if stored before their claims (sharedclaims.go).
			if _, err := a.claimShared(ctx, p, serviceKey(&svc)); err != nil {
				return err
			}
			a.used[p] = serviceKey(&svc)
		}
	}
	a.loaded = true
	return nil
}

// allocate fills in svc's missing node ports and checks the requested
// ones; it returns the ports it took (none on a dry run, and none already
// held by svc).
func (a *NodePortAllocator) allocate(ctx context.Context, svc *corev1.Service, dryRun bool) ([]int32, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.load(ctx); err != nil {
		return nil, err
	}
	key := serviceKey(svc)
	var taken []int32
	undo := func() {
		for _, p := range taken {
			delete(a.used, p)
			a.unclaimShared(p)
		}
	}
	// take holds p for svc; false when another server claimed it first.
	take := func(p int32) (bool, error) {
		if dryRun {
			return true, nil
		}
		if held, err := a.claimShared(ctx, p, key); err != nil || held {
			return false, err
		}
		a.used[p] = key
		taken = append(taken, p)
		return true, nil
	}
	for i := range svc.Spec.Ports {
		port := &svc.Spec.Ports[i]
		path := field.NewPath("spec", "ports").Index(i).Child("nodePort")
		if want := port.NodePort; want != 0 {
			switch holder := a.used[want]; {
			case want < a.base || want >= a.base+a.size:
				undo()
				return nil, api.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, field.ErrorList{field.Invalid(path, want,
					"provided port is not in the valid range. The range of valid ports is "+a.rangeString())})
			case holder == key:
			case holder != "" && holder != heldElsewhere: // another server's claim may be gone: ask the store
				undo()
				return nil, api.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, field.ErrorList{field.Invalid(path, want,
					"provided port is already allocated")})
			default:
				ok, err := take(want)
				if err != nil || !ok {
					undo()
					if err != nil {
						return nil, err
					}
					return nil, api.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, field.ErrorList{field.Invalid(path, want,
						"provided port is already allocated")})
				}
			}
			continue
		}
		for {
			p, ok := a.nextFree(svc)
			if !ok {
				undo()
				return nil, api.NewInternalError(fmt.Errorf("failed to allocate a nodePort: range is full"))
			}
			ok, err := take(p)
			if err != nil {
				undo()
				return nil, err
			}
			if ok {
				port.NodePort = p
				break
			}
		}
	}
	return taken, nil
}

// nextFree finds a free port: the upper part of the range in order from
// where the last search ended, then the lower part. Ports svc already
// names count as taken. Callers hold a.mu.
func (a *NodePortAllocator) nextFree(svc *corev1.Service) (int32, bool) {
	inSvc := map[int32]bool{}
	for _, p := range nodePortsOf(svc) {
		inSvc[p] = true
	}
	free := func(off int32) bool { return a.used[a.base+off] == "" && !inSvc[a.base+off] }
	dynamic := a.size - a.static
	for i := range dynamic {
		off := a.static + (a.next-a.static+i)%dynamic
		if free(off) {
			a.next = off + 1
			return a.base + off, true
		}
	}
	for off := range a.static {
		if free(off) {
			return a.base + off, true
		}
	}
	return 0, false
}

// release gives back the ports key holds among ports.
func (a *NodePortAllocator) release(key string, ports []int32) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range ports {
		if h := a.used[p]; h == key || h == heldElsewhere || !a.loaded {
			delete(a.used, p)
			a.unclaimShared(p)
		}
	}
}

// servicePortClaimKey claims one node port in a shared store
// (kube-apiserver's bitmap is the RangeAllocation at
// /registry/ranges/servicenodeports).
func servicePortClaimKey(p int32) string {
	return fmt.Sprintf("/registry/ranges/servicenodeports/%d", p)
}

// claimShared claims p in a store shared with other API servers; a claim
// found taken is remembered. Callers hold a.mu.
func (a *NodePortAllocator) claimShared(ctx context.Context, p int32, owner string) (bool, error) {
	if !isShared(a.storage) {
		return false, nil
	}
	held, err := claim(ctx, a.storage, servicePortClaimKey(p), owner)
	if held {
		a.used[p] = heldElsewhere
	}
	return held, err
}

func (a *NodePortAllocator) unclaimShared(p int32) {
	if isShared(a.storage) {
		unclaim(a.storage, servicePortClaimKey(p))
	}
}

// Allocated reports which Service holds port ("namespace/name"), if any.
func (a *NodePortAllocator) Allocated(port int32) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	key, ok := a.used[port]
	return key, ok
}

// BeginCreate gives a new NodePort or LoadBalancer Service its node ports;
// a create that fails gives them back.
func (a *NodePortAllocator) BeginCreate(ctx context.Context, obj api.Object, dryRun bool) (registry.FinishFunc, error) {
	svc := obj.(*corev1.Service)
	if !needsNodePorts(svc) {
		return func(bool) {}, nil
	}
	taken, err := a.allocate(ctx, svc, dryRun)
	if err != nil {
		return nil, err
	}
	key := serviceKey(svc)
	return func(ok bool) {
		if !ok {
			a.release(key, taken)
		}
	}, nil
}

// BeginUpdate allocates the ports an update adds (a ClusterIP Service
// turned NodePort, a new port) and, once the update is stored, frees the
// ports it no longer uses.
func (a *NodePortAllocator) BeginUpdate(ctx context.Context, obj, old api.Object, dryRun bool) (registry.FinishFunc, error) {
	svc, prev := obj.(*corev1.Service), old.(*corev1.Service)
	var taken []int32
	if needsNodePorts(svc) {
		var err error
		if taken, err = a.allocate(ctx, svc, dryRun); err != nil {
			return nil, err
		}
	}
	key := serviceKey(svc)
	return func(ok bool) {
		if !ok {
			a.release(key, taken)
			return
		}
		keep := map[int32]bool{}
		if needsNodePorts(svc) {
			for _, p := range nodePortsOf(svc) {
				keep[p] = true
			}
		}
		var gone []int32
		for _, p := range nodePortsOf(prev) {
			if !keep[p] {
				gone = append(gone, p)
			}
		}
		a.release(key, gone)
	}, nil
}

// serviceAllocators runs both allocators a Service needs, the cluster IP
// first, as the Service REST storage does.
type serviceAllocators struct {
	ips   *ClusterIPAllocator
	ports *NodePortAllocator
}

func (s serviceAllocators) decorate(st store.Interface) store.Interface {
	return s.ports.decorate(s.ips.decorate(st))
}

// BeginCreate implements registry.Resource.BeginCreate.
func (s serviceAllocators) BeginCreate(ctx context.Context, obj api.Object, dryRun bool) (registry.FinishFunc, error) {
	ipDone, err := s.ips.BeginCreate(ctx, obj, dryRun)
	if err != nil {
		return nil, err
	}
	portsDone, err := s.ports.BeginCreate(ctx, obj, dryRun)
	if err != nil {
		ipDone(false)
		return nil, err
	}
	return func(ok bool) { ipDone(ok); portsDone(ok) }, nil
}

// BeginUpdate implements registry.Resource.BeginUpdate.
func (s serviceAllocators) BeginUpdate(ctx context.Context, obj, old api.Object, dryRun bool) (registry.FinishFunc, error) {
	ipDone, err := s.ips.BeginUpdate(ctx, obj, old, dryRun)
	if err != nil {
		return nil, err
	}
	portsDone, err := s.ports.BeginUpdate(ctx, obj, old, dryRun)
	if err != nil {
		ipDone(false)
		return nil, err
	}
	return func(ok bool) { ipDone(ok); portsDone(ok) }, nil
}
