package namespace

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/runmode"
)

func served(env *apiservertest.Env) func() []client.ResourceInfo { return env.ListableResources }

var widgetsInfo = client.ResourceInfo{Group: "example.com", Version: "v1", Resource: "widgets", Namespaced: true}

type fixture struct {
	t   *testing.T
	ctx context.Context
	env *apiservertest.Env
	nc  *NamespaceController
}

func newFixture(t *testing.T) *fixture {
	env := apiservertest.New(t)
	require.NoError(t, env.Server.AddResource(&registry.Resource{Group: "example.com", Version: "v1", Name: "widgets",
		SingularName: "widget", Kind: "Widget", ListKind: "WidgetList", Namespaced: true,
		New: func() api.Object { return &unstructured.Unstructured{} }}))
	nc, err := New(Config{Client: env.Client, Resources: served(env), Clock: env.Clock, Mode: runmode.Step})
	require.NoError(t, err)
	return &fixture{t: t, ctx: context.Background(), env: env, nc: nc}
}

// settle syncs and steps until nothing is ready; with advance it also
// moves the clock to delayed keys, at most rounds times.
func (f *fixture) settle(advance bool, rounds int) {
	f.t.Helper()
	ctrl := f.nc.Controllers()[0]
	for range 200 {
		require.NoError(f.t, ctrl.Sync(f.ctx))
		if _, ok := ctrl.Step(f.ctx); ok {
			continue
		}
		dl, ok := ctrl.NextDeadline()
		if !ok || !advance || rounds == 0 {
			return
		}
		rounds--
		f.env.Clock.SetTime(dl)
	}
	f.t.Fatal("the namespace controller did not settle")
}

func (f *fixture) namespace(name string) {
	f.t.Helper()
	_, err := f.env.Client.Namespaces().Create(f.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	require.NoError(f.t, err)
}

func (f *fixture) configMap(ns, name string, finalizers ...string) error {
	_, err := f.env.Client.ConfigMaps().Create(f.ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Finalizers: finalizers}})
	return err
}

func (f *fixture) pod(ns, name, node string) {
	f.t.Helper()
	_, err := f.env.Client.Pods().Create(f.ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	})
	require.NoError(f.t, err)
}

func (f *fixture) widget(ns, name string) {
	f.t.Helper()
	_, err := client.Dynamic(f.env.Client, widgetsInfo).Create(f.ctx, &unstructured.Unstructured{
		TypeMeta:   metav1.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Content:    map[string]any{},
	})
	require.NoError(f.t, err)
}

// count returns how many objects of each namespaced resource ns holds.
func (f *fixture) count(ns string) map[string]int {
	f.t.Helper()
	out := map[string]int{}
	for _, info := range served(f.env)() {
		if !info.Namespaced {
			continue
		}
		l, err := client.Dynamic(f.env.Client, info).List(f.ctx, ns, client.ListOptions{})
		require.NoError(f.t, err)
		if len(l.Items) > 0 {
			out[info.Resource] += len(l.Items)
		}
	}
	return out
}

func (f *fixture) getNamespace(name string) (*corev1.Namespace, bool) {
	f.t.Helper()
	ns, err := f.env.Client.Namespaces().Get(f.ctx, "", name)
	if api.IsNotFound(err) {
		return nil, false
	}
	require.NoError(f.t, err)
	return ns, true
}

func condition(ns *corev1.Namespace, t corev1.NamespaceConditionType) corev1.NamespaceCondition {
	for _, c := range ns.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return corev1.NamespaceCondition{}
}

func TestDeletingANamespaceEmptiesItThenRemovesIt(t *testing.T) {
	f := newFixture(t)
	f.namespace("doomed")
	f.namespace("kept")
	for _, name := range []string{"a", "b"} {
		require.NoError(t, f.configMap("doomed", name))
		f.pod("doomed", "pod-"+name, "")
	}
	f.widget("doomed", "w")
	_, err := f.env.Client.Secrets().Create(f.ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "doomed"}})
	require.NoError(t, err)
	require.NoError(t, f.configMap("kept", "a"))
	f.pod("kept", "pod-a", "")
	f.widget("kept", "w")
	keptBefore := f.count("kept")

	f.settle(false, 0)
	require.NotEmpty(t, f.count("doomed"), "nothing happens to a live namespace")

	require.NoError(t, f.env.Client.Namespaces().Delete(f.ctx, "", "doomed", nil))
	ns, ok := f.getNamespace("doomed")
	require.True(t, ok, "the kubernetes finalizer holds the namespace")
	assert.Equal(t, corev1.NamespaceTerminating, ns.Status.Phase)

	// New content is refused while the namespace terminates.
	err = f.configMap("doomed", "late")
	require.Error(t, err)
	assert.True(t, api.IsForbidden(err), "%v", err)
	assert.Contains(t, err.Error(), "unable to create new content in namespace doomed because it is being terminated")

	f.settle(true, 5)
	_, ok = f.getNamespace("doomed")
	assert.False(t, ok, "the emptied namespace is deleted")
	assert.Empty(t, f.count("doomed"))
	assert.Equal(t, keptBefore, f.count("kept"), "other namespaces are untouched")
	_, ok = f.getNamespace("kept")
	assert.True(t, ok)
}

