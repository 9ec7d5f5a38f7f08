package clientgo

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesim/kubesim/e2e/framework"
)

var widgets = schema.GroupVersionResource{Group: framework.WidgetGroup, Version: "v1", Resource: "widgets"}

func widget(name string, size int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": framework.WidgetGroup + "/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"size": size, "colour": "blue"},
	}}
}

// TestDynamicClientCustomResource creates a CRD with the apiextensions
// clientset, waits until it is Established, then runs the dynamic client
// on its custom resource: create, get, update, patch, the status
// subresource, list, watch, a dynamic informer, and delete; a value the
// schema forbids is Invalid.
func TestDynamicClientCustomResource(t *testing.T) {
	k := framework.Start(t, framework.Options{APIServerOnly: true})
	k.CreateCRD(t, framework.WidgetCRD())
	dyn, err := dynamic.NewForConfig(k.RestConfig())
	require.NoError(t, err)
	ctx := t.Context()
	ws := dyn.Resource(widgets).Namespace("default")

	list, err := ws.List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Empty(t, list.Items)
	w, err := ws.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	require.NoError(t, err)
	defer w.Stop()

	created, err := ws.Create(ctx, widget("w1", 3), metav1.CreateOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, created.GetUID())
	assert.Equal(t, "Widget", created.GetKind())

	got, err := ws.Get(ctx, "w1", metav1.GetOptions{})
	require.NoError(t, err)
	size, _, _ := unstructured.NestedInt64(got.Object, "spec", "size")
	assert.Equal(t, int64(3), size)

	require.NoError(t, unstructured.SetNestedField(got.Object, int64(4), "spec", "size"))
	updated, err := ws.Update(ctx, got, metav1.UpdateOptions{})
	require.NoError(t, err)
	size, _, _ = unstructured.NestedInt64(updated.Object, "spec", "size")
	assert.Equal(t, int64(4), size)
	assert.Equal(t, created.GetGeneration()+1, updated.GetGeneration(), "a spec change counts a generation")

	patched, err := ws.Patch(ctx, "w1", types.MergePatchType, []byte(`{"spec":{"colour":"red"}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	colour, _, _ := unstructured.NestedString(patched.Object, "spec", "colour")
	assert.Equal(t, "red", colour)

	applied, err := ws.Apply(ctx, "w1", &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": framework.WidgetGroup + "/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1", "labels": map[string]any{"applied": "yes"}},
	}}, metav1.ApplyOptions{FieldManager: "e2e-apply", Force: true})
	require.NoError(t, err, "server-side apply")
	assert.Equal(t, "yes", applied.GetLabels()["applied"])
	colour, _, _ = unstructured.NestedString(applied.Object, "spec", "colour")
	assert.Equal(t, "red", colour, "apply keeps fields it does not name")

	require.NoError(t, unstructured.SetNestedField(applied.Object, "seen", "status", "observed"))
	withStatus, err := ws.UpdateStatus(ctx, applied, metav1.UpdateOptions{})
	require.NoError(t, err, "update widgets/status")
	observed, _, _ := unstructured.NestedString(withStatus.Object, "status", "observed")
	assert.Equal(t, "seen", observed)

	bad := widget("w-bad", -1)
	_, err = ws.Create(ctx, bad, metav1.CreateOptions{})
	require.Error(t, err)
	assert.True(t, apierrors.IsInvalid(err), "spec.size below the schema's minimum is Invalid: %v", err)

	_, err = ws.Create(ctx, widget("w2", 1), metav1.CreateOptions{})
	require.NoError(t, err)
	all, err := ws.List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	names := []string{}
	for _, it := range all.Items {
		names = append(names, it.GetName())
	}
	assert.ElementsMatch(t, []string{"w1", "w2"}, names)
	selected, err := ws.List(ctx, metav1.ListOptions{LabelSelector: "applied=yes"})
	require.NoError(t, err)
	require.Len(t, selected.Items, 1)
	assert.Equal(t, "w1", selected.Items[0].GetName())

	// A dynamic informer (what generic controllers and kubectl-like tools
	// use) syncs on the custom resource with watch-list too.
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, "default", nil)
	inf := factory.ForResource(widgets)
	stop := make(chan struct{})
	defer func() { close(stop); factory.Shutdown() }()
	factory.Start(stop)
	synced := make(chan bool, 1)
	go func() { synced <- cache.WaitForCacheSync(t.Context().Done(), inf.Informer().HasSynced) }()
	select {
	case ok := <-synced:
		require.True(t, ok)
	case <-time.After(wait):
		t.Fatalf("dynamic informer did not sync within %v", wait)
	}
	cached, err := inf.Lister().ByNamespace("default").List(labels.Everything())
	require.NoError(t, err)
	assert.Len(t, cached, 2)

	require.NoError(t, ws.Delete(ctx, "w1", metav1.DeleteOptions{}))
	_, err = ws.Get(ctx, "w1", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "deleted: %v", err)

	seen := map[watch.EventType]int{}
	timeout := time.After(wait)
	for seen[watch.Deleted] == 0 {
		select {
		case ev, ok := <-w.ResultChan():
			require.True(t, ok, "watch closed early; saw %v", seen)
			u, ok := ev.Object.(*unstructured.Unstructured)
			require.True(t, ok, "event of %T: %v", ev.Object, ev.Object)
			if u.GetName() == "w1" {
				seen[ev.Type]++
			}
		case <-timeout:
			t.Fatalf("no DELETED event within %v; saw %v", wait, seen)
		}
	}
	assert.Equal(t, 1, seen[watch.Added])
	assert.GreaterOrEqual(t, seen[watch.Modified], 4, "update, patch, apply, status: %v", seen)
}
