package kubelet

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	storagev1 "k8s.io/api/storage/v1"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/kubelet/csi"
	"github.com/kubesim/kubesim/kubelet/csi/sample"
)

const testDriver = "example.csi.kubesim.io"

// csiSetup is a node directory short enough for unix sockets, the
// cluster's driver registry, and the gRPC calls the kubelet made.
type csiSetup struct {
	root    string
	drivers *csi.Drivers
	mu      sync.Mutex
	calls   []string
}

func newCSISetup(t *testing.T) *csiSetup {
	root, err := os.MkdirTemp("", "csi")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(root) })
	return &csiSetup{root: root, drivers: csi.NewDrivers()}
}

func (s *csiSetup) config() *CSIConfig {
	return &CSIConfig{RootDir: s.root, Drivers: s.drivers, OnCall: func(c string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.calls = append(s.calls, c)
	}}
}

// took returns the calls made since the last took.
func (s *csiSetup) took() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.calls
	s.calls = nil
	return out
}

// startDriver runs the sample driver on the node's directory.
func (s *csiSetup) startDriver(t *testing.T, cfg sample.Config) *sample.Driver {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = testDriver
	}
	if cfg.NodeID == "" {
		cfg.NodeID = "node-1"
	}
	cfg.KubeletDir = s.root
	d, err := sample.New(cfg)
	require.NoError(t, err)
	require.NoError(t, d.Start())
	t.Cleanup(d.Stop)
	return d
}

func (f *fixture) csiNode() *storagev1.CSINode {
	f.t.Helper()
	n, err := f.env.Client.CSINodes().Get(f.ctx, "", f.k.NodeName())
	require.NoError(f.t, err)
	return n
}

// A driver's registration socket is found, the driver asked for its info
// and its node info, told it is registered, and entered in the node's
// CSINode (owned by the Node); when it stops, it leaves the CSINode.
func TestCSIDriverRegistersInTheCSINode(t *testing.T) {
	t.Parallel()
	s := newCSISetup(t)
	f := newFixture(t, Config{CSI: s.config()})
	d := s.startDriver(t, sample.Config{MaxVolumesPerNode: 8})
	f.until(f.clk.Now().Add(time.Second))

	n := f.csiNode()
	require.Len(t, n.Spec.Drivers, 1)
	assert.Equal(t, testDriver, n.Spec.Drivers[0].Name)
	assert.Equal(t, "node-1", n.Spec.Drivers[0].NodeID)
	require.NotNil(t, n.Spec.Drivers[0].Allocatable)
	assert.Equal(t, int32(8), *n.Spec.Drivers[0].Allocatable.Count)
	require.Len(t, n.OwnerReferences, 1)
	assert.Equal(t, "Node", n.OwnerReferences[0].Kind)
	ok, msg := d.Registered()
	assert.True(t, ok, msg)
	ep, found := s.drivers.Endpoint(testDriver)
	assert.True(t, found)
	assert.Equal(t, d.Endpoint(), ep)
	assert.Equal(t, []string{"GetInfo " + testDriver + "-reg.sock", "NodeGetInfo " + testDriver, "NotifyRegistrationStatus " + testDriver}, s.took())

	// Registered once: the next scans call nothing.
	f.until(f.clk.Now().Add(3 * time.Second))
	assert.Empty(t, s.took())

	d.Stop()
	f.until(f.clk.Now().Add(time.Second))
	assert.Empty(t, f.csiNode().Spec.Drivers)
	_, found = s.drivers.Endpoint(testDriver)
	assert.False(t, found)
}

// fakeRegistrar answers GetInfo with info and keeps what it is told.
type fakeRegistrar struct {
	registerapi.UnimplementedRegistrationServer
	info   *registerapi.PluginInfo
	mu     sync.Mutex
	status *registerapi.RegistrationStatus
}

func (r *fakeRegistrar) GetInfo(context.Context, *registerapi.InfoRequest) (*registerapi.PluginInfo, error) {
	return r.info, nil
}

func (r *fakeRegistrar) NotifyRegistrationStatus(_ context.Context, s *registerapi.RegistrationStatus) (*registerapi.RegistrationStatusResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status = s
	return &registerapi.RegistrationStatusResponse{}, nil
}

func (r *fakeRegistrar) told() *registerapi.RegistrationStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

func serveRegistrar(t *testing.T, sock string, r *fakeRegistrar) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(sock), 0o755))
	l, err := net.Listen("unix", sock)
	require.NoError(t, err)
	srv := grpc.NewServer()
	registerapi.RegisterRegistrationServer(srv, r)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
}

// A plugin of another type, or one whose CSI versions the kubelet does not
// speak, is told why it is not registered, and nothing is written.
func TestCSIRegistrationRefusesBadPlugins(t *testing.T) {
	t.Parallel()
	s := newCSISetup(t)
	f := newFixture(t, Config{CSI: s.config()})
	old := &fakeRegistrar{info: &registerapi.PluginInfo{Type: registerapi.CSIPlugin, Name: "old.csi.example.com", SupportedVersions: []string{"0.3.0"}}}
	gpu := &fakeRegistrar{info: &registerapi.PluginInfo{Type: registerapi.DevicePlugin, Name: "example.com/gpu", SupportedVersions: []string{"v1beta1"}}}
	serveRegistrar(t, filepath.Join(s.root, csi.RegistryDir, "old.sock"), old)
	serveRegistrar(t, filepath.Join(s.root, csi.RegistryDir, "gpu.sock"), gpu)
	f.until(f.clk.Now().Add(time.Second))

	st := old.told()
	require.NotNil(t, st)
	assert.False(t, st.PluginRegistered)
	assert.Contains(t, st.Error, `RegisterPlugin error -- plugin registration failed with err: kubernetes.io/csi: ValidatePlugin for CSI driver "old.csi.example.com" failed. None of the versions specified ["0.3.0"] are supported.`)
	st = gpu.told()
	require.NotNil(t, st)
	assert.False(t, st.PluginRegistered)
	assert.Equal(t, "RegisterPlugin error -- no handler registered for plugin type: DevicePlugin at socket "+filepath.Join(s.root, csi.RegistryDir, "gpu.sock"), st.Error)
	_, err := f.env.Client.CSINodes().Get(f.ctx, "", "node-1")
	assert.True(t, api.IsNotFound(err), "no CSINode: %v", err)
}
