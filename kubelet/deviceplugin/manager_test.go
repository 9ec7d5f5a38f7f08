package deviceplugin_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/kubelet/deviceplugin"
	"github.com/kubesim/kubesim/kubelet/deviceplugin/deviceplugintest"
	"github.com/kubesim/kubesim/kubelet/deviceplugin/sample"
)

const gpu = "example.com/gpu"

type fixture struct {
	m     *deviceplugin.Manager
	clock *clock.Fake
	dir   string
	mu    sync.Mutex
	calls []string
}

func newManager(t *testing.T) *fixture {
	f := &fixture{clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), dir: deviceplugintest.Dir(t)}
	m, err := deviceplugin.New(deviceplugin.Config{Dir: f.dir, Clock: f.clock, OnCall: func(c string) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.calls = append(f.calls, c)
	}})
	require.NoError(t, err)
	t.Cleanup(m.Close)
	f.m = m
	return f
}

func (f *fixture) takeCalls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.calls
	f.calls = nil
	return c
}

func startSample(t *testing.T, f *fixture, count int, preStart bool) *sample.Plugin {
	p, err := sample.New(sample.Config{Resource: gpu, Count: count, KubeletDir: f.dir, PreStartRequired: preStart})
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background()))
	t.Cleanup(p.Stop)
	return p
}

// waitResources waits until the manager reports capacity and
// allocatable of gpu.
func waitResources(t *testing.T, f *fixture, capacity, allocatable int64) {
	t.Helper()
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		cp, al := f.m.Resources(f.clock.Now())
		q, a := cp[gpu], al[gpu]
		assert.Equal(c, capacity, q.Value(), "capacity")
		assert.Equal(c, allocatable, a.Value(), "allocatable")
	}, 30*time.Second, 5*time.Millisecond)
}

func gpuPod(name string, n int64) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
			Limits: corev1.ResourceList{gpu: *resource.NewQuantity(n, resource.DecimalSI)}}}}}}
}

func TestRegisterListAndWatchAndHealth(t *testing.T) {
	f := newManager(t)
	p := startSample(t, f, 4, false)
	waitResources(t, f, 4, 4)
	// Unhealthy devices count in capacity, not in allocatable.
	require.NoError(t, p.SetHealth("gpu-1", false))
	waitResources(t, f, 4, 3)
	require.NoError(t, p.SetHealth("gpu-1", true))
	waitResources(t, f, 4, 4)
}

