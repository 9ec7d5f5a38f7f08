package daemonset_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/controllers/daemonset"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

var bg = context.Background()

func newCluster(t *testing.T) (*cluster.Cluster, *client.Client) {
	c, err := cluster.New(cluster.Config{DetectCacheMutations: true, Mode: runmode.Step, Seed: 9, Nodes: []cluster.NodeConfig{
		{Name: "node-1", Labels: map[string]string{"disk": "ssd"}}, {Name: "node-2", Labels: map[string]string{"disk": "ssd"}},
		{Name: "node-3", Labels: map[string]string{"disk": "ssd"}}, {Name: "node-4"},
	}})
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := c.CheckCacheMutations(); err != nil {
			t.Error(err)
		}
		c.Close()
	})
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	return c, c.Client("test")
}

func podsOf(t *testing.T, cl *client.Client) []*corev1.Pod {
	t.Helper()
	l, err := cl.Pods().List(bg, "default", client.ListOptions{LabelSelector: "app=agent"})
	require.NoError(t, err)
	return l.Items
}

func revisions(t *testing.T, cl *client.Client) map[string]int64 {
	t.Helper()
	l, err := cl.ControllerRevisions().List(bg, "default", client.ListOptions{LabelSelector: "app=agent"})
	require.NoError(t, err)
	out := map[string]int64{}
	for _, r := range l.Items {
		out[r.Labels[appsv1.ControllerRevisionHashLabelKey]] = r.Revision
	}
	return out
}

// agentDaemonSet is the DaemonSet the tests create: pods labelled
// app=agent running fluent/fluent-bit:3.1.
func agentDaemonSet() *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "fluent/fluent-bit:3.1"}}},
			},
		},
	}
}

func TestDaemonSetLifecycle(t *testing.T) {
	c, cl := newCluster(t)
	zero := int32(0)
	ds := agentDaemonSet()
	ds.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"}
	ds.Spec.RevisionHistoryLimit = &zero
	_, err := cl.DaemonSets().Create(bg, ds)
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)

	// One pod on each ssd node, placed by the scheduler through the
	// pod's matchFields affinity.
	pods := podsOf(t, cl)
	nodes := map[string]bool{}
	for _, p := range pods {
		assert.Equal(t, corev1.PodRunning, p.Status.Phase)
		assert.Equal(t, p.Spec.NodeName, daemonset.TargetNodeName(&corev1.Pod{Spec: corev1.PodSpec{Affinity: p.Spec.Affinity}}), "bound where its affinity says")
		nodes[p.Spec.NodeName] = true
	}
	assert.Equal(t, map[string]bool{"node-1": true, "node-2": true, "node-3": true}, nodes)
	got, err := cl.DaemonSets().Get(bg, "default", "agent")
	require.NoError(t, err)
	assert.Equal(t, appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 3, NumberAvailable: 3,
		UpdatedNumberScheduled: 3, ObservedGeneration: 1}, got.Status)
	first := revisions(t, cl)
	require.Len(t, first, 1)

	// node-4 gains the label: it gets a pod; node-1 loses it: its pod goes.
	_, err = cl.Nodes().Patch(bg, "", "node-4", client.MergePatch, []byte(`{"metadata":{"labels":{"disk":"ssd"}}}`))
	require.NoError(t, err)
	_, err = cl.Nodes().Patch(bg, "", "node-1", client.MergePatch, []byte(`{"metadata":{"labels":{"disk":null}}}`))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	nodes = map[string]bool{}
	for _, p := range podsOf(t, cl) {
		nodes[p.Spec.NodeName] = true
	}
	assert.Equal(t, map[string]bool{"node-2": true, "node-3": true, "node-4": true}, nodes)

	// A new image rolls out: at every step at most maxUnavailable (1)
	// node lacks an available pod.
	_, err = cl.DaemonSets().Patch(bg, "default", "agent", client.StrategicPatch,
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"fluent/fluent-bit:3.2"}]}}}}`))
	require.NoError(t, err)
	for range 2000 {
		_, did, err := c.Step(bg)
		require.NoError(t, err)
		available := map[string]bool{}
		for _, p := range podsOf(t, cl) {
			if p.DeletionTimestamp == nil && api.IsPodReady(p) {
				available[p.Spec.NodeName] = true
			}
		}
		require.GreaterOrEqual(t, len(available), 2, "never more than one node without an available daemon")
		if !did {
			break
		}
	}
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	for _, p := range podsOf(t, cl) {
		assert.Equal(t, "fluent/fluent-bit:3.2", p.Spec.Containers[0].Image)
	}
	second := revisions(t, cl)
	assert.Len(t, second, 1, "revisionHistoryLimit 0: the old revision goes once no pod runs it")
	for h, n := range second {
		assert.NotContains(t, first, h)
		assert.Equal(t, int64(2), n)
	}

	// Rolling back to the first template: revision 3, under the hash the
	// first template had.
	_, err = cl.DaemonSets().Patch(bg, "default", "agent", client.StrategicPatch,
		[]byte(`{"spec":{"revisionHistoryLimit":5,"template":{"spec":{"containers":[{"name":"agent","image":"fluent/fluent-bit:3.1"}]}}}}`))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	third := revisions(t, cl)
	for h := range first {
		assert.Equal(t, int64(3), third[h], "the first template's hash comes back as revision 3")
	}
	assert.Len(t, third, 2)
	got, err = cl.DaemonSets().Get(bg, "default", "agent")
	require.NoError(t, err)
	assert.Equal(t, int32(3), got.Status.UpdatedNumberScheduled)
	assert.Equal(t, got.Generation, got.Status.ObservedGeneration)
}

func TestMaxSurgeStartsTheNewPodFirst(t *testing.T) {
	c, cl := newCluster(t)
	s, u := intstr.FromInt32(1), intstr.FromInt32(0)
	ds := agentDaemonSet()
	ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxSurge: &s, MaxUnavailable: &u}}
	_, err := cl.DaemonSets().Create(bg, ds)
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	require.Len(t, podsOf(t, cl), 4)

	_, err = cl.DaemonSets().Patch(bg, "default", "agent", client.StrategicPatch,
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"fluent/fluent-bit:3.2"}]}}}}`))
	require.NoError(t, err)
	maxPods := 0
	for range 3000 {
		_, did, err := c.Step(bg)
		require.NoError(t, err)
		ready := map[string]bool{}
		live := 0
		for _, p := range podsOf(t, cl) {
			if p.DeletionTimestamp == nil {
				live++
			}
			if p.DeletionTimestamp == nil && api.IsPodReady(p) {
				ready[p.Spec.NodeName] = true
			}
		}
		maxPods = max(maxPods, live)
		require.Len(t, ready, 4, "maxUnavailable 0: every node keeps a ready daemon")
		require.LessOrEqual(t, live, 5, "maxSurge 1: at most one extra pod")
		if !did {
			break
		}
	}
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	assert.Equal(t, 5, maxPods, "the surge pod did run beside the old one")
	for _, p := range podsOf(t, cl) {
		assert.Equal(t, "fluent/fluent-bit:3.2", p.Spec.Containers[0].Image)
	}
}
