package deviceplugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/clock"
)

// KubeletSocket is the name of the kubelet's registration socket in the
// device plugin directory.
const KubeletSocket = "kubelet.sock"

// CheckpointFile is where the allocations are written, in the device
// plugin directory (the real kubelet's file of that name; the format is
// kubesim's, see Checkpoint).
const CheckpointFile = "kubelet_internal_checkpoint"

// EndpointStopGracePeriod is how long the devices of a plugin whose
// stream ended are kept (unhealthy) before they are forgotten: the
// kubelet's endpointStopGracePeriod.
const EndpointStopGracePeriod = 5 * time.Minute

// callTimeout bounds each call to a plugin: the kubelet's dial timeout
// and its PreStartContainer timeout
// (KubeletPreStartContainerRPCTimeoutInSecs) are of this order.
const callTimeout = pluginapi.KubeletPreStartContainerRPCTimeoutInSecs * time.Second

// The kubelet's answers to a bad Register (devicemanager's
// errUnsupportedVersion and errInvalidResourceName).
const (
	errUnsupportedVersion  = "requested API version %q is not supported by kubelet. Supported versions are %q"
	errInvalidResourceName = "the ResourceName %q is invalid"
)

// Config builds a Manager.
type Config struct {
	// Dir is the device plugin directory (a real node's
	// /var/lib/kubelet/device-plugins): the kubelet's socket, the
	// plugins' sockets and the checkpoint live in it. Required.
	Dir string
	// Clock times the grace of a plugin that went away (required).
	Clock clock.Clock
	// OnChange, when set, is told when the resources' devices or their
	// health changed: the node status should be posted.
	OnChange func()
	// OnCall, when set, is told of each call the kubelet makes to a
	// plugin while it admits or starts a pod, before it is made, as
	// "Allocate example.com/gpu default/web/app [gpu-0 gpu-1]": the step
	// trace shows it.
	OnCall func(call string)
	// Logger logs registrations and streams (discarded when nil).
	Logger *slog.Logger
}

// Manager is one node's device manager.
type Manager struct {
	pluginapi.UnimplementedRegistrationServer

	cfg    Config
	server *grpc.Server
	served chan struct{}

	// allocMu makes one admission at a time, as the kubelet admits pods
	// one by one: the devices a pod is given are not given to another.
	allocMu sync.Mutex

	mu        sync.Mutex
	resources map[string]*resourceState
	// allocated are the allocations by pod uid and container name.
	allocated map[string]map[string][]*Allocation
	closed    bool
}

// resourceState is what the manager knows of one registered resource.
type resourceState struct {
	// endpoint is the plugin's connection while its stream is open.
	endpoint *endpoint
	// devices are the last list the stream sent, by id.
	devices map[string]*pluginapi.Device
	// announced is that list, in the plugin's order, once OnChange has
	// been told of it (Announced).
	announced []*pluginapi.Device
	// stoppedAt is when the stream ended (zero while it is open).
	stoppedAt time.Time
}

// endpoint is the kubelet's connection to one plugin's socket.
type endpoint struct {
	resource, socket string
	conn             *grpc.ClientConn
	client           pluginapi.DevicePluginClient
	options          *pluginapi.DevicePluginOptions
	ctx              context.Context
	cancel           context.CancelFunc
}

// Allocation is what a plugin gave one container of one resource.
type Allocation struct {
	Resource  string
	DeviceIDs []string
	// Response is the plugin's answer to Allocate for the container:
	// envs, mounts, device nodes, annotations, CDI devices.
	Response *pluginapi.ContainerAllocateResponse
}

// New checks cfg, makes the directory and serves the Registration
// service on its kubelet.sock.
func New(cfg Config) (*Manager, error) {
	if cfg.Dir == "" || cfg.Clock == nil {
		return nil, errors.New("deviceplugin: Dir and Clock are required")
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("deviceplugin: %w", err)
	}
	cfg.Dir = dir
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("deviceplugin: %w", err)
	}
	sock := filepath.Join(dir, KubeletSocket)
	// A socket left by a kubelet that did not stop cleanly: the kubelet
	// removes it before listening again.
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("deviceplugin: %w", err)
	}
	lis, err := net.Listen("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("deviceplugin: %w", err)
	}
	m := &Manager{cfg: cfg, server: grpc.NewServer(), served: make(chan struct{}),
		resources: map[string]*resourceState{}, allocated: map[string]map[string][]*Allocation{}}
	pluginapi.RegisterRegistrationServer(m.server, m)
	go func() {
		defer close(m.served)
		_ = m.server.Serve(lis)
	}()
	return m, nil
}

