package garbagecollector

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// served returns the resources env's server serves now, as the cluster
// passes them.
func served(env *apiservertest.Env) func() []client.ResourceInfo { return env.ListableResources }

type fixture struct {
	t   *testing.T
	ctx context.Context
	env *apiservertest.Env
	gc  *GarbageCollector
}

func newFixture(t *testing.T) *fixture {
	env := apiservertest.New(t)
	gc, err := New(Config{Client: env.Client, Resources: served(env), Clock: env.Clock, Mode: runmode.Step})
	require.NoError(t, err)
	return &fixture{t: t, ctx: context.Background(), env: env, gc: gc}
}

// step syncs the informers and reconciles one key; it moves the clock to
// the next deadline when nothing is ready. It reports false when there is
// nothing left to do.
func (f *fixture) step() bool {
	f.t.Helper()
	ctrl := f.gc.Controllers()[0]
	require.NoError(f.t, ctrl.Sync(f.ctx))
	if _, ok := ctrl.Step(f.ctx); ok {
		return true
	}
	if dl, ok := ctrl.NextDeadline(); ok {
		f.env.Clock.SetTime(dl)
		return true
	}
	return false
}

// settle steps until nothing is left, checking invariant after each step.
func (f *fixture) settle(invariant func()) {
	f.t.Helper()
	for range 500 {
		if !f.step() {
			return
		}
		if invariant != nil {
			invariant()
		}
	}
	f.t.Fatal("the garbage collector did not settle in 500 steps")
}

func (f *fixture) configMap(name string, owners ...metav1.OwnerReference) *corev1.ConfigMap {
	f.t.Helper()
	cm, err := f.env.Client.ConfigMaps().Create(f.ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", OwnerReferences: owners},
		Data:       map[string]string{"k": "v"},
	})
	require.NoError(f.t, err)
	return cm
}

func (f *fixture) exists(name string) bool {
	f.t.Helper()
	_, err := f.env.Client.ConfigMaps().Get(f.ctx, "default", name)
	if api.IsNotFound(err) {
		return false
	}
	require.NoError(f.t, err)
	return true
}

func (f *fixture) get(name string) *corev1.ConfigMap {
	f.t.Helper()
	cm, err := f.env.Client.ConfigMaps().Get(f.ctx, "default", name)
	require.NoError(f.t, err)
	return cm
}

func (f *fixture) delete(name string, policy metav1.DeletionPropagation) {
	f.t.Helper()
	var opts *metav1.DeleteOptions
	if policy != "" {
		opts = &metav1.DeleteOptions{PropagationPolicy: &policy}
	}
	require.NoError(f.t, f.env.Client.ConfigMaps().Delete(f.ctx, "default", name, opts))
}

func ownedBy(cm *corev1.ConfigMap, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: cm.Name, UID: cm.UID, BlockOwnerDeletion: &block}
}

func TestBackgroundCascadeChainOfThree(t *testing.T) {
	f := newFixture(t)
	a := f.configMap("a")
	b := f.configMap("b", ownedBy(a, false))
	f.configMap("c", ownedBy(b, false))
	f.configMap("bystander")
	f.settle(nil)
	require.True(t, f.exists("a") && f.exists("b") && f.exists("c"), "nothing is deleted while owners live")

	f.delete("a", "") // Background is the default
	assert.False(t, f.exists("a"), "a background delete removes the owner at once")
	f.settle(nil)
	assert.False(t, f.exists("b"))
	assert.False(t, f.exists("c"), "the cascade follows the chain")
	assert.True(t, f.exists("bystander"))
}

