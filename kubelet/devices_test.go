package kubelet

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/kubelet/deviceplugin"
	"github.com/kubesim/kubesim/kubelet/deviceplugin/deviceplugintest"
	"github.com/kubesim/kubesim/kubelet/deviceplugin/sample"
	"github.com/kubesim/kubesim/kubelet/shell"
)

const gpuResource = "example.com/gpu"

// newDeviceFixture is a kubelet with a device manager and the sample
// plugin's four devices registered and reported in the node status.
func newDeviceFixture(t *testing.T) (*fixture, *sample.Plugin, *[]string) {
	dir := deviceplugintest.Dir(t)
	var calls []string
	f := newFixture(t, Config{DevicePlugins: &deviceplugin.Config{Dir: dir, OnCall: func(c string) { calls = append(calls, c) }}})
	t.Cleanup(f.k.CloseDevicePlugins)
	p, err := sample.New(sample.Config{Resource: gpuResource, Count: 4, KubeletDir: dir, PreStartRequired: true})
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background()))
	t.Cleanup(p.Stop)
	f.waitGPUs(4, 4)
	return f, p, &calls
}

// waitGPUs waits until the device manager has heard of the devices,
// then lets the heartbeat post them and checks the node's status.
func (f *fixture) waitGPUs(capacity, allocatable int64) {
	f.t.Helper()
	require.EventuallyWithT(f.t, func(c *assert.CollectT) {
		cp, al := f.k.devices.Resources(f.clk.Now())
		assert.Equal(c, capacity, cp.Name(gpuResource, resource.DecimalSI).Value())
		assert.Equal(c, allocatable, al.Name(gpuResource, resource.DecimalSI).Value())
	}, 30*time.Second, 5*time.Millisecond)
	f.settle()
	node, err := f.env.Client.Nodes().Get(f.ctx, "", f.k.NodeName())
	require.NoError(f.t, err)
	assert.Equal(f.t, capacity, node.Status.Capacity.Name(gpuResource, resource.DecimalSI).Value(), "capacity")
	assert.Equal(f.t, allocatable, node.Status.Allocatable.Name(gpuResource, resource.DecimalSI).Value(), "allocatable")
	assert.Equal(f.t, "4", node.Status.Capacity.Cpu().String(), "the node's own capacity stays")
}

func withGPUs(n int64) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		q := *resource.NewQuantity(n, resource.DecimalSI)
		p.Spec.Containers[0].Resources = corev1.ResourceRequirements{
			Requests: corev1.ResourceList{gpuResource: q}, Limits: corev1.ResourceList{gpuResource: q}}
	}
}

// A pod asking for two devices gets them when admitted; the plugin's
// answer is in its container (kubectl exec -- env), and the devices are
// free again once the pod is gone.
func TestDevicePluginGivesThePodItsDevices(t *testing.T) {
	f, p, calls := newDeviceFixture(t)
	f.createPod("cuda", withGPUs(2))
	f.settle()
	f.until(f.clk.Now().Add(time.Second))
	assert.Equal(t, corev1.PodRunning, f.pod("cuda").Status.Phase)
	assert.Equal(t, []string{
		"GetPreferredAllocation example.com/gpu default/cuda/nginx 2 of [gpu-0 gpu-1 gpu-2 gpu-3]",
		"Allocate example.com/gpu default/cuda/nginx [gpu-0 gpu-1]",
		"PreStartContainer example.com/gpu default/cuda/nginx [gpu-0 gpu-1]",
	}, *calls)

	env, err := f.k.ExecTarget(f.ctx, "default", "cuda", "nginx")
	require.NoError(t, err)
	var out bytes.Buffer
	code := f.k.Exec(f.ctx, env, []string{"sh", "-c", "env; ls /dev; [ -d /usr/local/gpu ] && echo driver mounted"}, shell.Stdio{Stdout: &out})
	require.Equal(t, 0, code, out.String())
	assert.Contains(t, out.String(), "GPU_VISIBLE_DEVICES=gpu-0,gpu-1\n")
	assert.Contains(t, out.String(), "gpu-0")
	assert.Contains(t, out.String(), "driver mounted")

	// Unhealthy: still in capacity, no longer allocatable.
	require.NoError(t, p.SetHealth("gpu-3", false))
	f.waitGPUs(4, 3)

	zero := int64(0)
	require.NoError(t, f.env.Client.Pods().Delete(f.ctx, "default", "cuda", &metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	f.settle()
	assert.Empty(t, f.k.devices.InUse(gpuResource), "the pod's devices are given back")
}

// A pod that ends gives its devices back at once.
func TestDevicesFreedWhenThePodEnds(t *testing.T) {
	f, _, _ := newDeviceFixture(t)
	f.createPod("job", func(p *corev1.Pod) {
		withGPUs(4)(p)
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Annotations = map[string]string{"kubesim.io/behaviour": "exit-after=1s"}
	})
	f.settle()
	assert.Len(t, f.k.devices.InUse(gpuResource), 4)
	f.until(f.clk.Now().Add(5 * time.Second))
	require.Equal(t, corev1.PodSucceeded, f.pod("job").Status.Phase)
	assert.Empty(t, f.k.devices.InUse(gpuResource))
}

// A pod the device manager cannot give its devices is rejected as the
// kubelet rejects it: Failed, UnexpectedAdmissionError, and nothing kept.
func TestDeviceAllocationFailureRejectsThePod(t *testing.T) {
	f, _, _ := newDeviceFixture(t)
	f.createPod("greedy", withGPUs(5)) // bound by hand: no scheduler
	f.settle()
	pod := f.pod("greedy")
	assert.Equal(t, corev1.PodFailed, pod.Status.Phase)
	assert.Equal(t, "UnexpectedAdmissionError", pod.Status.Reason)
	want := "Allocate failed due to requested number of devices unavailable for example.com/gpu. Requested: 5, Available: 4, which is unexpected"
	assert.Equal(t, "Pod was rejected: "+want, pod.Status.Message)
	assert.Contains(t, f.events("greedy"), "UnexpectedAdmissionError: "+want)
	assert.Empty(t, f.k.devices.InUse(gpuResource))
	assert.Empty(t, pod.Status.ContainerStatuses, "no container started")
}

// A plugin that dies takes its devices with it: allocatable 0 at once,
// capacity 0 after the kubelet's grace.
func TestDevicePluginThatDiesTakesItsDevices(t *testing.T) {
	f, p, _ := newDeviceFixture(t)
	p.Stop()
	f.waitGPUs(4, 0)
	f.clk.Step(deviceplugin.EndpointStopGracePeriod)
	f.until(f.clk.Now().Add(DefaultRenewInterval)) // the next heartbeat
	node, err := f.env.Client.Nodes().Get(f.ctx, "", f.k.NodeName())
	require.NoError(t, err)
	assert.Equal(t, "0", node.Status.Capacity.Name(gpuResource, resource.DecimalSI).String())
	assert.True(t, strings.HasPrefix(node.Status.Allocatable.Name(gpuResource, resource.DecimalSI).String(), "0"))
}

// newFakeDeviceFixture is a kubelet with plugin registered for
// example.com/gpu, its two devices reported.
func newFakeDeviceFixture(t *testing.T, plugin *deviceplugintest.Fake) *fixture {
	dir := deviceplugintest.Dir(t)
	f := newFixture(t, Config{DevicePlugins: &deviceplugin.Config{Dir: dir}})
	t.Cleanup(f.k.CloseDevicePlugins)
	plugin.Devices = deviceplugintest.Healthy(2)
	plugin.Start(t, dir, "fake.sock", gpuResource)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		_, al := f.k.devices.Resources(f.clk.Now())
		assert.Equal(c, int64(2), al.Name(gpuResource, resource.DecimalSI).Value())
	}, 30*time.Second, 5*time.Millisecond)
	f.settle()
	return f
}

