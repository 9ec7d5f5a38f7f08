package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/controllers/apfconfig"
	"github.com/kubesim/kubesim/controllers/kubernetesservice"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

var bg = context.Background()

func rs(name string, replicas int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.25"}}},
			},
		},
	}
}

func stepCluster(t *testing.T) *Cluster {
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 3})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func runningPods(t *testing.T, cl *client.Client, selector string) []*corev1.Pod {
	l, err := cl.Pods().List(bg, "default", client.ListOptions{LabelSelector: selector})
	require.NoError(t, err)
	var out []*corev1.Pod
	for _, p := range l.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil && p.Spec.NodeName != "" {
			out = append(out, p)
		}
	}
	return out
}

func TestReplicaSetSelfHealsInStepMode(t *testing.T) {
	c := stepCluster(t)
	cl := c.Client("test")
	_, err := c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	nodes, err := cl.Nodes().List(bg, "", client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, nodes.Items, 3, "every kubelet registered its node")

	_, err = cl.ReplicaSets().Create(bg, rs("web", 3))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	pods := runningPods(t, cl, "app=web")
	require.Len(t, pods, 3)

	victim := pods[0].Name
	require.NoError(t, cl.Pods().Delete(bg, "default", victim, nil))
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	pods = runningPods(t, cl, "app=web")
	require.Len(t, pods, 3, "the control loop put a pod back")
	for _, p := range pods {
		assert.NotEqual(t, victim, p.Name)
	}
	_, err = cl.Pods().Get(bg, "default", victim)
	assert.True(t, api.IsNotFound(err), "the kubelet finished the graceful delete")

	// Deleting the ReplicaSet removes its pods (garbage collector).
	require.NoError(t, cl.ReplicaSets().Delete(bg, "default", "web", nil))
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	left, err := cl.Pods().List(bg, "default", client.ListOptions{LabelSelector: "app=web"})
	require.NoError(t, err)
	assert.Empty(t, left.Items)
}

func traceOf(t *testing.T) string {
	c := stepCluster(t)
	cl := c.Client("test")
	_, err := c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	_, err = cl.ReplicaSets().Create(bg, rs("web", 3))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	var b strings.Builder
	for _, e := range c.Trace() {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.String()
}

func TestStepModeTraceIsDeterministic(t *testing.T) {
	a, b := traceOf(t), traceOf(t)
	assert.Equal(t, a, b)
	assert.Contains(t, a, "replicaset")
	assert.Contains(t, a, "scheduler")
	assert.Contains(t, a, "create /api/v1/namespaces/default/pods 201")
}

func TestStoppedKubeletsPodsComeBackElsewhere(t *testing.T) {
	thirty := int64(30)
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 2, NodeCount: 3,
		NodeMonitorGracePeriod: 40 * time.Second, DefaultUnreachableTolerationSeconds: &thirty})
	require.NoError(t, err)
	defer c.Close()
	cl := c.Client("test")
	_, err = cl.ReplicaSets().Create(bg, rs("web", 6))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	pods := runningPods(t, cl, "app=web")
	require.Len(t, pods, 6)
	onNode1 := 0
	for _, p := range pods {
		if p.Spec.NodeName == "node-1" {
			onNode1++
		}
	}
	require.NotZero(t, onNode1, "the scheduler spread pods onto node-1")

	k, ok := c.Kubelet("node-1")
	require.True(t, ok)
	k.Stop()
	// Past the grace period (node NotReady, tainted) and the pods'
	// 30-second toleration of it (pods deleted, replaced on healthy
	// nodes).
	_, err = c.Advance(bg, 2*time.Minute, stepper.Limits{})
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)

	node, err := cl.Nodes().Get(bg, "", "node-1")
	require.NoError(t, err)
	var taints []string
	for _, tn := range node.Spec.Taints {
		taints = append(taints, tn.Key+":"+string(tn.Effect))
	}
	assert.Contains(t, taints, "node.kubernetes.io/unreachable:NoExecute")
	healthy := 0
	for _, p := range runningPods(t, cl, "app=web") {
		if p.Spec.NodeName != "node-1" {
			healthy++
		}
	}
	assert.Equal(t, 6, healthy, "6 running pods on the healthy nodes")
}

// The wiring table and the --controllers names agree: every controller of
// the table can be switched, and every switch has a controller.
func TestWiringTableMatchesControllerNames(t *testing.T) {
	c := stepCluster(t)
	var names []string
	for _, b := range c.components {
		switch {
		case b.name == "scheduler", b.name == "customresourcecleanup", b.name == apfconfig.ControllerName, b.name == kubernetesservice.ControllerName, strings.HasPrefix(b.name, "kubelet/"):
			continue
		}
		names = append(names, b.name)
	}
	assert.Equal(t, ControllerNames, names)
	require.Error(t, c.SetEnabled("nope", false))
	require.NoError(t, c.SetEnabled("replicaset", false))
	assert.False(t, c.isEnabled("replicaset"))
	assert.True(t, c.isEnabled("kubelet/node-1"), "a component without a switch always runs")
}

func TestLiveModeHasNoStepper(t *testing.T) {
	c, err := newTestCluster(t, Config{APIServerOnly: true, UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	assert.Nil(t, c.Stepper())
	_, _, err = c.Step(bg)
	assert.ErrorIs(t, err, ErrNotStepMode)
	_, err = newTestCluster(t, Config{Mode: runmode.Mode(7)})
	assert.ErrorContains(t, err, "unknown mode")
}