// Socket is the path of the kubelet's registration socket.
func (m *Manager) Socket() string { return filepath.Join(m.cfg.Dir, KubeletSocket) }

// Close stops serving, closes the plugins' streams and removes the
// socket; the allocations stay written in the checkpoint.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	var eps []*endpoint
	for _, st := range m.resources {
		if st.endpoint != nil {
			eps = append(eps, st.endpoint)
		}
	}
	m.mu.Unlock()
	m.server.Stop()
	<-m.served
	for _, e := range eps {
		e.stop()
	}
	_ = os.Remove(m.Socket())
}

// Register implements the Registration service: the plugin's version and
// resource name are checked, its socket dialed and its options read, and
// its ListAndWatch stream is kept from then on. A resource registered
// again gets the new endpoint; the old one's stream is closed.
func (m *Manager) Register(ctx context.Context, r *pluginapi.RegisterRequest) (*pluginapi.Empty, error) {
	log := m.cfg.Logger.With("resource", r.ResourceName, "endpoint", r.Endpoint)
	if !slices.Contains(pluginapi.SupportedVersions[:], r.Version) {
		err := fmt.Errorf(errUnsupportedVersion, r.Version, pluginapi.SupportedVersions)
		log.Info("bad registration request from device plugin", "err", err)
		return &pluginapi.Empty{}, err
	}
	if !api.IsExtendedResourceName(corev1.ResourceName(r.ResourceName)) {
		err := fmt.Errorf(errInvalidResourceName, r.ResourceName)
		log.Info("bad registration request from device plugin", "err", err)
		return &pluginapi.Empty{}, err
	}
	e, err := m.connect(ctx, r.ResourceName, filepath.Join(m.cfg.Dir, r.Endpoint))
	if err != nil {
		log.Info("error connecting to device plugin", "err", err)
		return &pluginapi.Empty{}, err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		e.stop()
		return &pluginapi.Empty{}, errors.New("kubelet is shutting down")
	}
	st := m.resources[r.ResourceName]
	if st == nil {
		st = &resourceState{}
		m.resources[r.ResourceName] = st
	}
	old := st.endpoint
	st.endpoint, st.stoppedAt = e, time.Time{}
	m.mu.Unlock()
	if old != nil {
		// Replaced: its stream's end must not mark the devices unhealthy
		// (disconnected sees it is no longer the resource's endpoint).
		old.stop()
	}
	log.Info("registered device plugin", "preStartRequired", e.options.PreStartRequired,
		"getPreferredAllocationAvailable", e.options.GetPreferredAllocationAvailable)
	stream, err := e.client.ListAndWatch(e.ctx, &pluginapi.Empty{})
	if err != nil {
		m.disconnected(e, err)
		return &pluginapi.Empty{}, nil
	}
	go m.watch(e, stream)
	return &pluginapi.Empty{}, nil
}

// connect dials the plugin's socket and reads its options.
func (m *Manager) connect(ctx context.Context, res, socket string) (*endpoint, error) {
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("failed to dial device plugin: %w", err)
	}
	e := &endpoint{resource: res, socket: socket, conn: conn, client: pluginapi.NewDevicePluginClient(conn)}
	// The stream's context, ended by stop.
	e.ctx, e.cancel = context.WithCancel(context.Background())
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	opts, err := e.client.GetDevicePluginOptions(cctx, &pluginapi.Empty{})
	if err != nil {
		e.stop()
		return nil, fmt.Errorf("failed to get device plugin options: %w", err)
	}
	e.options = opts
	return e, nil
}

// stop ends e's stream and closes its connection.
func (e *endpoint) stop() {
	e.cancel()
	_ = e.conn.Close()
}

// watch reads e's ListAndWatch stream until it ends.
func (m *Manager) watch(e *endpoint, stream grpc.ServerStreamingClient[pluginapi.ListAndWatchResponse]) {
	for {
		resp, err := stream.Recv()
		if err != nil {
			m.disconnected(e, err)
			return
		}
		m.update(e, resp.Devices)
	}
}

// update replaces the devices of e's resource with a list its stream
// sent.
func (m *Manager) update(e *endpoint, devs []*pluginapi.Device) {
	m.mu.Lock()
	st := m.resources[e.resource]
	if st == nil || st.endpoint != e {
		m.mu.Unlock()
		return
	}
	st.devices = make(map[string]*pluginapi.Device, len(devs))
	for _, d := range devs {
		st.devices[d.ID] = d
	}
	healthy := 0
	for _, d := range devs {
		if d.Health == pluginapi.Healthy {
			healthy++
		}
	}
	m.mu.Unlock()
	m.cfg.Logger.Info("device plugin sent its devices", "resource", e.resource, "devices", len(devs), "healthy", healthy)
	m.changed()
	m.mu.Lock()
	if st.endpoint == e {
		st.announced = devs
	}
	m.mu.Unlock()
}