func TestReplicaSetPodsAreCollected(t *testing.T) {
	f := newFixture(t)
	two := int32(2)
	labels := map[string]string{"app": "web"}
	rs, err := f.env.Client.ReplicaSets().Create(f.ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}},
	})
	require.NoError(t, err)
	ref := api.NewControllerRef(&rs.ObjectMeta, schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"})
	for _, name := range []string{"web-1", "web-2"} {
		_, err := f.env.Client.Pods().Create(f.ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: labels, OwnerReferences: []metav1.OwnerReference{*ref}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
		})
		require.NoError(t, err)
	}
	f.settle(nil)
	require.NoError(t, f.env.Client.ReplicaSets().Delete(f.ctx, "default", "web", nil))
	f.settle(nil)
	pods, err := f.env.Client.Pods().List(f.ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, pods.Items, "the ReplicaSet's pods are collected")
}

func TestDependentWithAnotherOwnerSurvives(t *testing.T) {
	f := newFixture(t)
	x := f.configMap("x")
	y := f.configMap("y")
	f.configMap("shared", ownedBy(x, false), ownedBy(y, false))
	f.settle(nil)

	f.delete("x", "")
	f.settle(nil)
	require.True(t, f.exists("shared"), "a live owner keeps the dependent")
	refs := f.get("shared").OwnerReferences
	require.Len(t, refs, 1, "only the reference to the gone owner is removed")
	assert.Equal(t, y.UID, refs[0].UID)

	f.delete("y", "")
	f.settle(nil)
	assert.False(t, f.exists("shared"), "losing the last owner collects it")
}

func TestForegroundDeletesDependentsFirst(t *testing.T) {
	f := newFixture(t)
	owner := f.configMap("owner")
	mid := f.configMap("mid", ownedBy(owner, true))
	f.configMap("leaf", ownedBy(mid, true))
	f.configMap("loose", ownedBy(owner, false))
	f.settle(nil)

	f.delete("owner", metav1.DeletePropagationForeground)
	cur := f.get("owner")
	require.NotNil(t, cur.DeletionTimestamp)
	require.Contains(t, cur.Finalizers, metav1.FinalizerDeleteDependents)

	sawOwnerWaiting := false
	f.settle(func() {
		// Bottom-up: nobody goes before its blocking dependents.
		if !f.exists("owner") {
			assert.False(t, f.exists("mid"), "the owner went before its blocking dependent")
		}
		if !f.exists("mid") {
			assert.False(t, f.exists("leaf"), "mid went before its blocking dependent")
		}
		if f.exists("owner") && !f.exists("leaf") {
			sawOwnerWaiting = true
		}
	})
	assert.True(t, sawOwnerWaiting, "the owner stayed while its dependents were being deleted")
	assert.False(t, f.exists("owner"))
	assert.False(t, f.exists("mid"))
	assert.False(t, f.exists("leaf"))
	assert.False(t, f.exists("loose"), "non-blocking dependents are deleted too")
}

func TestForegroundOwnerWithoutDependentsGoes(t *testing.T) {
	f := newFixture(t)
	f.configMap("alone")
	f.settle(nil)
	f.delete("alone", metav1.DeletePropagationForeground)
	require.True(t, f.exists("alone"), "the finalizer holds it")
	f.settle(nil)
	assert.False(t, f.exists("alone"), "the collector removes foregroundDeletion when no dependent blocks")
}

func TestOrphanKeepsDependents(t *testing.T) {
	f := newFixture(t)
	owner := f.configMap("owner")
	other := f.configMap("other")
	f.configMap("d1", ownedBy(owner, true))
	f.configMap("d2", ownedBy(owner, false), ownedBy(other, false))
	f.settle(nil)

	f.delete("owner", metav1.DeletePropagationOrphan)
	require.Contains(t, f.get("owner").Finalizers, metav1.FinalizerOrphanDependents)
	f.settle(nil)
	assert.False(t, f.exists("owner"), "the orphan finalizer is removed, so the owner goes")
	assert.Empty(t, f.get("d1").OwnerReferences, "d1 lost its reference")
	refs := f.get("d2").OwnerReferences
	require.Len(t, refs, 1)
	assert.Equal(t, other.UID, refs[0].UID, "d2 keeps its other owner")
}