func TestAllocateAndRelease(t *testing.T) {
	f := newManager(t)
	startSample(t, f, 4, true)
	waitResources(t, f, 4, 4)
	ctx := context.Background()

	a := gpuPod("a", 2)
	require.NoError(t, f.m.Allocate(ctx, a))
	assert.Equal(t, []string{
		"GetPreferredAllocation example.com/gpu default/a/app 2 of [gpu-0 gpu-1 gpu-2 gpu-3]",
		"Allocate example.com/gpu default/a/app [gpu-0 gpu-1]",
	}, f.takeCalls())
	allocs := f.m.Container(a.UID, "app")
	require.Len(t, allocs, 1)
	assert.Equal(t, []string{"gpu-0", "gpu-1"}, allocs[0].DeviceIDs)
	assert.Equal(t, map[string]string{"GPU_VISIBLE_DEVICES": "gpu-0,gpu-1"}, allocs[0].Response.Envs)
	require.Len(t, allocs[0].Response.Devices, 2)
	assert.Equal(t, "/dev/gpu-0", allocs[0].Response.Devices[0].ContainerPath)
	require.NoError(t, f.m.PreStart(ctx, a, "app"))
	assert.Equal(t, []string{"PreStartContainer example.com/gpu default/a/app [gpu-0 gpu-1]"}, f.takeCalls())

	// Admitting the same pod again gives it nothing more.
	require.NoError(t, f.m.Allocate(ctx, a))
	assert.Empty(t, f.takeCalls())

	// The checkpoint says who has what.
	b, err := os.ReadFile(filepath.Join(f.dir, deviceplugin.CheckpointFile))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"PodUID": "uid-a"`)
	assert.Contains(t, string(b), `"GPU_VISIBLE_DEVICES": "gpu-0,gpu-1"`)

	// Three more do not fit beside two: the device manager's words, and
	// nothing allocated.
	err = f.m.Allocate(ctx, gpuPod("b", 3))
	require.EqualError(t, err, "requested number of devices unavailable for example.com/gpu. Requested: 3, Available: 2")
	assert.False(t, f.m.Has("uid-b"))
	assert.Equal(t, []string{"gpu-0", "gpu-1"}, f.m.InUse(gpu))

	// Two more do: the others.
	require.NoError(t, f.m.Allocate(ctx, gpuPod("c", 2)))
	assert.Equal(t, []string{"gpu-2", "gpu-3"}, f.m.Container("uid-c", "app")[0].DeviceIDs)

	f.m.Release(a.UID)
	f.m.Release("uid-c")
	assert.Empty(t, f.m.InUse(gpu))
	b, err = os.ReadFile(filepath.Join(f.dir, deviceplugin.CheckpointFile))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "uid-a")
}

func TestUnhealthyDevicesAreNotAllocated(t *testing.T) {
	f := newManager(t)
	p := startSample(t, f, 2, false)
	waitResources(t, f, 2, 2)
	require.NoError(t, p.SetHealth("gpu-0", false))
	waitResources(t, f, 2, 1)
	require.NoError(t, f.m.Allocate(context.Background(), gpuPod("a", 1)))
	assert.Equal(t, []string{"gpu-1"}, f.m.InUse(gpu))
}

func TestResourcesOfNoPluginAreLeftAlone(t *testing.T) {
	f := newManager(t)
	pod := gpuPod("a", 2)
	require.NoError(t, f.m.Allocate(context.Background(), pod), "a resource no plugin registered is not the device manager's")
	assert.False(t, f.m.Has(pod.UID))
}

// register calls the kubelet's Registration service as a plugin would.
func register(t *testing.T, f *fixture, req *pluginapi.RegisterRequest) error {
	return deviceplugintest.Register(f.dir, req)
}

func TestRegisterRefusesBadRequests(t *testing.T) {
	f := newManager(t)
	p := startSample(t, f, 1, false)
	endpoint := filepath.Base(p.Socket())
	for _, tc := range []struct {
		name string
		req  *pluginapi.RegisterRequest
		want string
	}{
		{"an unknown version", &pluginapi.RegisterRequest{Version: "v1alpha", Endpoint: endpoint, ResourceName: "example.com/other"},
			`requested API version "v1alpha" is not supported by kubelet. Supported versions are ["v1beta1"]`},
		{"a name without a domain", &pluginapi.RegisterRequest{Version: "v1beta1", Endpoint: endpoint, ResourceName: "gpu"},
			`the ResourceName "gpu" is invalid`},
		{"a kubernetes.io name", &pluginapi.RegisterRequest{Version: "v1beta1", Endpoint: endpoint, ResourceName: "kubernetes.io/gpu"},
			`the ResourceName "kubernetes.io/gpu" is invalid`},
		{"no socket there", &pluginapi.RegisterRequest{Version: "v1beta1", Endpoint: "missing.sock", ResourceName: "example.com/other"},
			"failed to get device plugin options"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := register(t, f, tc.req)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	cp, _ := f.m.Resources(f.clock.Now())
	assert.NotContains(t, cp, corev1.ResourceName("example.com/other"), "nothing registered")
}

func TestSecondRegisterReplacesTheFirst(t *testing.T) {
	f := newManager(t)
	first := &deviceplugintest.Fake{Devices: deviceplugintest.Healthy(4)}
	first.Start(t, f.dir, "first.sock", gpu)
	waitResources(t, f, 4, 4)
	second := &deviceplugintest.Fake{Devices: deviceplugintest.Healthy(2)}
	second.Start(t, f.dir, "second.sock", gpu)
	waitResources(t, f, 2, 2)
	// The first one going away does not touch the second's devices.
	first.Stop()
	require.NoError(t, f.m.Allocate(context.Background(), gpuPod("a", 2)))
	cp, al := f.m.Resources(f.clock.Now())
	assert.Equal(t, int64(2), cp.Name(gpu, resource.DecimalSI).Value())
	assert.Equal(t, int64(2), al.Name(gpu, resource.DecimalSI).Value())
}

func TestAllocateErrorLeavesNothingAllocated(t *testing.T) {
	f := newManager(t)
	(&deviceplugintest.Fake{Devices: deviceplugintest.Healthy(4), AllocateErr: errors.New("device is on fire")}).Start(t, f.dir, "fake.sock", gpu)
	waitResources(t, f, 4, 4)
	pod := gpuPod("a", 1)
	pod.Spec.Containers = append(pod.Spec.Containers, pod.Spec.Containers[0])
	pod.Spec.Containers[1].Name = "second"
	err := f.m.Allocate(context.Background(), pod)
	require.Error(t, err)
	assert.Equal(t, "rpc error: code = Unknown desc = device is on fire", err.Error())
	assert.False(t, f.m.Has(pod.UID))
	assert.Empty(t, f.m.InUse(gpu))
}

func TestPluginThatDiesTakesItsDevicesAfterTheGrace(t *testing.T) {
	f := newManager(t)
	p := startSample(t, f, 4, false)
	waitResources(t, f, 4, 4)
	require.NoError(t, f.m.Allocate(context.Background(), gpuPod("a", 1)))
	p.Stop()
	// At once: every device unhealthy, none allocatable.
	waitResources(t, f, 4, 0)
	err := f.m.Allocate(context.Background(), gpuPod("b", 1))
	require.EqualError(t, err, "requested number of devices unavailable for example.com/gpu. Requested: 1, Available: 0")
	assert.Equal(t, f.clock.Now().Add(deviceplugin.EndpointStopGracePeriod), f.m.NextExpiry())
	f.clock.Step(deviceplugin.EndpointStopGracePeriod - time.Second)
	waitResources(t, f, 4, 0)
	// After the grace: forgotten, reported as 0.
	f.clock.Step(time.Second)
	waitResources(t, f, 0, 0)
	assert.True(t, f.m.NextExpiry().IsZero())
	// The pod that had one keeps its allocation until it ends.
	assert.True(t, f.m.Has("uid-a"))

	// Registering again brings the devices back.
	p2 := startSample(t, f, 4, false)
	waitResources(t, f, 4, 4)
	_ = p2
	err = f.m.Allocate(context.Background(), gpuPod("c", 4))
	require.Error(t, err, "gpu-0 is still the first pod's")
	assert.True(t, strings.HasPrefix(err.Error(), "requested number of devices unavailable"))
}

func TestPreStartContainerError(t *testing.T) {
	f := newManager(t)
	(&deviceplugintest.Fake{Devices: deviceplugintest.Healthy(2), PreStartErr: errors.New("device not ready")}).Start(t, f.dir, "fake.sock", gpu)
	waitResources(t, f, 2, 2)
	pod := gpuPod("a", 1)
	require.NoError(t, f.m.Allocate(context.Background(), pod))
	err := f.m.PreStart(context.Background(), pod, "app")
	require.EqualError(t, err, "device plugin PreStartContainer rpc failed with err: rpc error: code = Unknown desc = device not ready")
	assert.True(t, f.m.Has(pod.UID), "the pod keeps its devices: the start is tried again")
}

func TestRetainReleasesInactivePods(t *testing.T) {
	f := newManager(t)
	startSample(t, f, 4, false)
	waitResources(t, f, 4, 4)
	require.NoError(t, f.m.Allocate(context.Background(), gpuPod("a", 2)))
	require.NoError(t, f.m.Allocate(context.Background(), gpuPod("b", 2)))
	f.m.Retain(map[types.UID]bool{"uid-b": true})
	assert.False(t, f.m.Has("uid-a"))
	assert.Equal(t, []string{"gpu-2", "gpu-3"}, f.m.InUse(gpu))
	b, err := os.ReadFile(filepath.Join(f.dir, deviceplugin.CheckpointFile))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "uid-a")
}

// A list the plugin sent is Announced only once OnChange has been told of
// it: whoever waits for Announced knows the node status was asked for.
func TestAnnouncedFollowsOnChange(t *testing.T) {
	dir := deviceplugintest.Dir(t)
	var mu sync.Mutex
	var seen [][]string // the healthy devices at each OnChange
	var m *deviceplugin.Manager
	m, err := deviceplugin.New(deviceplugin.Config{Dir: dir, Clock: clock.NewFake(time.Now()), OnChange: func() {
		_, al := m.Resources(time.Now())
		q := al[gpu]
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, []string{q.String()})
	}})
	require.NoError(t, err)
	t.Cleanup(m.Close)
	assert.Nil(t, m.Announced(gpu), "nothing before the plugin registers")
	p, err := sample.New(sample.Config{Resource: gpu, Count: 2, KubeletDir: dir})
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background()))
	t.Cleanup(p.Stop)

	healthy := func(devs []*pluginapi.Device) []string {
		var out []string
		for _, d := range devs {
			out = append(out, d.ID+"="+d.Health)
		}
		return out
	}
	changes := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(seen)
	}
	require.Eventually(t, func() bool { return len(m.Announced(gpu)) == 2 }, 30*time.Second, time.Millisecond)
	assert.Equal(t, []string{"gpu-0=Healthy", "gpu-1=Healthy"}, healthy(m.Announced(gpu)))
	assert.Equal(t, 1, changes(), "OnChange ran before the list was announced")

	require.NoError(t, p.SetHealth("gpu-1", false))
	require.Eventually(t, func() bool { return m.Announced(gpu)[1].Health == pluginapi.Unhealthy }, 30*time.Second, time.Millisecond)
	assert.Equal(t, 2, changes())
	mu.Lock()
	assert.Equal(t, []string{"1"}, seen[1], "OnChange saw the new allocatable")
	mu.Unlock()
}
