package cluster

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/runmode"
)

// probe is a controller that only records that it runs.
type probe struct {
	mu      *sync.Mutex
	running *int
}

func (p probe) Controllers() []*controllers.Controller { return nil }

func (p probe) Run(ctx context.Context) {
	p.mu.Lock()
	*p.running++
	p.mu.Unlock()
	<-ctx.Done()
	p.mu.Lock()
	*p.running--
	p.mu.Unlock()
}

// A pod of image kubesim/controller:NAME runs the controller while it
// runs, with its own loopback client; the controller stops with the pod.
func TestControllerImageRunsWithItsPod(t *testing.T) {
	var mu sync.Mutex
	running := 0
	factory := func(x ControllerContext) (Component, error) {
		assert.Empty(t, x.Namespace)
		assert.Equal(t, runmode.Live, x.Mode, "a controller in a pod runs live")
		// The loopback client works: the controller is an API client.
		_, err := x.Client.Namespaces().Get(context.Background(), "", "default")
		assert.NoError(t, err)
		return probe{mu: &mu, running: &running}, nil
	}
	c, err := newTestCluster(t, Config{NodeCount: 1, UnsafeNoFsync: true, ControllerImages: map[string]InitFunc{"probe": factory},
		Stages: kubelet.Stages{ContainerCreating: 10 * time.Millisecond, Running: 10 * time.Millisecond, Ready: 10 * time.Millisecond}})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, c.Start(ctx))
	cl := c.Client("t")
	_, err = cl.Pods().Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "ctrl", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: ControllerImage("probe")}}}})
	require.NoError(t, err)
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return running
	}
	require.Eventually(t, func() bool { return count() == 1 }, 10*time.Second, 10*time.Millisecond)
	zero := int64(0)
	require.NoError(t, cl.Pods().Delete(ctx, "default", "ctrl", &metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	require.Eventually(t, func() bool { return count() == 0 }, 10*time.Second, 10*time.Millisecond, "the controller stops with its pod")
}
