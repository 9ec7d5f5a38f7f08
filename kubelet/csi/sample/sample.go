package sample

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"

	csipb "github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

// Version is the driver's vendor version (GetPluginInfo).
const Version = "0.1.0"

// DefaultCapacity is the storage a driver offers when Config.Capacity
// is 0: 10 GiB.
const DefaultCapacity = 10 << 30

// defaultVolumeSize is a volume's size when CreateVolume asks none.
const defaultVolumeSize = 1 << 30

// Config builds a Driver.
type Config struct {
	// Name is the driver's name, as StorageClasses' provisioner and
	// CSIDriver objects name it (required).
	Name string
	// NodeID is the node's id in the storage system (NodeGetInfo);
	// required.
	NodeID string
	// KubeletDir is the node's kubelet directory (/var/lib/kubelet): the
	// registration socket goes in its plugins_registry, the CSI socket
	// in plugins/NAME/csi.sock (required).
	KubeletDir string
	// VolumesDir holds the volumes, one directory each (default
	// KubeletDir/plugins/NAME/volumes). Drivers on several nodes share
	// one, as a real storage system is reached from every node.
	VolumesDir string
	// Capacity is the storage offered, in bytes (DefaultCapacity).
	Capacity int64
	// MaxVolumesPerNode is NodeGetInfo's max_volumes_per_node (0: no
	// limit), which the kubelet puts in the CSINode's allocatable count.
	MaxVolumesPerNode int64
	// Interceptor, when set, runs around every CSI call: the tests use it
	// to make the driver fail, hang or crash.
	Interceptor grpc.UnaryServerInterceptor
	// Logger logs each call (discarded when nil).
	Logger *slog.Logger
}

// Driver is a running sample driver.
type Driver struct {
	csipb.UnimplementedIdentityServer
	csipb.UnimplementedControllerServer
	csipb.UnimplementedNodeServer
	registerapi.UnimplementedRegistrationServer

	cfg            Config
	csiSocket      string
	regSocket      string
	csiSrv, regSrv *grpc.Server

	mu sync.Mutex
	// registered and regErr are what the kubelet last notified.
	registered bool
	regErr     string
	// attached are the nodes each volume is published to.
	attached map[string]map[string]bool
	// wg waits for the servers.
	wg sync.WaitGroup
}

var volumeNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// New checks cfg and applies its defaults; Start serves.
func New(cfg Config) (*Driver, error) {
	if cfg.Name == "" || cfg.NodeID == "" || cfg.KubeletDir == "" {
		return nil, errors.New("csi driver: Name, NodeID and KubeletDir are required")
	}
	if cfg.Capacity <= 0 {
		cfg.Capacity = DefaultCapacity
	}
	if cfg.VolumesDir == "" {
		cfg.VolumesDir = filepath.Join(cfg.KubeletDir, "plugins", cfg.Name, "volumes")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Driver{cfg: cfg, attached: map[string]map[string]bool{},
		csiSocket: filepath.Join(cfg.KubeletDir, "plugins", cfg.Name, "csi.sock"),
		regSocket: filepath.Join(cfg.KubeletDir, "plugins_registry", cfg.Name+"-reg.sock")}, nil
}

// Endpoint is the CSI socket's path.
func (d *Driver) Endpoint() string { return d.csiSocket }

// RegistrationSocket is the registration socket's path.
func (d *Driver) RegistrationSocket() string { return d.regSocket }

// Start listens on the CSI socket, then on the registration socket (so
// that the kubelet finds the driver ready when it registers it), and
// serves both until Stop.
func (d *Driver) Start() error {
	if err := os.MkdirAll(d.cfg.VolumesDir, 0o755); err != nil {
		return err
	}
	csiL, err := listen(d.csiSocket)
	if err != nil {
		return err
	}
	chain := []grpc.UnaryServerInterceptor{d.logCall}
	if d.cfg.Interceptor != nil {
		chain = append(chain, d.cfg.Interceptor)
	}
	d.csiSrv = grpc.NewServer(grpc.ChainUnaryInterceptor(chain...))
	csipb.RegisterIdentityServer(d.csiSrv, d)
	csipb.RegisterControllerServer(d.csiSrv, d)
	csipb.RegisterNodeServer(d.csiSrv, d)
	regL, err := listen(d.regSocket)
	if err != nil {
		_ = csiL.Close()
		return err
	}
	d.regSrv = grpc.NewServer()
	registerapi.RegisterRegistrationServer(d.regSrv, d)
	for _, s := range []struct {
		srv *grpc.Server
		l   net.Listener
	}{{d.csiSrv, csiL}, {d.regSrv, regL}} {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			_ = s.srv.Serve(s.l)
		}()
	}
	return nil
}