// A plugin whose Allocate fails: the pod is rejected with the plugin's
// error in the kubelet's words, and holds nothing.
func TestDevicePluginAllocateErrorRejectsThePod(t *testing.T) {
	f := newFakeDeviceFixture(t, &deviceplugintest.Fake{AllocateErr: errors.New("device is on fire")})
	f.createPod("cuda", withGPUs(1))
	f.settle()
	pod := f.pod("cuda")
	assert.Equal(t, corev1.PodFailed, pod.Status.Phase)
	assert.Equal(t, "UnexpectedAdmissionError", pod.Status.Reason)
	assert.Equal(t, "Pod was rejected: Allocate failed due to rpc error: code = Unknown desc = device is on fire, which is unexpected", pod.Status.Message)
	assert.Empty(t, f.k.devices.InUse(gpuResource))
}

// A plugin whose PreStartContainer fails: the container does not start,
// the pod's Failed event says why, and the start is tried again after the
// pod worker's back-off (the pod keeps its devices meanwhile).
func TestDevicePluginPreStartErrorHoldsTheContainer(t *testing.T) {
	f := newFakeDeviceFixture(t, &deviceplugintest.Fake{PreStartErr: errors.New("device not ready")})
	f.createPod("cuda", withGPUs(1))
	f.settle()
	f.until(f.clk.Now().Add(time.Second))
	pod := f.pod("cuda")
	assert.Equal(t, corev1.PodPending, pod.Status.Phase)
	assert.Contains(t, f.events("cuda"), "Failed: Error: device plugin PreStartContainer rpc failed with err: rpc error: code = Unknown desc = device not ready")
	assert.Len(t, f.k.devices.InUse(gpuResource), 1)
	before := f.eventCount("cuda", "Failed")
	f.until(f.clk.Now().Add(workerBackOffPeriod))
	assert.Greater(t, f.eventCount("cuda", "Failed"), before, "tried again after the back-off")
}

// The devices of a pod the kubelet no longer has (gone from its
// informer, its own sync still queued) are free for the next pod it
// admits, as the device manager frees inactive pods' devices before
// each allocation.
func TestDevicesOfAGonePodAreFreeAtTheNextAdmission(t *testing.T) {
	f, _, _ := newDeviceFixture(t)
	ghost := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "ghost", UID: "ghost-uid"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}}
	withGPUs(4)(ghost)
	require.NoError(t, f.k.devices.Allocate(f.ctx, ghost))
	require.Len(t, f.k.devices.InUse(gpuResource), 4)
	f.createPod("cuda", withGPUs(2))
	f.settle()
	assert.Equal(t, corev1.PodRunning, f.pod("cuda").Status.Phase, "admitted")
	assert.Empty(t, f.pod("cuda").Status.Reason)
	assert.False(t, f.k.devices.Has("ghost-uid"))
	assert.Equal(t, []string{"gpu-0", "gpu-1"}, f.k.devices.InUse(gpuResource))
}
