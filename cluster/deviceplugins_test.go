package cluster

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/kubelet/deviceplugin/deviceplugintest"
	"github.com/kubesim/kubesim/kubelet/deviceplugin/sample"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// In step mode the calls a kubelet makes to a device plugin while it
// admits and starts a pod are lines of its step; the scheduler fits the
// plugin's resource from the node's allocatable.
func TestDevicePluginCallsInTheStepTrace(t *testing.T) {
	root := deviceplugintest.Dir(t)
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 1, DevicePlugins: &DevicePluginsConfig{RootDir: root}})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)

	p, err := sample.New(sample.Config{Resource: "example.com/gpu", Count: 4, KubeletDir: DevicePluginDir(root, "node-1")})
	require.NoError(t, err)
	require.NoError(t, p.Start(bg))
	t.Cleanup(p.Stop)
	cl := c.Client("test")
	// The devices arrive on the plugin's stream, outside any step: step
	// until the heartbeat has posted them.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err = c.RunUntilStable(bg, stepper.Limits{})
		require.NoError(t, err)
		node, err := cl.Nodes().Get(bg, "", "node-1")
		require.NoError(t, err)
		if node.Status.Allocatable.Name("example.com/gpu", resource.DecimalSI).Value() == 4 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the node never showed the plugin's devices")
		time.Sleep(10 * time.Millisecond)
	}
	mark := len(c.Trace())

	gpuPod := func(name string, n int64) *corev1.Pod {
		q := *resource.NewQuantity(n, resource.DecimalSI)
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"example.com/gpu": q}}}}}}
	}
	_, err = cl.Pods().Create(bg, gpuPod("cuda", 2))
	require.NoError(t, err)
	_, err = cl.Pods().Create(bg, gpuPod("cuda-3", 3))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)

	var b strings.Builder
	for _, e := range c.Trace()[mark:] {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	trace := b.String()
	assert.Regexp(t, `kubelet/node-1\s+default/cuda .*\n(.*\n)*?\s+-> deviceplugin GetPreferredAllocation example.com/gpu default/cuda/app 2 of \[gpu-0 gpu-1 gpu-2 gpu-3\]\n\s+-> deviceplugin Allocate example.com/gpu default/cuda/app \[gpu-0 gpu-1\]\n`, trace)
	assert.NotContains(t, trace, "default/cuda-3/app", "the pod that does not fit is not admitted anywhere")

	cuda, err := cl.Pods().Get(bg, "default", "cuda")
	require.NoError(t, err)
	assert.Equal(t, corev1.PodRunning, cuda.Status.Phase)
	pending, err := cl.Pods().Get(bg, "default", "cuda-3")
	require.NoError(t, err)
	assert.Equal(t, corev1.PodPending, pending.Status.Phase)
	events, err := cl.Events().List(bg, "default", client.ListOptions{FieldSelector: "involvedObject.name=cuda-3,reason=FailedScheduling"})
	require.NoError(t, err)
	require.NotEmpty(t, events.Items)
	assert.True(t, strings.HasPrefix(events.Items[0].Message, "0/1 nodes are available: 1 Insufficient example.com/gpu."), events.Items[0].Message)
}
