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
	"github.com/kubesim/kubesim/kubelet/images"
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

func newCluster(t *testing.T) *cluster {
	env := apiservertest.New(t)
	// Pulls take no time: settle moves no clock.
	k, err := kubelet.New(kubelet.Config{Client: env.Client, Clock: env.Clock, Mode: runmode.Step, NodeName: "node-1", PodCIDR: "10.244.1.0/24",
		Registry: images.Default().WithPace(0, 0)})
	require.NoError(t, err)
	nc, err := New(Config{Client: env.Client, Clock: env.Clock, Mode: runmode.Step})
	require.NoError(t, err)
	c := &cluster{t: t, ctx: context.Background(), env: env, k: k, nc: nc}
	c.settle()
	return c
}

func (c *cluster) events(reason string) []string {
	c.t.Helper()
	evs, err := c.env.Client.Events().List(c.ctx, "", client.ListOptions{FieldSelector: "reason=" + reason})
	require.NoError(c.t, err)
	var msgs []string
	for _, ev := range evs.Items {
		msgs = append(msgs, ev.InvolvedObject.Name+": "+ev.Message)
	}
	return msgs
}

func (c *cluster) deleted(name string) bool {
	c.t.Helper()
	p, err := c.pod(name)
	require.NoError(c.t, err, "the kubelet is down: evicted pods stay Terminating")
	return p.DeletionTimestamp != nil
}

