package cluster

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// testObserver keeps what a WriteObserver hears, one line a write.
type testObserver struct {
	mu   sync.Mutex
	on   bool
	seen []string
}

func (o *testObserver) Observing() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.on
}

func (o *testObserver) ObserveWrite(ua string, r *controllers.Reconciling, w stepper.Write) {
	o.mu.Lock()
	defer o.mu.Unlock()
	line := ua + " " + w.Verb + " " + w.Path
	if r != nil {
		line += " | " + r.Controller + " " + r.Key + " saw " + r.Cause.String()
	}
	o.seen = append(o.seen, line)
}

// In live mode OnWrite hears each component's writes by its user agent,
// with the reconcile that made it: the scheduler's binding of a pod a test
// created, made while reconciling the pod because it saw the pod ADDED.
// Nothing is told while nobody observes.
func TestOnWriteTellsTheLiveComponentsWrites(t *testing.T) {
	obs := &testObserver{}
	mu, seen := &obs.mu, &obs.seen
	c, err := newTestCluster(t, Config{NodeCount: 1, UnsafeNoFsync: true, OnWrite: obs})
	require.NoError(t, err)
	defer c.Close()
	assert.Contains(t, c.Components(), "default-scheduler")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, c.Start(ctx))
	cl := c.Client("t")
	// While nobody observes, a write of a component is not told.
	_, err = cl.Pods().Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "unseen", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		p, err := cl.Pods().Get(ctx, "default", "unseen")
		return err == nil && p.Spec.NodeName != ""
	}, 60*time.Second, 20*time.Millisecond)
	mu.Lock()
	assert.Empty(t, *seen, "no write is told while nobody observes")
	obs.on = true
	mu.Unlock()
	p, err := cl.Pods().Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	want := "default-scheduler create /api/v1/namespaces/default/pods/p/binding | scheduler default/p saw ADDED Pod default/p@" + p.ResourceVersion
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range *seen {
			if s == want {
				return true
			}
		}
		return false
	}, 60*time.Second, 20*time.Millisecond, "want %q", want)
	mu.Lock()
	defer mu.Unlock()
	for _, s := range *seen {
		assert.False(t, strings.HasPrefix(s, "t "), "a client of Client() is no component: %s", s)
	}
}

// The stepper lists its loops in order with their switches (the web
// page's row of loops in step mode).
func TestStepperListsItsLoops(t *testing.T) {
	c, err := newTestCluster(t, Config{Mode: runmode.Step, NodeCount: 1, UnsafeNoFsync: true})
	require.NoError(t, err)
	defer c.Close()
	loops := c.Stepper().Loops()
	assert.Contains(t, loops, stepper.Loop{Name: "scheduler", Switch: "scheduler"})
	assert.Contains(t, loops, stepper.Loop{Name: "garbagecollector", Switch: "garbagecollector"})
	assert.Equal(t, stepper.Loop{Name: "kubelet/node-1", Switch: "kubelet/node-1"}, loops[len(loops)-1], "the kubelets come last")
	assert.True(t, c.Enabled("garbagecollector"))
	require.NoError(t, c.SetEnabled("garbagecollector", false))
	assert.False(t, c.Enabled("garbagecollector"))
}

// A controller off at start (--controllers=*,-garbagecollector) runs when
// switched on in live mode; switched off and on again, a new one runs (a
// component runs once: liveswitch.go builds it again).
func TestLiveSwitchStartsAndRestartsAController(t *testing.T) {
	c, err := newTestCluster(t, Config{NodeCount: 0, UnsafeNoFsync: true, Controllers: "*,-garbagecollector"})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, c.Start(ctx))
	cl := c.Client("t")
	orphan := func(name string) {
		owner, err := cl.ConfigMaps().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name + "-owner", Namespace: "default"}})
		require.NoError(t, err)
		_, err = cl.ConfigMaps().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}}})
		require.NoError(t, err)
		require.NoError(t, cl.ConfigMaps().Delete(ctx, "default", owner.Name, nil))
	}
	collected := func(name string) func() bool {
		return func() bool {
			_, err := cl.ConfigMaps().Get(ctx, "default", name)
			return api.IsNotFound(err)
		}
	}
	orphan("first")
	require.NoError(t, c.SetEnabled("garbagecollector", true))
	require.Eventually(t, collected("first"), time.Minute, 20*time.Millisecond, "the collector, switched on, collects")
	require.NoError(t, c.SetEnabled("garbagecollector", false))
	require.NoError(t, c.SetEnabled("garbagecollector", true))
	orphan("second")
	require.Eventually(t, collected("second"), time.Minute, 20*time.Millisecond, "a new collector runs after off and on")
	assert.ErrorContains(t, c.SetEnabled("kubelet/node-1", false), "unknown controller")
}