// Announced is the last list of devices res's plugin sent, once the
// manager has applied it and told OnChange (the kubelet's heartbeat is
// woken for it); nil before the first. The stream's messages arrive when
// the plugin sends them: step mode waits here for a plugin's list before
// it runs the next unit of work, so the heartbeat that posts it runs at
// the same point of the trace every time.
func (m *Manager) Announced(res string) []*pluginapi.Device {
	m.mu.Lock()
	defer m.mu.Unlock()
	if st := m.resources[res]; st != nil {
		return st.announced
	}
	return nil
}

// disconnected is the end of e's stream: unless e was replaced, every
// device of its resource becomes unhealthy, and the grace begins
// (markResourceUnhealthy).
func (m *Manager) disconnected(e *endpoint, err error) {
	e.stop()
	m.mu.Lock()
	st := m.resources[e.resource]
	if st == nil || st.endpoint != e || m.closed {
		m.mu.Unlock()
		return
	}
	st.endpoint, st.stoppedAt = nil, m.cfg.Clock.Now()
	for id, d := range st.devices {
		st.devices[id] = &pluginapi.Device{ID: d.ID, Health: pluginapi.Unhealthy, Topology: d.Topology}
	}
	m.mu.Unlock()
	m.cfg.Logger.Info("device plugin stream ended; its devices are unhealthy", "resource", e.resource, "err", err)
	m.changed()
}

func (m *Manager) changed() {
	if m.cfg.OnChange != nil {
		m.cfg.OnChange()
	}
}

// Resources are the node's capacity and allocatable of the registered
// resources at now: every device counts in capacity, the healthy ones
// in allocatable; a resource whose plugin has been gone longer than
// EndpointStopGracePeriod counts 0 (kept, not dropped, as the kubelet
// sets a removed resource's capacity to 0).
func (m *Manager) Resources(now time.Time) (capacity, allocatable corev1.ResourceList) {
	m.mu.Lock()
	defer m.mu.Unlock()
	capacity, allocatable = corev1.ResourceList{}, corev1.ResourceList{}
	for name, st := range m.resources {
		if st.endpoint == nil && !st.stoppedAt.IsZero() && now.Sub(st.stoppedAt) >= EndpointStopGracePeriod {
			st.devices = nil // forgotten
		}
		healthy := 0
		for _, d := range st.devices {
			if d.Health == pluginapi.Healthy {
				healthy++
			}
		}
		capacity[corev1.ResourceName(name)] = *resource.NewQuantity(int64(len(st.devices)), resource.DecimalSI)
		allocatable[corev1.ResourceName(name)] = *resource.NewQuantity(int64(healthy), resource.DecimalSI)
	}
	return capacity, allocatable
}

// NextExpiry is when the grace of a plugin that went away ends, the
// next time Resources will change by itself (zero: none pending).
func (m *Manager) NextExpiry() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	var next time.Time
	for _, st := range m.resources {
		if st.endpoint == nil && !st.stoppedAt.IsZero() && st.devices != nil {
			if at := st.stoppedAt.Add(EndpointStopGracePeriod); next.IsZero() || at.Before(next) {
				next = at
			}
		}
	}
	return next
}

// PodRef names the pod being admitted, for the calls' trace lines.
func PodRef(pod *corev1.Pod) string { return pod.Namespace + "/" + pod.Name }

// Allocate gives each container of pod the devices its limits ask of a
// registered resource, calling the plugins (GetPreferredAllocation where
// offered, then Allocate). On an error nothing stays allocated to the
// pod; the error reads as the device manager's.
func (m *Manager) Allocate(ctx context.Context, pod *corev1.Pod) error {
	m.allocMu.Lock()
	defer m.allocMu.Unlock()
	uid := string(pod.UID)
	m.mu.Lock()
	_, done := m.allocated[uid]
	m.mu.Unlock()
	if done {
		return nil // admitted already
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		for _, name := range slices.Sorted(maps.Keys(c.Resources.Limits)) {
			q := c.Resources.Limits[name]
			if q.Value() <= 0 || !m.isDevicePluginResource(string(name)) {
				continue
			}
			if err := m.allocateContainer(ctx, pod, c.Name, string(name), int(q.Value())); err != nil {
				m.release(uid)
				return err
			}
		}
	}
	return m.writeCheckpoint()
}