func TestDependentOfOwnerThatNeverExisted(t *testing.T) {
	f := newFixture(t)
	real := f.configMap("real")
	no := false
	f.configMap("ghost-child", metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "ghost", UID: "no-such-uid", BlockOwnerDeletion: &no})
	// The name exists, but the uid is another object's.
	f.configMap("impostor-child", metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "real", UID: "not-" + real.UID})
	f.configMap("kept", ownedBy(real, false))
	f.settle(nil)
	assert.False(t, f.exists("ghost-child"))
	assert.False(t, f.exists("impostor-child"))
	assert.True(t, f.exists("kept"))
	assert.True(t, f.exists("real"))
}

func TestDependentOfUnknownKindIsRetried(t *testing.T) {
	f := newFixture(t)
	f.configMap("odd", metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Gadget", Name: "g", UID: "g-uid"})
	ctrl := f.gc.Controllers()[0]
	for range 10 {
		require.NoError(t, ctrl.Sync(f.ctx))
		ctrl.Step(f.ctx)
	}
	assert.True(t, f.exists("odd"), "an owner whose kind cannot be mapped is not taken for absent")
	_, retrying := ctrl.NextDeadline()
	assert.True(t, retrying, "the check is retried with back-off")
}

// widgets is a namespaced custom resource, served from the middle of the
// test on.
func widgets() *registry.Resource {
	return &registry.Resource{Group: "example.com", Version: "v1", Name: "widgets", SingularName: "widget",
		Kind: "Widget", ListKind: "WidgetList", Namespaced: true,
		New: func() api.Object { return &unstructured.Unstructured{} }}
}

func TestCustomResourcesServedLaterAreWatched(t *testing.T) {
	f := newFixture(t)
	f.settle(nil)
	require.NotContains(t, f.gc.Monitored(), client.ResourceInfo{Group: "example.com", Version: "v1", Resource: "widgets", Namespaced: true})

	require.NoError(t, f.env.Server.AddResource(widgets()))
	wres := client.Dynamic(f.env.Client, client.ResourceInfo{Group: "example.com", Version: "v1", Resource: "widgets", Namespaced: true})
	owner := f.configMap("owner")
	w, err := wres.Create(f.ctx, &unstructured.Unstructured{
		TypeMeta:   metav1.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"},
		ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "default", OwnerReferences: []metav1.OwnerReference{ownedBy(owner, false)}},
		Content:    map[string]any{"spec": map[string]any{"size": int64(1)}},
	})
	require.NoError(t, err)
	f.configMap("of-widget", metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: w.UID})
	f.settle(nil)
	assert.Contains(t, f.gc.Monitored(), client.ResourceInfo{Group: "example.com", Version: "v1", Resource: "widgets", Namespaced: true})
	require.True(t, f.exists("of-widget"))

	f.delete("owner", "")
	f.settle(nil)
	_, err = wres.Get(f.ctx, "default", "w")
	assert.True(t, api.IsNotFound(err), "the widget is collected with its owner: %v", err)
	assert.False(t, f.exists("of-widget"), "and the widget's own dependent after it")
}

func TestEventsAndLeasesAreNotWatched(t *testing.T) {
	f := newFixture(t)
	f.settle(nil)
	for _, m := range f.gc.Monitored() {
		assert.NotEqual(t, "events", m.Resource)
		assert.NotEqual(t, "leases", m.Resource)
	}
	assert.Contains(t, f.gc.Monitored(), client.ConfigMapsResource)
	assert.Contains(t, f.gc.Monitored(), client.NamespacesResource)
}

func TestQueueKeysAndCauses(t *testing.T) {
	f := newFixture(t)
	a := f.configMap("a")
	b := f.configMap("b", ownedBy(a, false))
	f.settle(nil)
	f.delete("a", "")
	ctrl := f.gc.Controllers()[0]
	require.NoError(t, ctrl.Sync(f.ctx))
	info, ok := ctrl.Step(f.ctx)
	require.True(t, ok)
	assert.Equal(t, "attemptToDelete ConfigMap default/b "+string(b.UID), info.Key)
	assert.Equal(t, controllers.Cause{Event: "DELETED", Kind: "ConfigMap", Namespace: "default", Name: "a",
		ResourceVersion: a.ResourceVersion}, info.Cause)
	assert.NoError(t, info.Err)
}

