package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver/metrics/metricstest"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/stepper"
)

// A live cluster's /metrics holds every component's metrics, and they
// move as the cluster works: the API server's requests, the controllers'
// queues, the scheduler's attempts, the Go runtime and the process; each
// kubelet's own are reached through the API server's node proxy.
func TestClusterMetricsMove(t *testing.T) {
	c, err := newTestCluster(t, Config{NodeCount: 2, UnsafeNoFsync: true, Stages: kubelet.Stages{ContainerCreating: 10 * time.Millisecond, Running: 10 * time.Millisecond, Ready: 10 * time.Millisecond}})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, c.Start(ctx))
	cl := c.Client("t")
	scrape := func(path string) metricstest.Families {
		t.Helper()
		body, err := cl.RawGet(ctx, path)
		require.NoError(t, err)
		f, err := metricstest.ParseString(string(body))
		require.NoError(t, err)
		return f
	}
	before := scrape("/metrics")

	labels := map[string]string{"app": "web"}
	_, err = cl.Deployments().Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](3), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}}})
	require.NoError(t, err)
	var after metricstest.Families
	require.Eventually(t, func() bool {
		after = scrape("/metrics")
		return after.Sum("scheduler_schedule_attempts_total", map[string]string{"result": "scheduled", "profile": "default-scheduler"}) >= 3
	}, 60*time.Second, 100*time.Millisecond)

	moved := func(name string, l map[string]string) float64 { return after.Sum(name, l) - before.Sum(name, l) }
	assert.Equal(t, 1.0, moved("apiserver_request_total", map[string]string{"verb": "POST", "resource": "deployments", "group": "apps", "code": "201"}))
	assert.GreaterOrEqual(t, moved("apiserver_request_total", map[string]string{"verb": "POST", "resource": "pods", "code": "201"}), 3.0,
		"the ReplicaSet controller's creates")
	assert.GreaterOrEqual(t, moved("apiserver_request_total", map[string]string{"verb": "POST", "resource": "pods", "subresource": "binding", "code": "201"}), 3.0,
		"the scheduler's bindings")
	for _, q := range []string{"deployment", "replicaset"} {
		assert.Greater(t, moved("workqueue_adds_total", map[string]string{"name": q}), 0.0, q)
		assert.Greater(t, moved("workqueue_work_duration_seconds", map[string]string{"name": q}), 0.0, q)
		assert.True(t, after.Has("workqueue_depth", map[string]string{"name": q}), q)
		assert.True(t, after.Has("workqueue_unfinished_work_seconds", map[string]string{"name": q}), q)
	}
	assert.Greater(t, after.Sum("apiserver_watch_events_total", map[string]string{"resource": "pods"}), 0.0)
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "scheduler_pending_pods", "apiserver_longrunning_requests"} {
		assert.Contains(t, after, name)
	}
	// The kubelets' queues are not among the controllers': their names
	// carry the node's.
	for _, q := range after.LabelValues("workqueue_adds_total", "name") {
		assert.NotContains(t, q, "kubelet/")
	}

	// Each kubelet's own /metrics, through the node proxy.
	var started float64
	require.Eventually(t, func() bool {
		started = 0
		for _, node := range []string{"node-1", "node-2"} {
			k := scrape("/api/v1/nodes/" + node + "/proxy/metrics")
			assert.Equal(t, 1.0, k.Sum("kubelet_node_name", map[string]string{"node": node}))
			started += k.Sum("kubelet_pod_start_duration_seconds", nil)
		}
		return started >= 3
	}, 60*time.Second, 100*time.Millisecond)
	k1, k2 := scrape("/api/v1/nodes/node-1/proxy/metrics"), scrape("/api/v1/nodes/node-2/proxy/metrics")
	assert.GreaterOrEqual(t, k1.Sum("kubelet_running_pods", nil)+k2.Sum("kubelet_running_pods", nil), 3.0)
	assert.GreaterOrEqual(t, k1.Sum("kubelet_running_containers", map[string]string{"container_state": "running"})+
		k2.Sum("kubelet_running_containers", map[string]string{"container_state": "running"}), 3.0)
	assert.NotContains(t, k1, "apiserver_request_total", "a kubelet's registry is its own")
	_, err = cl.RawGet(ctx, "/api/v1/nodes/node-9/proxy/metrics")
	assert.Error(t, err, "no such node")
}

// Step mode measures too (on its fake clock), and needs nothing for it.
func TestStepModeClusterHasMetrics(t *testing.T) {
	c := stepCluster(t)
	_, err := c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	f, err := metricstest.Gather(c.Metrics())
	require.NoError(t, err)
	assert.Greater(t, f.Sum("workqueue_adds_total", map[string]string{"name": "nodelifecycle"}), 0.0)
	assert.Greater(t, f.Sum("apiserver_request_total", nil), 0.0)
}