func (m *Manager) isDevicePluginResource(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.resources[name]
	return ok
}

// allocateContainer picks n devices of res for one container and asks
// the plugin to allocate them.
func (m *Manager) allocateContainer(ctx context.Context, pod *corev1.Pod, container, res string, n int) error {
	m.mu.Lock()
	st := m.resources[res]
	var available []string
	for id, d := range st.devices {
		if d.Health == pluginapi.Healthy && !m.inUseLocked(res, id) {
			available = append(available, id)
		}
	}
	slices.Sort(available)
	e := st.endpoint
	m.mu.Unlock()
	if len(available) < n {
		return fmt.Errorf("requested number of devices unavailable for %s. Requested: %d, Available: %d", res, n, len(available))
	}
	if e == nil {
		return fmt.Errorf("unknown Device Plugin %s", res)
	}
	ref := PodRef(pod) + "/" + container
	chosen := available[:n]
	if e.options.GetPreferredAllocationAvailable {
		m.called(fmt.Sprintf("GetPreferredAllocation %s %s %d of %v", res, ref, n, available))
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		resp, err := e.client.GetPreferredAllocation(cctx, &pluginapi.PreferredAllocationRequest{ContainerRequests: []*pluginapi.ContainerPreferredAllocationRequest{
			{AvailableDeviceIDs: available, AllocationSize: int32(n)}}})
		cancel()
		if err != nil {
			return err
		}
		chosen = preferred(available, resp, n)
	}
	m.called(fmt.Sprintf("Allocate %s %s %v", res, ref, chosen))
	// The devices are in use from now on: a pod admitted meanwhile does
	// not get them (allocMu holds, but the stream may change health).
	a := &Allocation{Resource: res, DeviceIDs: chosen}
	m.mu.Lock()
	m.addLocked(string(pod.UID), container, a)
	m.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	resp, err := e.client.Allocate(cctx, &pluginapi.AllocateRequest{ContainerRequests: []*pluginapi.ContainerAllocateRequest{{DevicesIds: chosen}}})
	cancel()
	if err != nil {
		return err
	}
	if len(resp.ContainerResponses) == 0 {
		return fmt.Errorf("no containers return in allocation response %v", resp)
	}
	m.mu.Lock()
	a.Response = resp.ContainerResponses[0]
	m.mu.Unlock()
	return nil
}

// preferred is the plugin's choice, kept to available devices, filled up
// in order of id when it chose fewer than n.
func preferred(available []string, resp *pluginapi.PreferredAllocationResponse, n int) []string {
	var chosen []string
	if len(resp.ContainerResponses) > 0 {
		for _, id := range resp.ContainerResponses[0].DeviceIDs {
			if len(chosen) < n && slices.Contains(available, id) && !slices.Contains(chosen, id) {
				chosen = append(chosen, id)
			}
		}
	}
	for _, id := range available {
		if len(chosen) < n && !slices.Contains(chosen, id) {
			chosen = append(chosen, id)
		}
	}
	return chosen
}

func (m *Manager) called(call string) {
	if m.cfg.OnCall != nil {
		m.cfg.OnCall(call)
	}
}

func (m *Manager) inUseLocked(res, id string) bool {
	for _, byContainer := range m.allocated {
		for _, as := range byContainer {
			for _, a := range as {
				if a.Resource == res && slices.Contains(a.DeviceIDs, id) {
					return true
				}
			}
		}
	}
	return false
}

func (m *Manager) addLocked(uid, container string, a *Allocation) {
	if m.allocated[uid] == nil {
		m.allocated[uid] = map[string][]*Allocation{}
	}
	m.allocated[uid][container] = append(m.allocated[uid][container], a)
}

// PreStart calls PreStartContainer for each allocation of the container
// whose plugin's options ask for it, before the container starts.
func (m *Manager) PreStart(ctx context.Context, pod *corev1.Pod, container string) error {
	for _, a := range m.Container(pod.UID, container) {
		m.mu.Lock()
		var e *endpoint
		if st := m.resources[a.Resource]; st != nil {
			e = st.endpoint
		}
		m.mu.Unlock()
		if e == nil {
			return fmt.Errorf("endpoint not found in cache for a registered resource: %s", a.Resource)
		}
		if !e.options.PreStartRequired {
			continue
		}
		m.called(fmt.Sprintf("PreStartContainer %s %s/%s %v", a.Resource, PodRef(pod), container, a.DeviceIDs))
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		_, err := e.client.PreStartContainer(cctx, &pluginapi.PreStartContainerRequest{DevicesIds: a.DeviceIDs})
		cancel()
		if err != nil {
			return fmt.Errorf("device plugin PreStartContainer rpc failed with err: %w", err)
		}
	}
	return nil
}