func TestNewRequiresConfig(t *testing.T) {
	_, err := New(Config{})
	assert.Error(t, err)
}

func TestForegroundWaitsForAGracefullyDeletedPod(t *testing.T) {
	f := newFixture(t)
	one := int32(1)
	labels := map[string]string{"app": "web"}
	rs, err := f.env.Client.ReplicaSets().Create(f.ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}},
	})
	require.NoError(t, err)
	ref := api.NewControllerRef(&rs.ObjectMeta, schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"})
	_, err = f.env.Client.Pods().Create(f.ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default", Labels: labels, OwnerReferences: []metav1.OwnerReference{*ref}},
		Spec:       corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	})
	require.NoError(t, err)
	f.settle(nil)

	fg := metav1.DeletePropagationForeground
	require.NoError(t, f.env.Client.ReplicaSets().Delete(f.ctx, "default", "web", &metav1.DeleteOptions{PropagationPolicy: &fg}))
	// Settle without moving the clock: the pod's grace period runs.
	ctrl := f.gc.Controllers()[0]
	for range 50 {
		require.NoError(t, ctrl.Sync(f.ctx))
		if _, ok := ctrl.Step(f.ctx); !ok {
			break
		}
	}
	pod, err := f.env.Client.Pods().Get(f.ctx, "default", "web-1")
	require.NoError(t, err)
	require.NotNil(t, pod.DeletionTimestamp, "the collector deleted the pod; its kubelet has yet to finish")
	cur, err := f.env.Client.ReplicaSets().Get(f.ctx, "default", "web")
	require.NoError(t, err, "the ReplicaSet waits for its pod")
	assert.Contains(t, cur.Finalizers, metav1.FinalizerDeleteDependents)

	// The kubelet finishes.
	zero := int64(0)
	require.NoError(t, f.env.Client.Pods().Delete(f.ctx, "default", "web-1", &metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	f.settle(nil)
	_, err = f.env.Client.ReplicaSets().Get(f.ctx, "default", "web")
	assert.True(t, api.IsNotFound(err), "the ReplicaSet goes once its pod is gone: %v", err)
}

// scenario runs one cascade and returns the keys reconciled, in order.
func scenario(t *testing.T) []string {
	f := newFixture(t)
	a := f.configMap("a")
	b := f.configMap("b", ownedBy(a, true))
	f.configMap("c", ownedBy(b, true))
	f.configMap("d", ownedBy(a, false), ownedBy(b, false))
	f.configMap("e", ownedBy(a, true))
	f.settle(nil)
	f.delete("a", metav1.DeletePropagationForeground)
	var out []string
	ctrl := f.gc.Controllers()[0]
	for range 200 {
		require.NoError(t, ctrl.Sync(f.ctx))
		info, ok := ctrl.Step(f.ctx)
		if !ok {
			break
		}
		out = append(out, info.Key+" <- "+info.Cause.String())
	}
	return out
}

func TestStepModeIsDeterministic(t *testing.T) {
	first := scenario(t)
	require.NotEmpty(t, first)
	assert.Equal(t, first, scenario(t), "the same scenario reconciles the same keys in the same order")
}

func TestLiveMode(t *testing.T) {
	f := newFixture(t)
	owner := f.configMap("owner")
	f.configMap("dep", ownedBy(owner, false))
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan struct{})
	go func() { defer close(done); f.gc.Run(ctx) }()
	defer func() { cancel(); <-done }()

	require.Eventually(t, func() bool { return f.gc.Controllers()[0].Pending() == 0 && len(f.gc.Monitored()) > 0 },
		5*time.Second, 10*time.Millisecond)
	f.delete("owner", "")
	require.Eventually(t, func() bool { return !f.exists("dep") }, 5*time.Second, 10*time.Millisecond,
		"the watch delivers the owner's deletion and the dependent is collected")
}
