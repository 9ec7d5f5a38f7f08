package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/examples/coscheduling/coscheduling"
	"github.com/kubesim/kubesim/runmode"
	schedconfig "github.com/kubesim/kubesim/scheduler/config"
	"github.com/kubesim/kubesim/stepper"
)

// The configuration that enables the plugin, as a file given to the
// binary's --config.
const config = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    multiPoint:
      enabled:
      - name: Coscheduling
`

// newCluster is a step-mode kubesim cluster of three nodes, each with
// room for one pod of 2 cpu, its scheduler built with the plugin.
func newCluster(t *testing.T) (*cluster.Cluster, *client.Client) {
	t.Helper()
	sc, err := schedconfig.Decode([]byte(config), "config.yaml")
	require.NoError(t, err)
	var nodes []cluster.NodeConfig
	for _, name := range []string{"node-1", "node-2", "node-3"} {
		nodes = append(nodes, cluster.NodeConfig{Name: name, Capacity: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("10")}})
	}
	c, err := cluster.New(cluster.Config{Mode: runmode.Step, Seed: 1, Nodes: nodes, SchedulerConfig: sc,
		SchedulerPlugins: schedconfig.Registry{coscheduling.Name: coscheduling.New}})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	run(t, c)
	return c, c.Client("test")
}

func run(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	_, err := c.RunUntilStable(context.Background(), stepper.Limits{})
	require.NoError(t, err)
}

// member is a pod of the group that takes a whole node (2 cpu).
func member(name, group, minAvailable string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}},
	}
	if group != "" {
		p.Labels = map[string]string{coscheduling.PodGroupLabel: group}
		p.Annotations = map[string]string{coscheduling.MinAvailableAnnotation: minAvailable}
	}
	return p
}

func nodeOf(t *testing.T, cl *client.Client, name string) string {
	t.Helper()
	p, err := cl.Pods().Get(context.Background(), "default", name)
	require.NoError(t, err)
	return p.Spec.NodeName
}

// A group of 3 whose third member does not fit: the two that fit wait in
// Permit, holding their nodes, and nothing is bound; once the third fits
// (the pod in its way is gone) all three are bound together.
func TestGroupBoundOnlyWhenAllFit(t *testing.T) {
	c, cl := newCluster(t)
	ctx := context.Background()
	_, err := cl.Pods().Create(ctx, member("blocker", "", ""))
	require.NoError(t, err)
	run(t, c)
	require.NotEmpty(t, nodeOf(t, cl, "blocker"))

	for _, name := range []string{"web-1", "web-2", "web-3"} {
		_, err := cl.Pods().Create(ctx, member(name, "web", "3"))
		require.NoError(t, err)
	}
	run(t, c)
	for _, name := range []string{"web-1", "web-2", "web-3"} {
		assert.Empty(t, nodeOf(t, cl, name), "%s is not bound while its group does not fit", name)
	}

	require.NoError(t, cl.Pods().Delete(ctx, "default", "blocker", &metav1.DeleteOptions{GracePeriodSeconds: new(int64)}))
	run(t, c)
	nodes := map[string]bool{}
	for _, name := range []string{"web-1", "web-2", "web-3"} {
		n := nodeOf(t, cl, name)
		assert.NotEmpty(t, n, "%s is bound with its group", name)
		nodes[n] = true
	}
	assert.Len(t, nodes, 3, "one member per node")
}

// A group that never completes: at the plugin's timeout the waiting
// member is rejected with kube-scheduler's message, and stays unbound.
func TestGroupTimesOut(t *testing.T) {
	c, cl := newCluster(t)
	ctx := context.Background()
	_, err := cl.Pods().Create(ctx, member("db-1", "db", "2"))
	require.NoError(t, err)
	run(t, c)
	assert.Empty(t, nodeOf(t, cl, "db-1"))
	_, err = c.Advance(ctx, coscheduling.DefaultPermitWaitingTime, stepper.Limits{})
	require.NoError(t, err)
	p, err := cl.Pods().Get(ctx, "default", "db-1")
	require.NoError(t, err)
	assert.Empty(t, p.Spec.NodeName)
	var cond *corev1.PodCondition
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodScheduled {
			cond = &p.Status.Conditions[i]
		}
	}
	require.NotNil(t, cond)
	assert.Equal(t, corev1.PodReasonUnschedulable, cond.Reason)
	assert.Equal(t, "rejected due to timeout after waiting 1m0s at plugin Coscheduling", cond.Message)

	// Its second member comes: both are bound.
	_, err = cl.Pods().Create(ctx, member("db-2", "db", "2"))
	require.NoError(t, err)
	_, err = c.Advance(ctx, 2*time.Second, stepper.Limits{})
	require.NoError(t, err)
	run(t, c)
	assert.NotEmpty(t, nodeOf(t, cl, "db-1"))
	assert.NotEmpty(t, nodeOf(t, cl, "db-2"))
}