// Container are the allocations of one container of the pod uid, in
// order of resource name; nil when it has none. Read only.
func (m *Manager) Container(uid types.UID, container string) []*Allocation {
	m.mu.Lock()
	defer m.mu.Unlock()
	as := slices.Clone(m.allocated[string(uid)][container])
	slices.SortFunc(as, func(a, b *Allocation) int { return strings.Compare(a.Resource, b.Resource) })
	return as
}

// Has reports whether the pod uid holds devices.
func (m *Manager) Has(uid types.UID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.allocated[string(uid)]
	return ok
}

// Release gives back the devices of the pod uid (it ended, or is gone).
func (m *Manager) Release(uid types.UID) {
	if !m.release(string(uid)) {
		return
	}
	if err := m.writeCheckpoint(); err != nil {
		m.cfg.Logger.Warn("cannot write the device checkpoint", "err", err)
	}
}

func (m *Manager) release(uid string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.allocated[uid]; !ok {
		return false
	}
	delete(m.allocated, uid)
	return true
}

// Retain gives back the devices of every pod not in active, before a new
// pod is given any (the device manager's updateAllocatedDevices): a pod
// that ended or went away may not have been released yet when the pod
// that replaces it is admitted.
func (m *Manager) Retain(active map[types.UID]bool) {
	m.mu.Lock()
	released := false
	for uid := range m.allocated {
		if !active[types.UID(uid)] {
			delete(m.allocated, uid)
			released = true
		}
	}
	m.mu.Unlock()
	if released {
		if err := m.writeCheckpoint(); err != nil {
			m.cfg.Logger.Warn("cannot write the device checkpoint", "err", err)
		}
	}
}

// InUse are the devices of res given to pods, in order.
func (m *Manager) InUse(res string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for _, byContainer := range m.allocated {
		for _, as := range byContainer {
			for _, a := range as {
				if a.Resource == res {
					ids = append(ids, a.DeviceIDs...)
				}
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// Checkpoint is what CheckpointFile holds: the allocations, and the
// devices each resource has. The names follow the kubelet's checkpoint
// (PodDeviceEntries, RegisteredDevices), but the plugin's answer is
// written as JSON rather than protobuf bytes and there is no checksum.
type Checkpoint struct {
	PodDeviceEntries  []PodDevicesEntry   `json:"PodDeviceEntries"`
	RegisteredDevices map[string][]string `json:"RegisteredDevices"`
}

// PodDevicesEntry is one container's allocation of one resource.
type PodDevicesEntry struct {
	PodUID        string          `json:"PodUID"`
	ContainerName string          `json:"ContainerName"`
	ResourceName  string          `json:"ResourceName"`
	DeviceIDs     []string        `json:"DeviceIDs"`
	AllocResp     json.RawMessage `json:"AllocResp,omitempty"`
}

// writeCheckpoint writes the allocations, in order of pod, container and
// resource, so that the file reads the same for the same state.
func (m *Manager) writeCheckpoint() error {
	m.mu.Lock()
	cp := Checkpoint{RegisteredDevices: map[string][]string{}}
	for name, st := range m.resources {
		cp.RegisteredDevices[name] = slices.Sorted(maps.Keys(st.devices))
	}
	for _, uid := range slices.Sorted(maps.Keys(m.allocated)) {
		for _, c := range slices.Sorted(maps.Keys(m.allocated[uid])) {
			for _, a := range m.allocated[uid][c] {
				e := PodDevicesEntry{PodUID: uid, ContainerName: c, ResourceName: a.Resource, DeviceIDs: a.DeviceIDs}
				if a.Response != nil {
					// protojson varies its spacing on purpose; compacted,
					// the file reads the same for the same answer.
					raw, _ := protojson.Marshal(a.Response)
					var buf bytes.Buffer
					if json.Compact(&buf, raw) == nil {
						e.AllocResp = buf.Bytes()
					}
				}
				cp.PodDeviceEntries = append(cp.PodDeviceEntries, e)
			}
		}
	}
	m.mu.Unlock()
	b, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(m.cfg.Dir, CheckpointFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(m.cfg.Dir, CheckpointFile))
}
