// Package deviceplugintest helps the tests of device plugins and of the
// kubelets they register with: a short directory for the sockets, and a
// plugin whose answers a test chooses.
package deviceplugintest

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
)

// Dir is a new directory for a kubelet's and its plugins' sockets,
// removed at the test's end. It is made directly under the system's
// temporary directory: a unix socket's path may not be longer than 107
// bytes, and t.TempDir's, named after the test, can be.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// Fake is a device plugin whose answers a test chooses: its devices, and
// errors for Allocate and PreStartContainer.
type Fake struct {
	pluginapi.UnimplementedDevicePluginServer
	// Devices are sent once on each ListAndWatch stream.
	Devices []*pluginapi.Device
	// AllocateErr, when set, is Allocate's answer.
	AllocateErr error
	// PreStartErr, when set, asks for PreStartContainer (its options'
	// PreStartRequired) and is its answer.
	PreStartErr error

	server *grpc.Server
}

// Healthy are n healthy devices, "dev-0", "dev-1", ...
func Healthy(n int) []*pluginapi.Device {
	var ds []*pluginapi.Device
	for i := range n {
		ds = append(ds, &pluginapi.Device{ID: fmt.Sprintf("dev-%d", i), Health: pluginapi.Healthy})
	}
	return ds
}

// Start serves f on dir/name and registers it for resource with the
// kubelet whose kubelet.sock is in dir; the test's end stops it.
func (f *Fake) Start(t testing.TB, dir, name, resource string) {
	t.Helper()
	lis, err := net.Listen("unix", filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	f.server = grpc.NewServer()
	pluginapi.RegisterDevicePluginServer(f.server, f)
	go func() { _ = f.server.Serve(lis) }()
	t.Cleanup(f.server.Stop)
	if err := Register(dir, &pluginapi.RegisterRequest{Version: pluginapi.Version, Endpoint: name, ResourceName: resource}); err != nil {
		t.Fatal(err)
	}
}

// Stop stops serving: the kubelet's stream ends, as when a plugin dies.
func (f *Fake) Stop() { f.server.Stop() }

// Register calls the Registration service of the kubelet whose
// kubelet.sock is in dir, as a plugin does.
func Register(dir string, req *pluginapi.RegisterRequest) error {
	conn, err := grpc.NewClient("unix://"+filepath.Join(dir, "kubelet.sock"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = pluginapi.NewRegistrationClient(conn).Register(context.Background(), req)
	return err
}

// GetDevicePluginOptions implements DevicePluginServer.
func (f *Fake) GetDevicePluginOptions(context.Context, *pluginapi.Empty) (*pluginapi.DevicePluginOptions, error) {
	return &pluginapi.DevicePluginOptions{PreStartRequired: f.PreStartErr != nil}, nil
}

// ListAndWatch implements DevicePluginServer: the devices, once.
func (f *Fake) ListAndWatch(_ *pluginapi.Empty, s grpc.ServerStreamingServer[pluginapi.ListAndWatchResponse]) error {
	if err := s.Send(&pluginapi.ListAndWatchResponse{Devices: f.Devices}); err != nil {
		return err
	}
	<-s.Context().Done()
	return nil
}

// Allocate implements DevicePluginServer: AllocateErr, or FAKE=1 for each
// container.
func (f *Fake) Allocate(_ context.Context, r *pluginapi.AllocateRequest) (*pluginapi.AllocateResponse, error) {
	if f.AllocateErr != nil {
		return nil, f.AllocateErr
	}
	resp := &pluginapi.AllocateResponse{}
	for range r.ContainerRequests {
		resp.ContainerResponses = append(resp.ContainerResponses, &pluginapi.ContainerAllocateResponse{Envs: map[string]string{"FAKE": "1"}})
	}
	return resp, nil
}

// PreStartContainer implements DevicePluginServer: PreStartErr.
func (f *Fake) PreStartContainer(context.Context, *pluginapi.PreStartContainerRequest) (*pluginapi.PreStartContainerResponse, error) {
	if f.PreStartErr != nil {
		return nil, f.PreStartErr
	}
	return &pluginapi.PreStartContainerResponse{}, nil
}
