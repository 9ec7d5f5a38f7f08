package sample

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
)

func newPlugin(t *testing.T, count int) *Plugin {
	p, err := New(Config{Resource: "example.com/gpu", Count: count, KubeletDir: t.TempDir()})
	require.NoError(t, err)
	return p
}

func TestNewRefusesBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Count: 1, KubeletDir: "."},
		{Resource: "example.com/gpu", Count: 0, KubeletDir: "."},
		{Resource: "example.com/gpu", Count: 1},
		{Resource: "example.com/gpu", Count: 1, KubeletDir: "/no/such/dir"},
	} {
		_, err := New(cfg)
		assert.Error(t, err, "%+v", cfg)
	}
}

// The preferred devices: what must be included, then the lowest-numbered
// available ones, by number (gpu-2 before gpu-10).
func TestGetPreferredAllocation(t *testing.T) {
	p := newPlugin(t, 12)
	resp, err := p.GetPreferredAllocation(context.Background(), &pluginapi.PreferredAllocationRequest{ContainerRequests: []*pluginapi.ContainerPreferredAllocationRequest{
		{AvailableDeviceIDs: []string{"gpu-10", "gpu-2", "gpu-7", "gpu-3"}, MustIncludeDeviceIDs: []string{"gpu-7"}, AllocationSize: 3}}})
	require.NoError(t, err)
	require.Len(t, resp.ContainerResponses, 1)
	assert.Equal(t, []string{"gpu-7", "gpu-2", "gpu-3"}, resp.ContainerResponses[0].DeviceIDs)
}

func TestAllocate(t *testing.T) {
	p := newPlugin(t, 4)
	resp, err := p.Allocate(context.Background(), &pluginapi.AllocateRequest{ContainerRequests: []*pluginapi.ContainerAllocateRequest{{DevicesIds: []string{"gpu-1", "gpu-2"}}}})
	require.NoError(t, err)
	require.Len(t, resp.ContainerResponses, 1)
	cr := resp.ContainerResponses[0]
	assert.Equal(t, map[string]string{"GPU_VISIBLE_DEVICES": "gpu-1,gpu-2"}, cr.Envs)
	assert.Equal(t, map[string]string{"example.com/gpu": "gpu-1,gpu-2"}, cr.Annotations)
	require.Len(t, cr.Devices, 2)
	assert.Equal(t, "/dev/gpu-2", cr.Devices[1].ContainerPath)
	require.Len(t, cr.Mounts, 1)
	assert.Equal(t, "/usr/local/gpu", cr.Mounts[0].ContainerPath)

	_, err = p.Allocate(context.Background(), &pluginapi.AllocateRequest{ContainerRequests: []*pluginapi.ContainerAllocateRequest{{DevicesIds: []string{"gpu-9"}}}})
	assert.EqualError(t, err, `invalid allocation request for "example.com/gpu": unknown device: gpu-9`)
	require.NoError(t, p.SetHealth("gpu-1", false))
	_, err = p.Allocate(context.Background(), &pluginapi.AllocateRequest{ContainerRequests: []*pluginapi.ContainerAllocateRequest{{DevicesIds: []string{"gpu-1"}}}})
	assert.EqualError(t, err, `invalid allocation request for "example.com/gpu": device gpu-1 is unhealthy`)
}

func TestHealth(t *testing.T) {
	p := newPlugin(t, 3)
	assert.Equal(t, "gpu-2", p.FailNext())
	assert.Equal(t, "gpu-1", p.FailNext())
	assert.Equal(t, "gpu-0", p.FailNext())
	assert.Equal(t, "", p.FailNext(), "none healthy left")
	p.HealAll()
	for _, d := range p.Devices() {
		assert.Equal(t, pluginapi.Healthy, d.Health, d.ID)
	}
	assert.Error(t, p.SetHealth("gpu-7", false))
}

// The environment variable is named after the resource's name.
func TestEnvName(t *testing.T) {
	p, err := New(Config{Resource: "vendor.example/fpga-x1", Count: 1, KubeletDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, "FPGA_X1_VISIBLE_DEVICES", p.envName())
}