// Stop stops serving and removes both sockets: the kubelet sees the
// registration socket go and deregisters the driver. The volumes stay.
func (d *Driver) Stop() {
	if d.regSrv != nil {
		d.regSrv.Stop()
	}
	if d.csiSrv != nil {
		d.csiSrv.Stop()
	}
	d.wg.Wait()
	_ = os.Remove(d.regSocket)
	_ = os.Remove(d.csiSocket)
}

// Crash stops the CSI server at once, as a driver process that dies: the
// calls in flight get no answer. The sockets stay behind, as a dead
// process leaves them.
func (d *Driver) Crash() {
	if d.csiSrv != nil {
		d.csiSrv.Stop()
	}
	if d.regSrv != nil {
		d.regSrv.Stop()
	}
}

// listen makes a unix socket at path, replacing a stale one.
func listen(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, err
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return net.Listen("unix", path)
}

// Registered is what the kubelet last said of the registration: whether
// the driver is registered, and its error if not.
func (d *Driver) Registered() (bool, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.registered, d.regErr
}

func (d *Driver) logCall(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	d.cfg.Logger.Info("csi call", "method", filepath.Base(info.FullMethod), "err", err)
	return resp, err
}

// --- Registration (node-driver-registrar) ---

// GetInfo implements the registration service: a CSI plugin, its name,
// its CSI socket, the spec's version.
func (d *Driver) GetInfo(context.Context, *registerapi.InfoRequest) (*registerapi.PluginInfo, error) {
	return &registerapi.PluginInfo{Type: registerapi.CSIPlugin, Name: d.cfg.Name, Endpoint: d.csiSocket, SupportedVersions: []string{"1.0.0"}}, nil
}

// NotifyRegistrationStatus implements the registration service.
func (d *Driver) NotifyRegistrationStatus(_ context.Context, s *registerapi.RegistrationStatus) (*registerapi.RegistrationStatusResponse, error) {
	d.mu.Lock()
	d.registered, d.regErr = s.PluginRegistered, s.Error
	d.mu.Unlock()
	if !s.PluginRegistered {
		d.cfg.Logger.Error("registration failed", "err", s.Error)
	} else {
		d.cfg.Logger.Info("registered with the kubelet")
	}
	return &registerapi.RegistrationStatusResponse{}, nil
}

// --- Identity ---

// GetPluginInfo implements csi.IdentityServer.
func (d *Driver) GetPluginInfo(context.Context, *csipb.GetPluginInfoRequest) (*csipb.GetPluginInfoResponse, error) {
	return &csipb.GetPluginInfoResponse{Name: d.cfg.Name, VendorVersion: Version}, nil
}

// GetPluginCapabilities implements csi.IdentityServer: a controller
// service.
func (d *Driver) GetPluginCapabilities(context.Context, *csipb.GetPluginCapabilitiesRequest) (*csipb.GetPluginCapabilitiesResponse, error) {
	return &csipb.GetPluginCapabilitiesResponse{Capabilities: []*csipb.PluginCapability{{
		Type: &csipb.PluginCapability_Service_{Service: &csipb.PluginCapability_Service{Type: csipb.PluginCapability_Service_CONTROLLER_SERVICE}}}}}, nil
}

