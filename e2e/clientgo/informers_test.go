package clientgo

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/e2e/framework"
)

// handlerLog is an informer's event handler that remembers what it saw.
type handlerLog struct {
	adds, updates, deletes chan string
}

func newHandlerLog() *handlerLog {
	return &handlerLog{adds: make(chan string, 100), updates: make(chan string, 100), deletes: make(chan string, 100)}
}

func (h *handlerLog) handler() cache.ResourceEventHandlerFuncs {
	name := func(obj any) string {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		return obj.(metav1.Object).GetName()
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { h.adds <- name(obj) },
		UpdateFunc: func(old, cur any) {
			// Resyncs are off; an update is a real change.
			h.updates <- name(cur)
		},
		DeleteFunc: func(obj any) { h.deletes <- name(obj) },
	}
}

// expect waits (bounded) until every one of names has come on ch, in
// any order, skipping other names.
func expect(t *testing.T, ch <-chan string, what string, names ...string) {
	t.Helper()
	missing := map[string]bool{}
	for _, n := range names {
		missing[n] = true
	}
	timeout := time.After(wait)
	for len(missing) > 0 {
		select {
		case got := <-ch:
			delete(missing, got)
		case <-timeout:
			t.Fatalf("no %s event for %v within %v", what, missing, wait)
		}
	}
}

// TestSharedInformersWatchList runs a SharedInformerFactory, as every
// controller does, with the WatchListClient feature on: each informer
// fills its cache from one watch that streams the existing objects and
// ends the initial list with the k8s.io/initial-events-end bookmark.
// The caches sync within a bounded wait, hold what existed before, and
// see creates, updates and deletes after; and no informer fell back to a
// plain list, which would mean the server's watch-list was not usable.
func TestSharedInformersWatchList(t *testing.T) {
	require.True(t, clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient), "KUBE_FEATURE_WatchListClient=true")
	k := framework.Start(t, framework.Options{APIServerOnly: true})
	setup := k.Clientset(t)
	ctx := t.Context()
	ns := "informed"
	_, err := setup.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)
	for _, n := range []string{"before-1", "before-2", "before-3"} {
		_, err := setup.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n}, Data: map[string]string{"n": n}}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	_, err = setup.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "before"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](0), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "b"}}, Template: podTemplate("b")}}, metav1.CreateOptions{})
	require.NoError(t, err)

	cs, log := recordingClientset(t, k)
	factory := informers.NewSharedInformerFactory(cs, 0)
	cms, deploys := newHandlerLog(), newHandlerLog()
	cmInformer := factory.Core().V1().ConfigMaps()
	_, err = cmInformer.Informer().AddEventHandler(cms.handler())
	require.NoError(t, err)
	deployInformer := factory.Apps().V1().Deployments()
	_, err = deployInformer.Informer().AddEventHandler(deploys.handler())
	require.NoError(t, err)
	secretInformer := factory.Core().V1().Secrets()
	secretInformer.Informer() // registered before Start, to be started by it

	runCtx, stop := context.WithCancel(ctx)
	defer func() { stop(); factory.Shutdown() }()
	factory.Start(runCtx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for typ, ok := range factory.WaitForCacheSync(syncCtx.Done()) {
		require.True(t, ok, "%v cache syncs within %v", typ, wait)
	}

	got, err := cmInformer.Lister().ConfigMaps(ns).List(labels.Everything())
	require.NoError(t, err)
	names := []string{}
	for _, cm := range got {
		names = append(names, cm.Name)
	}
	assert.ElementsMatch(t, []string{"before-1", "before-2", "before-3"}, names, "the initial events hold what existed")
	d, err := deployInformer.Lister().Deployments(ns).Get("before")
	require.NoError(t, err)
	assert.Equal(t, int32(0), *d.Spec.Replicas)
	expect(t, cms.adds, "add", "before-1", "before-2", "before-3")
	expect(t, deploys.adds, "add", "before")

	_, err = setup.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	expect(t, cms.adds, "add", "after")
	_, err = setup.CoreV1().ConfigMaps(ns).Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}, Data: map[string]string{"v": "2"}}, metav1.UpdateOptions{})
	require.NoError(t, err)
	expect(t, cms.updates, "update", "after")
	cm, err := cmInformer.Lister().ConfigMaps(ns).Get("after")
	require.NoError(t, err)
	assert.Equal(t, "2", cm.Data["v"], "the cache holds the update")
	require.NoError(t, setup.CoreV1().ConfigMaps(ns).Delete(ctx, "after", metav1.DeleteOptions{}))
	expect(t, cms.deletes, "delete", "after")
	_, err = cmInformer.Lister().ConfigMaps(ns).Get("after")
	assert.Error(t, err, "the cache forgets a deleted object")

	_, err = setup.AppsV1().Deployments(ns).Patch(ctx, "before", types.MergePatchType, []byte(`{"spec":{"replicas":0,"paused":true}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	expect(t, deploys.updates, "update", "before")
	require.NoError(t, setup.AppsV1().Deployments(ns).Delete(ctx, "before", metav1.DeleteOptions{}))
	expect(t, deploys.deletes, "delete", "before")

	// How the caches were filled: a watch with sendInitialEvents, and
	// never a plain list (the reflector's fallback when watch-list fails).
	for _, path := range []string{"/api/v1/configmaps", "/apis/apps/v1/deployments", "/api/v1/secrets"} {
		reqs := log.find("GET", path)
		require.NotEmpty(t, reqs, "requests to %s", path)
		first := reqs[0].query
		assert.Equal(t, "true", first.Get("watch"), "%s: first request is a watch: %v", path, first)
		assert.Equal(t, "true", first.Get("sendInitialEvents"), "%s: %v", path, first)
		assert.Equal(t, "NotOlderThan", first.Get("resourceVersionMatch"), "%s: %v", path, first)
		assert.Equal(t, "true", first.Get("allowWatchBookmarks"), "%s: %v", path, first)
		assert.Equal(t, protobufWatch, reqs[0].respType, "%s: the watch stream is protobuf", path)
		for _, r := range reqs {
			assert.Equal(t, "true", r.query.Get("watch"), "%s: no fallback list: %v", path, r.query)
		}
	}
}
