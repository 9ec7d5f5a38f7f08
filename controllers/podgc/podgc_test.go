package podgc

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/runmode"
)

type fixture struct {
	t   *testing.T
	ctx context.Context
	env *apiservertest.Env
	gc  *Controller
}

func newFixture(t *testing.T) *fixture {
	env := apiservertest.New(t)
	gc, err := New(Config{Client: env.Client, Clock: env.Clock, Mode: runmode.Step})
	require.NoError(t, err)
	return &fixture{t: t, ctx: context.Background(), env: env, gc: gc}
}

// settle runs the loop until it has nothing to do now.
func (f *fixture) settle() {
	f.t.Helper()
	for range 1000 {
		l := f.gc.Controllers()[0]
		require.NoError(f.t, l.Sync(f.ctx))
		info, ok := l.Step(f.ctx)
		if !ok {
			return
		}
		require.NoError(f.t, info.Err)
	}
	f.t.Fatal("the loop did not settle")
}

// advance moves the clock by d, settling at each timer on the way.
func (f *fixture) advance(d time.Duration) {
	f.t.Helper()
	end := f.env.Clock.Now().Add(d)
	for {
		next, ok := f.gc.Controllers()[0].NextDeadline()
		if !ok || next.After(end) {
			f.env.Clock.SetTime(end)
			f.settle()
			return
		}
		f.env.Clock.SetTime(next)
		f.settle()
	}
}

func (f *fixture) node(name string, mutate func(*corev1.Node)) {
	f.t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if mutate != nil {
		mutate(n)
	}
	created, err := f.env.Client.Nodes().Create(f.ctx, n)
	require.NoError(f.t, err)
	created.Status = n.Status
	_, err = f.env.Client.Nodes().UpdateStatus(f.ctx, created)
	require.NoError(f.t, err)
}

// pod makes a running pod on node, held by a finalizer so that what the
// collector writes before its delete can be read after it.
func (f *fixture) pod(name, node string) {
	f.t.Helper()
	p, err := f.env.Client.Pods().Create(f.ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Finalizers: []string{"example.com/hold"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(f.t, err)
	if node == "" {
		return
	}
	require.NoError(f.t, f.env.Client.Pods().CreateSubresource(f.ctx, "default", name, "binding",
		&corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}))
	p, err = f.env.Client.Pods().Get(f.ctx, "default", name)
	require.NoError(f.t, err)
	p.Status.Phase = corev1.PodRunning
	_, err = f.env.Client.Pods().UpdateStatus(f.ctx, p)
	require.NoError(f.t, err)
}

func (f *fixture) get(name string) *corev1.Pod {
	f.t.Helper()
	p, err := f.env.Client.Pods().Get(f.ctx, "default", name)
	require.NoError(f.t, err)
	return p
}

func condition(p *corev1.Pod, typ corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// A pod whose node is deleted is an orphan once the node has been gone
// for the quarantine: Failed, with the DisruptionTarget condition, and
// deleted with grace period 0. A pod of a node that exists is left alone.
func TestOrphanedPodsAreCollectedAfterTheQuarantine(t *testing.T) {
	f := newFixture(t)
	f.node("node-1", nil)
	f.node("node-2", nil)
	f.pod("orphan", "node-2")
	f.pod("fine", "node-1")
	f.settle()
	require.NoError(t, f.env.Client.Nodes().Delete(f.ctx, "", "node-2", nil))
	f.settle()
	f.advance(QuarantineTime - time.Second)
	p := f.get("orphan")
	assert.Nil(t, p.DeletionTimestamp, "not during the quarantine")
	assert.Equal(t, corev1.PodRunning, p.Status.Phase)

	f.advance(time.Second)
	p = f.get("orphan")
	require.NotNil(t, p.DeletionTimestamp)
	assert.Equal(t, int64(0), *p.DeletionGracePeriodSeconds)
	assert.Equal(t, corev1.PodFailed, p.Status.Phase)
	cond := condition(p, corev1.DisruptionTarget)
	require.NotNil(t, cond)
	assert.Equal(t, corev1.ConditionTrue, cond.Status)
	assert.Equal(t, "DeletionByPodGC", cond.Reason)
	assert.Equal(t, "PodGC: node no longer exists", cond.Message)
	assert.Nil(t, f.get("fine").DeletionTimestamp)
}

// A node that comes back during the quarantine keeps its pods.
func TestANodeBackInTimeKeepsItsPods(t *testing.T) {
	f := newFixture(t)
	f.node("node-1", nil)
	f.pod("p", "node-1")
	f.settle()
	require.NoError(t, f.env.Client.Nodes().Delete(f.ctx, "", "node-1", nil))
	f.settle()
	f.advance(10 * time.Second)
	f.node("node-1", nil)
	f.advance(time.Minute)
	assert.Nil(t, f.get("p").DeletionTimestamp)
}

// A terminating pod on a node that is not ready and tainted
// out-of-service is deleted with grace period 0; on a node without the
// taint it waits for its kubelet. A terminating pod never scheduled is
// deleted at once.
func TestOutOfServiceAndUnscheduledTerminatingPods(t *testing.T) {
	f := newFixture(t)
	notReady := func(n *corev1.Node) {
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}}
	}
	f.node("down", notReady)
	f.node("shut", func(n *corev1.Node) {
		notReady(n)
		n.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeOutOfService, Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute}}
	})
	f.pod("waits", "down")
	f.pod("goes", "shut")
	f.pod("nowhere", "")
	f.settle()
	for _, name := range []string{"waits", "goes", "nowhere"} {
		require.NoError(t, f.env.Client.Pods().Delete(f.ctx, "default", name, nil))
	}
	f.settle()
	assert.NotEqual(t, int64(0), *f.get("waits").DeletionGracePeriodSeconds, "its kubelet may come back")
	goes := f.get("goes")
	assert.Equal(t, int64(0), *goes.DeletionGracePeriodSeconds)
	assert.Equal(t, corev1.PodFailed, goes.Status.Phase)
	assert.Nil(t, condition(goes, corev1.DisruptionTarget))
	assert.Equal(t, int64(0), *f.get("nowhere").DeletionGracePeriodSeconds)
}
