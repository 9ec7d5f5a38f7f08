package protobufclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
)

// TestInformerListsThroughAWatch runs client-go's shared informer as
// Kubernetes' components do (protobuf, WatchListClient on by default in
// v0.37): its reflector fills the cache from one watch with
// sendInitialEvents and waits for the BOOKMARK annotated
// k8s.io/initial-events-end. Without that bookmark WaitForCacheSync never
// returns; if the watch-list were refused, the reflector would fall back
// to a plain list, which this test also rules out.
func TestInformerListsThroughAWatch(t *testing.T) {
	require.True(t, clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient), "client-go's WatchListClient gate")
	env := apiservertest.New(t)
	var mu sync.Mutex
	var gets []url.Values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/api/v1/configmaps" {
			mu.Lock()
			gets = append(gets, r.URL.Query())
			mu.Unlock()
		}
		env.Server.LoopbackHandler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{
		ContentType: pb, AcceptContentTypes: pb + ",application/json",
	}})
	require.NoError(t, err)
	ctx := context.Background()
	for _, n := range []string{"a", "b"} {
		_, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{})
		require.NoError(t, err)
	}

	factory := informers.NewSharedInformerFactory(cs, 0)
	cms := factory.Core().V1().ConfigMaps()
	added := make(chan string, 10)
	_, err = cms.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { added <- obj.(*corev1.ConfigMap).Name },
	})
	require.NoError(t, err)
	stop := make(chan struct{})
	defer func() { close(stop); factory.Shutdown() }()
	factory.Start(stop)
	syncCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for typ, ok := range factory.WaitForCacheSync(syncCtx.Done()) {
		require.True(t, ok, "%v cache syncs", typ)
	}
	got, err := cms.Lister().ConfigMaps("default").List(labels.Everything())
	require.NoError(t, err)
	assert.Len(t, got, 2, "the initial events hold what existed")

	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	seen := map[string]bool{}
	for !seen["c"] {
		select {
		case n := <-added:
			seen[n] = true
		case <-time.After(time.Minute):
			t.Fatalf("the informer saw %v, not c", seen)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, gets)
	first := gets[0]
	assert.Equal(t, "true", first.Get("watch"), "%v", first)
	assert.Equal(t, "true", first.Get("sendInitialEvents"), "%v", first)
	assert.Equal(t, "NotOlderThan", first.Get("resourceVersionMatch"), "%v", first)
	assert.Equal(t, "true", first.Get("allowWatchBookmarks"), "%v", first)
	for _, q := range gets {
		assert.Equal(t, "true", q.Get("watch"), "no fallback list: %v", q)
	}
}