func disruptionTarget(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.DisruptionTarget {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// A node whose kubelet stops goes Unknown after the grace period and is
// tainted unreachable; its pods then leave as their tolerations say: the
// 300 seconds every pod got from the DefaultTolerationSeconds admission
// plugin, a toleration of its own for 10 seconds, or none for a pod that
// tolerates the taint forever. Each eviction is announced (Marking for
// deletion) and written on the pod (DisruptionTarget) before the delete.
func TestStoppedKubeletNodeGoesUnknownAndItsPodsAreEvicted(t *testing.T) {
	c := newCluster(t)
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
	plain, err := c.pod("plain")
	require.NoError(t, err)
	require.Len(t, plain.Spec.Tolerations, 2, "the admission plugin's two tolerations")
	assert.Equal(t, int64(300), *plain.Spec.Tolerations[1].TolerationSeconds)

	// A healthy node stays Ready however long we wait.
	t0 := apiservertest.Start
	c.until(t0.Add(2 * time.Minute))
	assert.Equal(t, corev1.ConditionTrue, nodeCondition(c.node(), corev1.NodeReady).Status)
	assert.Empty(t, taintsOf(c.node()))

	// The node fails just after a renewal at +2m.
	c.k.Stop()
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
	msgs := c.events("NodeNotReady")
	assert.Contains(t, msgs, "node-1: Node node-1 status is now: NodeNotReady")
	assert.Contains(t, msgs, "plain: Node is not ready")

	// Evictions: "quick" after its 10s, "plain" after the plugin's 300s,
	// "stays" never.
	c.until(unreachableAt.Add(10*time.Second - time.Millisecond))
	assert.False(t, c.deleted("quick"))
	c.until(unreachableAt.Add(10 * time.Second))
	assert.True(t, c.deleted("quick"))
	assert.Equal(t, []string{"quick: Marking for deletion Pod default/quick"}, c.events("TaintManagerEviction"))
	quick, err := c.pod("quick")
	require.NoError(t, err)
	cond := disruptionTarget(quick)
	require.NotNil(t, cond, "the DisruptionTarget condition is written before the delete")
	assert.Equal(t, corev1.ConditionTrue, cond.Status)
	assert.Equal(t, "DeletionByTaintManager", cond.Reason)
	assert.Equal(t, "Taint manager: deleting due to NoExecute taint", cond.Message)
	assert.False(t, c.deleted("plain"))
	c.until(unreachableAt.Add(300*time.Second - time.Millisecond))
	assert.False(t, c.deleted("plain"))
	c.until(unreachableAt.Add(300 * time.Second))
	assert.True(t, c.deleted("plain"))
	c.until(unreachableAt.Add(20 * time.Minute))
	assert.False(t, c.deleted("stays"))
	evictedBy := func(name string) string {
		evs, err := c.env.Client.Events().List(c.ctx, "", client.ListOptions{FieldSelector: "reason=TaintManagerEviction,involvedObject.name=" + name})
		require.NoError(t, err)
		require.Len(t, evs.Items, 1)
		return evs.Items[0].Source.Component
	}
	assert.Equal(t, "taint-eviction-controller", evictedBy("plain"))

	// The kubelet comes back: Ready again, taints gone, the evicted pods
	// finished and removed, the tolerating one ready again.
	c.k.Start()
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

// A node that comes back before its pods' tolerations run out keeps
// them: the taints go, and each timed eviction is cancelled with the
// taint eviction controller's event.
func TestNodeBackInTimeCancelsTheEvictions(t *testing.T) {
	c := newCluster(t)
	c.createPod("web", nil)
	c.settle()
	c.k.Stop()
	unreachableAt := c.env.Clock.Now().Add(40 * time.Second)
	c.until(unreachableAt.Add(2 * time.Minute))
	assert.Contains(t, taintsOf(c.node()), corev1.TaintNodeUnreachable+":NoExecute")
	assert.False(t, c.deleted("web"))

	c.k.Start()
	c.settle()
	assert.Empty(t, taintsOf(c.node()))
	c.until(unreachableAt.Add(10 * time.Minute))
	assert.False(t, c.deleted("web"), "its toleration never ran out")
	assert.Equal(t, []string{"web: Cancelling deletion of Pod default/web"}, c.events("TaintManagerEviction"))
	p, err := c.pod("web")
	require.NoError(t, err)
	assert.Nil(t, disruptionTarget(p))
	assert.Equal(t, corev1.ConditionTrue, podReady(p))
}

// A NoExecute taint a user puts on a healthy node (kubectl taint) evicts
// at once the pods that do not tolerate it, and after their
// tolerationSeconds those that do for a while; its tolerationSeconds
// count from when the controller first saw it, as the taint carries no
// timeAdded.
func TestUserNoExecuteTaintEvictsByTolerations(t *testing.T) {
	c := newCluster(t)
	twenty := int64(20)
	c.createPod("plain", nil)
	c.createPod("patient", []corev1.Toleration{{Key: "maintenance", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &twenty}})
	c.createPod("immune", []corev1.Toleration{{Key: "maintenance", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoExecute}})
	c.settle()
	c.until(c.env.Clock.Now().Add(time.Minute))
	node := c.node()
	node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: "maintenance", Value: "true", Effect: corev1.TaintEffectNoExecute})
	_, err := c.env.Client.Nodes().Update(c.ctx, node)
	require.NoError(t, err)
	taintedAt := c.env.Clock.Now()
	c.settle()
	_, err = c.pod("plain")
	assert.True(t, api.IsNotFound(err), "evicted at once, and removed by its running kubelet: %v", err)
	_, err = c.pod("patient")
	require.NoError(t, err)
	c.until(taintedAt.Add(20*time.Second - time.Millisecond))
	p, err := c.pod("patient")
	require.NoError(t, err)
	assert.Nil(t, p.DeletionTimestamp)
	c.until(taintedAt.Add(20 * time.Second))
	_, err = c.pod("patient")
	assert.True(t, api.IsNotFound(err), "evicted after its 20 seconds, and removed by its running kubelet: %v", err)
	c.until(taintedAt.Add(10 * time.Minute))
	p, err = c.pod("immune")
	require.NoError(t, err)
	assert.Nil(t, p.DeletionTimestamp)
	assert.ElementsMatch(t, []string{"plain: Marking for deletion Pod default/plain", "patient: Marking for deletion Pod default/patient"}, c.events("TaintManagerEviction"))
}
