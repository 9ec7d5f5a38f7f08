package nodelifecycle

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/runmode"
)

// cluster is one kubelet and the controller, stepped as the cluster
// stepper steps them: a stopped kubelet's loops are left alone.
type cluster struct {
	t   *testing.T
	ctx context.Context
	env *apiservertest.Env
	k   *kubelet.Kubelet
	nc  *Controller
}

func (c *cluster) loops() []*controllers.Controller {
	var out []*controllers.Controller
	if !c.k.Stopped() {
		out = append(out, c.k.Controllers()...)
	}
	return append(out, c.nc.Controllers()...)
}

func (c *cluster) settle() {
	c.t.Helper()
	for range 10000 {
		progressed := false
		for _, l := range c.loops() {
			require.NoError(c.t, l.Sync(c.ctx))
		}
		for _, l := range c.loops() {
			if info, ok := l.Step(c.ctx); ok {
				progressed = true
				if info.Err != nil {
					c.t.Errorf("%s %s: %v", l.Name(), info.Key, info.Err)
				}
			}
		}
		if !progressed {
			return
		}
	}
	c.t.Fatal("the loops did not settle")
}

// until steps every timer up to and including t.
func (c *cluster) until(t time.Time) {
	c.t.Helper()
	for {
		var next time.Time
		found := false
		for _, l := range c.loops() {
			if d, ok := l.NextDeadline(); ok && (!found || d.Before(next)) {
				next, found = d, true
			}
		}
		if !found || next.After(t) {
			c.env.Clock.SetTime(t)
			c.settle()
			return
		}
		c.env.Clock.SetTime(next)
		c.settle()
	}
}

func (c *cluster) node() *corev1.Node {
	n, err := c.env.Client.Nodes().Get(c.ctx, "", "node-1")
	require.NoError(c.t, err)
	return n
}

func (c *cluster) pod(name string) (*corev1.Pod, error) {
	return c.env.Client.Pods().Get(c.ctx, "default", name)
}

func (c *cluster) createPod(name string, tols []corev1.Toleration) {
	c.t.Helper()
	_, err := c.env.Client.Pods().Create(c.ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}, Tolerations: tols},
	})
	require.NoError(c.t, err)
	require.NoError(c.t, c.env.Client.Pods().CreateSubresource(c.ctx, "default", name, "binding",
		&corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}))
}

func nodeCondition(n *corev1.Node, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == t {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

func podReady(p *corev1.Pod) corev1.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status
		}
	}
	return ""
}

func taintsOf(n *corev1.Node) []string {
	var out []string
	for _, t := range n.Spec.Taints {
		out = append(out, t.Key+":"+string(t.Effect))
	}
	return out
}