func TestNamespaceWaitsForPodsAndFinalizers(t *testing.T) {
	f := newFixture(t)
	f.namespace("slow")
	f.pod("slow", "bound-1", "node-1")
	f.pod("slow", "bound-2", "node-1")
	require.NoError(t, f.configMap("slow", "held", "example.com/hold"))
	f.settle(false, 0)

	require.NoError(t, f.env.Client.Namespaces().Delete(f.ctx, "", "slow", nil))
	f.settle(true, 3)
	ns, ok := f.getNamespace("slow")
	require.True(t, ok, "bound pods wait for their kubelet, so the namespace stays")
	c := condition(ns, NamespaceContentRemaining)
	assert.Equal(t, corev1.ConditionTrue, c.Status)
	assert.Equal(t, "SomeResourcesRemain", c.Reason)
	assert.Equal(t, "Some resources are remaining: configmaps. has 1 resource instances, pods. has 2 resource instances", c.Message)
	c = condition(ns, NamespaceFinalizersRemaining)
	assert.Equal(t, corev1.ConditionTrue, c.Status)
	assert.Equal(t, "SomeFinalizersRemain", c.Reason)
	assert.Equal(t, "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances", c.Message)
	c = condition(ns, NamespaceDeletionContentFailure)
	assert.Equal(t, corev1.ConditionFalse, c.Status)
	assert.Equal(t, "ContentDeleted", c.Reason)
	assert.Equal(t, "All content successfully deleted, may be waiting on finalization", c.Message)
	pod, err := f.env.Client.Pods().Get(f.ctx, "slow", "bound-1")
	require.NoError(t, err)
	assert.NotNil(t, pod.DeletionTimestamp, "the controller asked for the pod's deletion")

	// Play the kubelet and the finalizer's owner.
	zero := int64(0)
	for _, name := range []string{"bound-1", "bound-2"} {
		require.NoError(t, f.env.Client.Pods().Delete(f.ctx, "slow", name, &metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	}
	_, err = f.env.Client.ConfigMaps().Patch(f.ctx, "slow", "held", client.MergePatch, []byte(`{"metadata":{"finalizers":null}}`))
	require.NoError(t, err)
	f.settle(true, 3)
	_, ok = f.getNamespace("slow")
	assert.False(t, ok, "once empty the namespace goes")
}

func TestLiveNamespaceIsNotTouched(t *testing.T) {
	f := newFixture(t)
	f.namespace("live")
	require.NoError(t, f.configMap("live", "a"))
	res, err := f.nc.Reconcile(f.ctx, "live")
	require.NoError(t, err)
	assert.Zero(t, res)
	assert.Equal(t, map[string]int{"configmaps": 1}, f.count("live"))
}

func TestUpdateConditions(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	remaining := corev1.NamespaceCondition{Type: NamespaceContentRemaining, Status: corev1.ConditionTrue,
		Reason: "SomeResourcesRemain", Message: "Some resources are remaining: pods. has 1 resource instances"}

	var st corev1.NamespaceStatus
	require.True(t, updateConditions(&st, []corev1.NamespaceCondition{remaining}, t0), "first pass adds all five")
	require.Len(t, st.Conditions, 5)
	for i, want := range conditionTypes {
		assert.Equal(t, want, st.Conditions[i].Type)
		assert.Equal(t, t0, st.Conditions[i].LastTransitionTime)
	}
	assert.Equal(t, corev1.ConditionTrue, st.Conditions[3].Status)

	assert.False(t, updateConditions(&st, []corev1.NamespaceCondition{remaining}, t1), "same conditions: no write")

	two := remaining
	two.Message = "Some resources are remaining: pods. has 2 resource instances"
	require.True(t, updateConditions(&st, []corev1.NamespaceCondition{two}, t1))
	assert.Equal(t, t0, st.Conditions[3].LastTransitionTime, "a new message alone keeps the transition time")
	assert.Equal(t, two.Message, st.Conditions[3].Message)

	require.True(t, updateConditions(&st, nil, t1))
	assert.Equal(t, corev1.ConditionFalse, st.Conditions[3].Status)
	assert.Equal(t, "ContentRemoved", st.Conditions[3].Reason)
	assert.Equal(t, "All content successfully removed", st.Conditions[3].Message)
	assert.Equal(t, t1, st.Conditions[3].LastTransitionTime, "a status change moves the transition time")
}

func TestNewConditions(t *testing.T) {
	tests := []struct {
		name   string
		totals contentTotals
		errs   []error
		want   []corev1.NamespaceCondition
	}{
		{name: "nothing left", totals: contentTotals{byResource: map[string]int{}, byFinalizer: map[string]int{}}},
		{
			name: "resources and finalizers, sorted",
			totals: contentTotals{
				byResource:  map[string]int{"pods.": 2, "replicasets.apps": 1},
				byFinalizer: map[string]int{"b/x": 1, "a/y": 3},
			},
			want: []corev1.NamespaceCondition{
				{Type: NamespaceContentRemaining, Status: corev1.ConditionTrue, Reason: "SomeResourcesRemain",
					Message: "Some resources are remaining: pods. has 2 resource instances, replicasets.apps has 1 resource instances"},
				{Type: NamespaceFinalizersRemaining, Status: corev1.ConditionTrue, Reason: "SomeFinalizersRemain",
					Message: "Some content in the namespace has finalizers remaining: a/y in 3 resource instances, b/x in 1 resource instances"},
			},
		},
		{
			name: "delete errors",
			errs: []error{errors.New("second"), errors.New("first")},
			want: []corev1.NamespaceCondition{{Type: NamespaceDeletionContentFailure, Status: corev1.ConditionTrue,
				Reason: "ContentDeletionFailed", Message: "Failed to delete all resource types, 2 remaining: first, second"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, newConditions(tt.totals, tt.errs))
		})
	}
}

func TestNewRequiresConfig(t *testing.T) {
	_, err := New(Config{})
	assert.Error(t, err)
}
