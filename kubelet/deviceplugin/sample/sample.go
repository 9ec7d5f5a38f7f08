package sample

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
)

// Config builds a Plugin.
type Config struct {
	// Resource is the extended resource the devices are, such as
	// example.com/gpu (required).
	Resource string
	// Count is how many devices there are (at least 1).
	Count int
	// KubeletDir is the kubelet's device plugin directory, where its
	// kubelet.sock is and the plugin's socket is made (required).
	KubeletDir string
	// PreStartRequired asks the kubelet to call PreStartContainer before
	// each container with devices starts.
	PreStartRequired bool
	// Logger logs the calls (discarded when nil).
	Logger *slog.Logger
}

// Plugin is a running device plugin.
type Plugin struct {
	pluginapi.UnimplementedDevicePluginServer

	cfg    Config
	socket string
	server *grpc.Server
	served chan struct{}

	mu     sync.Mutex
	ids    []string
	health map[string]string
	// changed is closed, and replaced, when a device's health changes:
	// the ListAndWatch streams send the list again.
	changed chan struct{}
	// gone is closed when the kubelet ends a stream (KubeletGone).
	gone     chan struct{}
	goneOnce sync.Once
}

// New checks cfg and names the devices.
func New(cfg Config) (*Plugin, error) {
	if cfg.Resource == "" || cfg.KubeletDir == "" || cfg.Count < 1 {
		return nil, errors.New("device plugin: a resource, a kubelet directory and at least one device are needed")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	// gRPC dials a unix socket by its absolute path; the shortest one,
	// without symbolic links, since a socket's path may not be longer
	// than 107 bytes.
	dir, err := filepath.EvalSymlinks(cfg.KubeletDir)
	if err != nil {
		return nil, fmt.Errorf("device plugin: the kubelet's directory: %w", err)
	}
	if cfg.KubeletDir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	p := &Plugin{cfg: cfg, health: map[string]string{}, changed: make(chan struct{}), gone: make(chan struct{})}
	// The socket is named after the resource, as plugins name theirs
	// (nvidia-gpu.sock): example.com/gpu listens on example.com_gpu.sock.
	p.socket = filepath.Join(cfg.KubeletDir, strings.ReplaceAll(cfg.Resource, "/", "_")+".sock")
	for i := range cfg.Count {
		id := fmt.Sprintf("%s-%d", path.Base(cfg.Resource), i)
		p.ids = append(p.ids, id)
		p.health[id] = pluginapi.Healthy
	}
	return p, nil
}

// KubeletGone is closed when the kubelet ends a ListAndWatch stream (it
// stopped, or the plugin stopped). A real plugin then waits for the
// kubelet's socket to be made again and registers anew; `kubesim
// device-plugin` exits.
func (p *Plugin) KubeletGone() <-chan struct{} { return p.gone }

// Socket is the path the plugin serves on.
func (p *Plugin) Socket() string { return p.socket }

// Start serves the DevicePlugin service on the plugin's socket and
// registers with the kubelet; it returns the kubelet's answer to
// Register.
func (p *Plugin) Start(ctx context.Context) error {
	_ = os.Remove(p.socket) // left by a plugin that did not stop cleanly
	lis, err := net.Listen("unix", p.socket)
	if err != nil {
		return err
	}
	p.server = grpc.NewServer()
	pluginapi.RegisterDevicePluginServer(p.server, p)
	p.served = make(chan struct{})
	go func() {
		defer close(p.served)
		_ = p.server.Serve(lis)
	}()
	if err := p.register(ctx); err != nil {
		p.Stop()
		return err
	}
	return nil
}

// register calls the kubelet's Registration service.
func (p *Plugin) register(ctx context.Context) error {
	// kubelet.sock: the base of pluginapi.KubeletSocket, in the
	// directory the kubelet was given.
	conn, err := grpc.NewClient("unix://"+filepath.Join(p.cfg.KubeletDir, filepath.Base(pluginapi.KubeletSocket)),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = pluginapi.NewRegistrationClient(conn).Register(ctx, &pluginapi.RegisterRequest{
		Version:      pluginapi.Version,
		Endpoint:     filepath.Base(p.socket), // relative to the kubelet's directory
		ResourceName: p.cfg.Resource,
		Options:      p.options(),
	})
	if err != nil {
		return fmt.Errorf("registering with the kubelet: %w", err)
	}
	p.cfg.Logger.Info("registered with the kubelet", "resource", p.cfg.Resource, "devices", len(p.ids))
	return nil
}

// Stop ends the server (the kubelet's stream with it) and removes the
// socket: the kubelet sees the devices go.
func (p *Plugin) Stop() {
	if p.server == nil {
		return
	}
	p.server.Stop()
	<-p.served
	_ = os.Remove(p.socket)
}

// Devices are the devices with their health, in order.
func (p *Plugin) Devices() []*pluginapi.Device {
	p.mu.Lock()
	defer p.mu.Unlock()
	devs := make([]*pluginapi.Device, 0, len(p.ids))
	for _, id := range p.ids {
		devs = append(devs, &pluginapi.Device{ID: id, Health: p.health[id]})
	}
	return devs
}

// SetHealth marks device id healthy or not; the kubelet hears of it
// through ListAndWatch.
func (p *Plugin) SetHealth(id string, healthy bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.health[id]; !ok {
		return fmt.Errorf("no device %q", id)
	}
	h := pluginapi.Unhealthy
	if healthy {
		h = pluginapi.Healthy
	}
	if p.health[id] != h {
		p.health[id] = h
		close(p.changed)
		p.changed = make(chan struct{})
	}
	return nil
}

// FailNext marks the highest-numbered healthy device unhealthy and
// returns its id ("" when none is healthy): a device failing, as
// `kubesim device-plugin` does on SIGUSR1.
func (p *Plugin) FailNext() string {
	p.mu.Lock()
	var id string
	for _, d := range slices.Backward(p.ids) {
		if p.health[d] == pluginapi.Healthy {
			id = d
			break
		}
	}
	p.mu.Unlock()
	if id != "" {
		_ = p.SetHealth(id, false)
	}
	return id
}

// HealAll marks every device healthy again (SIGUSR2).
func (p *Plugin) HealAll() {
	for _, id := range p.ids {
		_ = p.SetHealth(id, true)
	}
}

func (p *Plugin) options() *pluginapi.DevicePluginOptions {
	return &pluginapi.DevicePluginOptions{PreStartRequired: p.cfg.PreStartRequired, GetPreferredAllocationAvailable: true}
}

// GetDevicePluginOptions implements DevicePluginServer.
func (p *Plugin) GetDevicePluginOptions(context.Context, *pluginapi.Empty) (*pluginapi.DevicePluginOptions, error) {
	return p.options(), nil
}

// ListAndWatch implements DevicePluginServer: the devices now, and again
// at each change of health, until the kubelet closes the stream or the
// plugin stops.
func (p *Plugin) ListAndWatch(_ *pluginapi.Empty, s grpc.ServerStreamingServer[pluginapi.ListAndWatchResponse]) error {
	for {
		p.mu.Lock()
		changed := p.changed
		p.mu.Unlock()
		devs := p.Devices()
		p.cfg.Logger.Info("ListAndWatch: sending the devices", "devices", len(devs))
		if err := s.Send(&pluginapi.ListAndWatchResponse{Devices: devs}); err != nil {
			return err
		}
		select {
		case <-changed:
		case <-s.Context().Done():
			p.goneOnce.Do(func() { close(p.gone) })
			return nil
		}
	}
}

// GetPreferredAllocation implements DevicePluginServer: what must be
// included, then the lowest-numbered available devices.
func (p *Plugin) GetPreferredAllocation(_ context.Context, r *pluginapi.PreferredAllocationRequest) (*pluginapi.PreferredAllocationResponse, error) {
	resp := &pluginapi.PreferredAllocationResponse{}
	for _, req := range r.ContainerRequests {
		chosen := slices.Clone(req.MustIncludeDeviceIDs)
		available := slices.Clone(req.AvailableDeviceIDs)
		slices.SortFunc(available, p.compareIDs)
		for _, id := range available {
			if len(chosen) >= int(req.AllocationSize) {
				break
			}
			if !slices.Contains(chosen, id) {
				chosen = append(chosen, id)
			}
		}
		resp.ContainerResponses = append(resp.ContainerResponses, &pluginapi.ContainerPreferredAllocationResponse{DeviceIDs: chosen})
	}
	return resp, nil
}

// compareIDs orders devices by their number (gpu-2 before gpu-10).
func (p *Plugin) compareIDs(a, b string) int {
	return slices.Index(p.ids, a) - slices.Index(p.ids, b)
}

// Allocate implements DevicePluginServer: what each container gets to
// use its devices.
func (p *Plugin) Allocate(_ context.Context, r *pluginapi.AllocateRequest) (*pluginapi.AllocateResponse, error) {
	resp := &pluginapi.AllocateResponse{}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, req := range r.ContainerRequests {
		for _, id := range req.DevicesIds {
			switch h, ok := p.health[id]; {
			case !ok:
				return nil, fmt.Errorf("invalid allocation request for %q: unknown device: %s", p.cfg.Resource, id)
			case h != pluginapi.Healthy:
				return nil, fmt.Errorf("invalid allocation request for %q: device %s is unhealthy", p.cfg.Resource, id)
			}
		}
		ids := strings.Join(req.DevicesIds, ",")
		cr := &pluginapi.ContainerAllocateResponse{
			Envs:        map[string]string{p.envName(): ids},
			Annotations: map[string]string{p.cfg.Resource: ids},
			Mounts: []*pluginapi.Mount{{ContainerPath: "/usr/local/" + path.Base(p.cfg.Resource),
				HostPath: p.cfg.KubeletDir, ReadOnly: true}},
		}
		for _, id := range req.DevicesIds {
			cr.Devices = append(cr.Devices, &pluginapi.DeviceSpec{ContainerPath: "/dev/" + id, HostPath: "/dev/null", Permissions: "rw"})
		}
		p.cfg.Logger.Info("Allocate", "devices", ids)
		resp.ContainerResponses = append(resp.ContainerResponses, cr)
	}
	return resp, nil
}

// envName is the variable naming a container's devices: GPU_VISIBLE_DEVICES
// for example.com/gpu.
func (p *Plugin) envName() string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, path.Base(p.cfg.Resource))
	return name + "_VISIBLE_DEVICES"
}

// PreStartContainer implements DevicePluginServer: nothing to prepare.
func (p *Plugin) PreStartContainer(_ context.Context, r *pluginapi.PreStartContainerRequest) (*pluginapi.PreStartContainerResponse, error) {
	p.cfg.Logger.Info("PreStartContainer", "devices", strings.Join(r.DevicesIds, ","))
	return &pluginapi.PreStartContainerResponse{}, nil
}
