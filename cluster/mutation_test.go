package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
)

// newTestCluster is New with the cache mutation detector on: when the test
// ends, no component may have changed a shared object in place.
func newTestCluster(t *testing.T, cfg Config) (*Cluster, error) {
	t.Helper()
	cfg.DetectCacheMutations = true
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() {
		if err := c.CheckCacheMutations(); err != nil {
			t.Error(err)
		}
	})
	return c, nil
}

// The sharing rule cannot be broken silently: in live mode the controller
// manager's informers are shared, and what they watch is the API server's
// own decoded object; a change made to one in place is caught.
func TestCacheMutationDetectorCatchesAChangedSharedObject(t *testing.T) {
	c, err := New(Config{NodeCount: 1, UnsafeNoFsync: true, DetectCacheMutations: true})
	require.NoError(t, err)
	defer c.Close()
	cl := c.Client("t")
	// The pods informer every pod-watching controller of the controller
	// manager shares. It runs here alone (the cluster is not started), so
	// that the change below is ordered after everything that read the pod
	// and the race detector has nothing to say about it.
	pods := cache.For(c.informers, cl.Pods(), "", client.ListOptions{}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); pods.Run(ctx) }()
	require.Eventually(t, pods.HasSynced, 30*time.Second, 5*time.Millisecond)
	_, err = cl.Pods().Create(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{"app": "p"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	require.Eventually(t, func() bool { _, ok := pods.Get("default", "p"); return ok }, 30*time.Second, 5*time.Millisecond)
	cancel()
	<-done
	require.NoError(t, c.CheckCacheMutations())

	pod, _ := pods.Get("default", "p")
	pod.Labels["app"] = "changed-in-place" // the bug the detector is for
	err = c.CheckCacheMutations()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "default/p")
}