// Probe implements csi.IdentityServer.
func (d *Driver) Probe(context.Context, *csipb.ProbeRequest) (*csipb.ProbeResponse, error) {
	return &csipb.ProbeResponse{}, nil
}

// --- Controller ---

// volume is a volume's record, volume.json in its directory.
type volume struct {
	ID         string            `json:"id"`
	Capacity   int64             `json:"capacity"`
	Parameters map[string]string `json:"parameters,omitempty"`
}

func (d *Driver) volumeDir(id string) string  { return filepath.Join(d.cfg.VolumesDir, id) }
func (d *Driver) dataDir(id string) string    { return filepath.Join(d.volumeDir(id), "data") }
func (d *Driver) recordPath(id string) string { return filepath.Join(d.volumeDir(id), "volume.json") }

// load reads volume id's record; nil when there is none.
func (d *Driver) load(id string) (*volume, error) {
	b, err := os.ReadFile(d.recordPath(id))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	v := &volume{}
	if err := json.Unmarshal(b, v); err != nil {
		return nil, status.Errorf(codes.Internal, "volume %s: %v", id, err)
	}
	return v, nil
}

// volumes are every volume's record, by id.
func (d *Driver) volumes() ([]*volume, error) {
	entries, err := os.ReadDir(d.cfg.VolumesDir)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	var out []*volume
	for _, e := range entries {
		if v, err := d.load(e.Name()); err != nil {
			return nil, err
		} else if v != nil {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// ControllerGetCapabilities implements csi.ControllerServer.
func (d *Driver) ControllerGetCapabilities(context.Context, *csipb.ControllerGetCapabilitiesRequest) (*csipb.ControllerGetCapabilitiesResponse, error) {
	var caps []*csipb.ControllerServiceCapability
	for _, t := range []csipb.ControllerServiceCapability_RPC_Type{
		csipb.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME,
		csipb.ControllerServiceCapability_RPC_PUBLISH_UNPUBLISH_VOLUME,
		csipb.ControllerServiceCapability_RPC_GET_CAPACITY,
	} {
		caps = append(caps, &csipb.ControllerServiceCapability{Type: &csipb.ControllerServiceCapability_Rpc{Rpc: &csipb.ControllerServiceCapability_RPC{Type: t}}})
	}
	return &csipb.ControllerGetCapabilitiesResponse{Capabilities: caps}, nil
}

// CreateVolume implements csi.ControllerServer. It is idempotent by name,
// as the spec asks: the volume's id is its name, and a second call for
// an existing volume of the same size answers the same volume.
func (d *Driver) CreateVolume(_ context.Context, req *csipb.CreateVolumeRequest) (*csipb.CreateVolumeResponse, error) {
	if !volumeNameRe.MatchString(req.Name) {
		return nil, status.Errorf(codes.InvalidArgument, "invalid volume name %q", req.Name)
	}
	if len(req.VolumeCapabilities) == 0 {
		return nil, status.Error(codes.InvalidArgument, "volume capabilities missing in request")
	}
	for _, c := range req.VolumeCapabilities {
		if c.GetBlock() != nil {
			return nil, status.Error(codes.InvalidArgument, "block volumes are not supported")
		}
	}
	size := req.GetCapacityRange().GetRequiredBytes()
	if size == 0 {
		size = defaultVolumeSize
	}
	if limit := req.GetCapacityRange().GetLimitBytes(); limit > 0 && size > limit {
		return nil, status.Errorf(codes.OutOfRange, "required bytes %d exceed the limit %d", size, limit)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	existing, err := d.load(req.Name)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		if existing.Capacity < size {
			return nil, status.Errorf(codes.AlreadyExists, "volume %s exists with a capacity of %d bytes", req.Name, existing.Capacity)
		}
		return &csipb.CreateVolumeResponse{Volume: existing.csi()}, nil
	}
	all, err := d.volumes()
	if err != nil {
		return nil, err
	}
	var used int64
	for _, v := range all {
		used += v.Capacity
	}
	if used+size > d.cfg.Capacity {
		return nil, status.Errorf(codes.ResourceExhausted, "insufficient capacity: %d bytes requested, %d bytes available", size, d.cfg.Capacity-used)
	}
	v := &volume{ID: req.Name, Capacity: size, Parameters: req.Parameters}
	if err := os.MkdirAll(d.dataDir(v.ID), 0o755); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	b, _ := json.Marshal(v)
	// The record last: a directory without one is no volume yet.
	if err := os.WriteFile(d.recordPath(v.ID), b, 0o644); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csipb.CreateVolumeResponse{Volume: v.csi()}, nil
}

func (v *volume) csi() *csipb.Volume {
	return &csipb.Volume{VolumeId: v.ID, CapacityBytes: v.Capacity, VolumeContext: v.Parameters}
}

// DeleteVolume implements csi.ControllerServer: the volume's directory
// goes, data and all. A volume already gone is no error.
func (d *Driver) DeleteVolume(_ context.Context, req *csipb.DeleteVolumeRequest) (*csipb.DeleteVolumeResponse, error) {
	if req.VolumeId == "" || !volumeNameRe.MatchString(req.VolumeId) {
		return nil, status.Error(codes.InvalidArgument, "volume id missing in request")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.attached[req.VolumeId]) > 0 {
		return nil, status.Errorf(codes.FailedPrecondition, "volume %s is still published", req.VolumeId)
	}
	if err := os.RemoveAll(d.volumeDir(req.VolumeId)); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csipb.DeleteVolumeResponse{}, nil
}

// ControllerPublishVolume implements csi.ControllerServer: the volume is
// noted as attached to the node.
func (d *Driver) ControllerPublishVolume(_ context.Context, req *csipb.ControllerPublishVolumeRequest) (*csipb.ControllerPublishVolumeResponse, error) {
	if req.VolumeId == "" || req.NodeId == "" {
		return nil, status.Error(codes.InvalidArgument, "volume id and node id are required")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if v, err := d.load(req.VolumeId); err != nil {
		return nil, err
	} else if v == nil {
		return nil, status.Errorf(codes.NotFound, "volume %s not found", req.VolumeId)
	}
	if d.attached[req.VolumeId] == nil {
		d.attached[req.VolumeId] = map[string]bool{}
	}
	d.attached[req.VolumeId][req.NodeId] = true
	return &csipb.ControllerPublishVolumeResponse{PublishContext: map[string]string{"node": req.NodeId}}, nil
}

// ControllerUnpublishVolume implements csi.ControllerServer.
func (d *Driver) ControllerUnpublishVolume(_ context.Context, req *csipb.ControllerUnpublishVolumeRequest) (*csipb.ControllerUnpublishVolumeResponse, error) {
	if req.VolumeId == "" {
		return nil, status.Error(codes.InvalidArgument, "volume id missing in request")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.attached[req.VolumeId], req.NodeId)
	if len(d.attached[req.VolumeId]) == 0 {
		delete(d.attached, req.VolumeId)
	}
	return &csipb.ControllerUnpublishVolumeResponse{}, nil
}

// GetCapacity implements csi.ControllerServer: what is not given to a
// volume yet.
func (d *Driver) GetCapacity(context.Context, *csipb.GetCapacityRequest) (*csipb.GetCapacityResponse, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	all, err := d.volumes()
	if err != nil {
		return nil, err
	}
	free := d.cfg.Capacity
	for _, v := range all {
		free -= v.Capacity
	}
	return &csipb.GetCapacityResponse{AvailableCapacity: free}, nil
}

// --- Node ---

// NodeGetCapabilities implements csi.NodeServer: the driver stages.
func (d *Driver) NodeGetCapabilities(context.Context, *csipb.NodeGetCapabilitiesRequest) (*csipb.NodeGetCapabilitiesResponse, error) {
	return &csipb.NodeGetCapabilitiesResponse{Capabilities: []*csipb.NodeServiceCapability{{
		Type: &csipb.NodeServiceCapability_Rpc{Rpc: &csipb.NodeServiceCapability_RPC{Type: csipb.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME}}}}}, nil
}

// NodeGetInfo implements csi.NodeServer.
func (d *Driver) NodeGetInfo(context.Context, *csipb.NodeGetInfoRequest) (*csipb.NodeGetInfoResponse, error) {
	return &csipb.NodeGetInfoResponse{NodeId: d.cfg.NodeID, MaxVolumesPerNode: d.cfg.MaxVolumesPerNode}, nil
}

// NodeStageVolume implements csi.NodeServer: the staging path becomes a
// link to the volume's directory (a real driver mounts the device there).
func (d *Driver) NodeStageVolume(_ context.Context, req *csipb.NodeStageVolumeRequest) (*csipb.NodeStageVolumeResponse, error) {
	if req.VolumeId == "" || req.StagingTargetPath == "" {
		return nil, status.Error(codes.InvalidArgument, "volume id and staging target path are required")
	}
	if v, err := d.load(req.VolumeId); err != nil {
		return nil, err
	} else if v == nil {
		return nil, status.Errorf(codes.NotFound, "volume %s not found", req.VolumeId)
	}
	if err := link(d.dataDir(req.VolumeId), req.StagingTargetPath); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csipb.NodeStageVolumeResponse{}, nil
}

// NodeUnstageVolume implements csi.NodeServer.
func (d *Driver) NodeUnstageVolume(_ context.Context, req *csipb.NodeUnstageVolumeRequest) (*csipb.NodeUnstageVolumeResponse, error) {
	if req.VolumeId == "" || req.StagingTargetPath == "" {
		return nil, status.Error(codes.InvalidArgument, "volume id and staging target path are required")
	}
	if err := unlink(req.StagingTargetPath); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csipb.NodeUnstageVolumeResponse{}, nil
}

// NodePublishVolume implements csi.NodeServer: the pod's target path
// becomes a link to the staging path (a real driver bind-mounts it).
func (d *Driver) NodePublishVolume(_ context.Context, req *csipb.NodePublishVolumeRequest) (*csipb.NodePublishVolumeResponse, error) {
	if req.VolumeId == "" || req.TargetPath == "" || req.StagingTargetPath == "" {
		return nil, status.Error(codes.InvalidArgument, "volume id, staging target path and target path are required")
	}
	if _, err := os.Stat(req.StagingTargetPath); err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "volume %s is not staged at %s", req.VolumeId, req.StagingTargetPath)
	}
	if err := link(req.StagingTargetPath, req.TargetPath); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csipb.NodePublishVolumeResponse{}, nil
}

// NodeUnpublishVolume implements csi.NodeServer.
func (d *Driver) NodeUnpublishVolume(_ context.Context, req *csipb.NodeUnpublishVolumeRequest) (*csipb.NodeUnpublishVolumeResponse, error) {
	if req.VolumeId == "" || req.TargetPath == "" {
		return nil, status.Error(codes.InvalidArgument, "volume id and target path are required")
	}
	if err := unlink(req.TargetPath); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csipb.NodeUnpublishVolumeResponse{}, nil
}

// link makes path a symbolic link to target; a link already there to
// target is fine (the calls are idempotent), an empty directory the
// kubelet made is replaced.
func link(target, path string) error {
	if cur, err := os.Readlink(path); err == nil {
		if cur == target {
			return nil
		}
		return fmt.Errorf("%s is linked to %s already", path, cur)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return os.Symlink(target, path)
}

// unlink removes the link at path; none is fine.
func unlink(path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
