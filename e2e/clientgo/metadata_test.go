package clientgo

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesim/kubesim/e2e/framework"
)

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// TestMetadataClientListAndWatch runs client-go's metadata client (what
// the garbage collector, kube-controller-manager's quota and
// controller-runtime's OnlyMetadata use) against a built-in kind and a
// custom resource: get, list and watch answer PartialObjectMetadata in
// protobuf, and a metadata informer syncs through a watch-list of them.
func TestMetadataClientListAndWatch(t *testing.T) {
	k := framework.Start(t, framework.Options{APIServerOnly: true})
	k.CreateCRD(t, framework.WidgetCRD())
	ctx := t.Context()
	cs := k.Clientset(t)
	for _, name := range []string{"a", "b"} {
		_, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
			Data:       map[string]string{"big": strings.Repeat("x", 1000)},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	dyn, err := dynamic.NewForConfig(k.RestConfig())
	require.NoError(t, err)
	_, err = dyn.Resource(widgets).Namespace("default").Create(ctx, widget("w1", 2), metav1.CreateOptions{})
	require.NoError(t, err)

	cfg := k.RestConfig()
	log := &requestLog{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return recordingTransport{log: log, next: rt} })
	md, err := metadata.NewForConfig(cfg)
	require.NoError(t, err)

	cms := md.Resource(configMaps).Namespace("default")
	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	require.NoError(t, err)
	require.Len(t, list.Items, 2)
	assert.Equal(t, "a", list.Items[0].Name)
	assert.Equal(t, "web", list.Items[0].Labels["app"])
	assert.NotEmpty(t, list.Items[0].UID)
	assert.NotEmpty(t, list.ResourceVersion)

	one, err := cms.Get(ctx, "b", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "b", one.Name)

	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	require.NoError(t, err)
	defer w.Stop()
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Labels: map[string]string{"app": "api"}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	select {
	case ev := <-w.ResultChan():
		require.Equal(t, watch.Added, ev.Type, "%+v", ev.Object)
		p, ok := ev.Object.(*metav1.PartialObjectMetadata)
		require.True(t, ok, "%T", ev.Object)
		assert.Equal(t, "c", p.Name)
		assert.Equal(t, "api", p.Labels["app"])
	case <-time.After(30 * time.Second):
		t.Fatal("no watch event")
	}

	// A custom resource: its metadata has a protobuf form.
	wl, err := md.Resource(widgets).Namespace("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, wl.Items, 1)
	assert.Equal(t, "w1", wl.Items[0].Name)
	assertProtobuf(t, log, "/api/v1/namespaces/default/configmaps")
	assertProtobuf(t, log, "/apis/"+framework.WidgetGroup+"/v1/namespaces/default/widgets")

	// A metadata informer (the garbage collector's kind) syncs on the
	// custom resource and follows its changes.
	factory := metadatainformer.NewFilteredSharedInformerFactory(md, 0, "default", nil)
	inf := factory.ForResource(widgets)
	stop := make(chan struct{})
	defer func() { close(stop); factory.Shutdown() }()
	factory.Start(stop)
	synced := make(chan bool, 1)
	go func() { synced <- cache.WaitForCacheSync(t.Context().Done(), inf.Informer().HasSynced) }()
	select {
	case ok := <-synced:
		require.True(t, ok)
	case <-time.After(30 * time.Second):
		t.Fatal("the metadata informer did not sync")
	}
	got, err := inf.Lister().ByNamespace("default").Get("w1")
	require.NoError(t, err)
	assert.Equal(t, "w1", got.(*metav1.PartialObjectMetadata).Name)
	watchList := false
	for _, e := range log.find(http.MethodGet, "/apis/"+framework.WidgetGroup+"/v1/namespaces/default/widgets") {
		if e.query.Get("sendInitialEvents") == "true" {
			watchList = true
			assert.Equal(t, protobufWatch, e.respType)
		}
	}
	assert.True(t, watchList, "the informer listed through a watch")

	_, err = dyn.Resource(widgets).Namespace("default").Create(ctx, widget("w2", 1), metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := inf.Lister().ByNamespace("default").Get("w2")
		return err == nil
	}, 30*time.Second, 20*time.Millisecond, "the informer sees the new widget")
}