func TestStoppedKubeletNodeGoesUnknownAndItsPodsAreEvicted(t *testing.T) {
	env := apiservertest.New(t)
	k, err := kubelet.New(kubelet.Config{Client: env.Client, Clock: env.Clock, Mode: runmode.Step, NodeName: "node-1", PodCIDR: "10.244.1.0/24"})
	require.NoError(t, err)
	nc, err := New(Config{Client: env.Client, Clock: env.Clock, Mode: runmode.Step, PodEvictionTimeout: 30 * time.Second})
	require.NoError(t, err)
	c := &cluster{t: t, ctx: context.Background(), env: env, k: k, nc: nc}
	c.settle()
	ten := int64(10)
	c.createPod("plain", nil)
	c.createPod("quick", []corev1.Toleration{{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &ten}})
	c.createPod("stays", []corev1.Toleration{{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}})
	c.settle()
	for _, name := range []string{"plain", "quick", "stays"} {
		p, err := c.pod(name)
		require.NoError(t, err)
		require.Equal(t, corev1.ConditionTrue, podReady(p), name)
	}
	assert.Empty(t, taintsOf(c.node()))

	// A healthy node stays Ready however long we wait.
	t0 := apiservertest.Start
	c.until(t0.Add(2 * time.Minute))
	assert.Equal(t, corev1.ConditionTrue, nodeCondition(c.node(), corev1.NodeReady).Status)
	assert.Empty(t, taintsOf(c.node()))

	// The node fails just after a renewal at +2m.
	k.Stop()
	lastRenew := t0.Add(2 * time.Minute)
	c.until(lastRenew.Add(40*time.Second - time.Millisecond))
	assert.Equal(t, corev1.ConditionTrue, nodeCondition(c.node(), corev1.NodeReady).Status, "not before the grace period")

	unreachableAt := lastRenew.Add(40 * time.Second)
	c.until(unreachableAt)
	node := c.node()
	ready := nodeCondition(node, corev1.NodeReady)
	assert.Equal(t, corev1.ConditionUnknown, ready.Status)
	assert.Equal(t, "NodeStatusUnknown", ready.Reason)
	assert.Equal(t, "Kubelet stopped posting node status.", ready.Message)
	assert.True(t, ready.LastTransitionTime.Time.Equal(unreachableAt))
	assert.Equal(t, corev1.ConditionUnknown, nodeCondition(node, corev1.NodeMemoryPressure).Status)
	assert.Equal(t, []string{corev1.TaintNodeUnreachable + ":NoSchedule", corev1.TaintNodeUnreachable + ":NoExecute"}, taintsOf(node))
	assert.True(t, node.Spec.Taints[1].TimeAdded.Time.Equal(unreachableAt))
	p, err := c.pod("plain")
	require.NoError(t, err)
	assert.Equal(t, corev1.ConditionFalse, podReady(p), "pods on the node are marked not ready")
	assert.Nil(t, p.DeletionTimestamp)
	evs, err := env.Client.Events().List(c.ctx, "", client.ListOptions{FieldSelector: "reason=NodeNotReady"})
	require.NoError(t, err)
	var msgs []string
	for _, ev := range evs.Items {
		msgs = append(msgs, ev.InvolvedObject.Name+": "+ev.Message)
	}
	assert.Contains(t, msgs, "node-1: Node node-1 status is now: NodeNotReady")
	assert.Contains(t, msgs, "plain: Node is not ready")

	// Evictions: "quick" after its 10s, "plain" after the 300s the
	// DefaultTolerationSeconds admission plugin gave it (not the
	// controller's 30s default, for pods without a toleration), "stays"
	// never.
	deleted := func(name string) bool {
		p, err := c.pod(name)
		require.NoError(t, err, "the kubelet is down: evicted pods stay Terminating")
		return p.DeletionTimestamp != nil
	}
	c.until(unreachableAt.Add(10*time.Second - time.Millisecond))
	assert.False(t, deleted("quick"))
	c.until(unreachableAt.Add(10 * time.Second))
	assert.True(t, deleted("quick"))
	assert.False(t, deleted("plain"))
	c.until(unreachableAt.Add(30 * time.Second))
	assert.False(t, deleted("plain"))
	c.until(unreachableAt.Add(300*time.Second - time.Millisecond))
	assert.False(t, deleted("plain"))
	c.until(unreachableAt.Add(300 * time.Second))
	assert.True(t, deleted("plain"))
	c.until(unreachableAt.Add(10 * time.Minute))
	assert.False(t, deleted("stays"))

	// The kubelet comes back: Ready again, taints gone, the evicted pods
	// finished and removed, the tolerating one ready again.
	k.Start()
	c.settle()
	node = c.node()
	assert.Equal(t, corev1.ConditionTrue, nodeCondition(node, corev1.NodeReady).Status)
	assert.Empty(t, taintsOf(node))
	for _, name := range []string{"quick", "plain"} {
		_, err := c.pod(name)
		assert.True(t, api.IsNotFound(err), "%s: %v", name, err)
	}
	p, err = c.pod("stays")
	require.NoError(t, err)
	assert.Equal(t, corev1.ConditionTrue, podReady(p))
}
