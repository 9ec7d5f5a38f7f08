package cache

import (
	"context"
	"crypto/rand"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

func testServer(t *testing.T, window int) (*client.Client, store.Interface) {
	return testServerWrapped(t, window, nil)
}

// testServerWrapped is testServer with the server's handler wrapped by wrap
// (when set).
func testServerWrapped(t *testing.T, window int, wrap func(http.Handler) http.Handler) (*client.Client, store.Interface) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName),
		UnsafeNoFsync: true, Watch: store.BroadcasterConfig{Window: window}})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	srv, err := apiserver.New(apiserver.Config{Storage: st, Clock: clock.Real{}, Rand: rand.Reader, Resources: []*registry.Resource{
		{Version: "v1", Name: "namespaces", Kind: "Namespace", ListKind: "NamespaceList",
			New: func() api.Object { return &corev1.Namespace{} }, Schema: schema.FromGoType(reflect.TypeOf(corev1.Namespace{}))},
		{Version: "v1", Name: "configmaps", Kind: "ConfigMap", ListKind: "ConfigMapList", Namespaced: true,
			New: func() api.Object { return &corev1.ConfigMap{} }, Schema: schema.FromGoType(reflect.TypeOf(corev1.ConfigMap{}))},
	}})
	require.NoError(t, err)
	require.NoError(t, srv.Bootstrap(context.Background()))
	h := srv.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	return client.NewInProcess(h, "test"), st
}

func cm(name string, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: labels}}
}

// recorder collects handler calls as strings.
type recorder struct {
	mu  sync.Mutex
	got []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, s)
}

func (r *recorder) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

func (r *recorder) handler() Handler[*corev1.ConfigMap] {
	return Handler[*corev1.ConfigMap]{
		OnAdd:    func(o *corev1.ConfigMap) { r.add("add " + o.Name) },
		OnUpdate: func(_, o *corev1.ConfigMap) { r.add("update " + o.Name) },
		OnDelete: func(o *corev1.ConfigMap) { r.add("delete " + o.Name) },
	}
}

func TestSyncAppliesDifferencesInKeyOrder(t *testing.T) {
	c, _ := testServer(t, 0)
	ctx := context.Background()
	cms := c.ConfigMaps()
	for _, n := range []string{"b", "a", "c"} {
		_, err := cms.Create(ctx, cm(n, map[string]string{"app": "x"}))
		require.NoError(t, err)
	}
	inf := New(cms, "", client.ListOptions{}, nil)
	rec := &recorder{}
	inf.AddHandler(rec.handler())
	require.NoError(t, inf.Sync(ctx))
	assert.True(t, inf.HasSynced())
	assert.Equal(t, []string{"add a", "add b", "add c"}, rec.snapshot())

	require.NoError(t, cms.Delete(ctx, "default", "a", nil))
	_, err := cms.Patch(ctx, "default", "c", client.MergePatch, []byte(`{"data":{"k":"v"}}`))
	require.NoError(t, err)
	require.NoError(t, inf.Sync(ctx))
	require.NoError(t, inf.Sync(ctx)) // nothing changed: no calls
	assert.Equal(t, []string{"add a", "add b", "add c", "delete a", "update c"}, rec.snapshot())

	got, ok := inf.Get("default", "c")
	require.True(t, ok)
	assert.Equal(t, "v", got.Data["k"])
	assert.Len(t, inf.ByIndex(LabelIndex, "app=x"), 2)
	assert.Len(t, inf.ByIndex(NamespaceIndex, "default"), 2)
	assert.Empty(t, inf.ByIndex(LabelIndex, "app=y"))
}

func TestRunWatchesAndRelistsAfterExpiry(t *testing.T) {
	c, st := testServer(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cms := c.ConfigMaps()
	inf := New(cms, "default", client.ListOptions{LabelSelector: "app=x"}, nil)
	rec := &recorder{}
	inf.AddHandler(rec.handler())
	go inf.Run(ctx)
	require.Eventually(t, inf.HasSynced, 5*time.Second, 5*time.Millisecond)

	_, err := cms.Create(ctx, cm("one", map[string]string{"app": "x"}))
	require.NoError(t, err)
	_, err = cms.Create(ctx, cm("other", map[string]string{"app": "y"}))
	require.NoError(t, err)
	require.Eventually(t, func() bool { _, ok := inf.Get("default", "one"); return ok }, 5*time.Second, 5*time.Millisecond)
	_, ok := inf.Get("default", "other")
	assert.False(t, ok, "the selector narrows the cache")

	// Forget all history: the informer's next watch is expired and it
	// must list again to see objects created meanwhile.
	require.NoError(t, st.Compact(ctx, st.Revision()))
	_, err = cms.Create(ctx, cm("two", map[string]string{"app": "x"}))
	require.NoError(t, err)
	require.Eventually(t, func() bool { _, ok := inf.Get("default", "two"); return ok }, 5*time.Second, 5*time.Millisecond)
	require.NoError(t, cms.Delete(ctx, "default", "one", nil))
	require.Eventually(t, func() bool { _, ok := inf.Get("default", "one"); return !ok }, 5*time.Second, 5*time.Millisecond)
	assert.Contains(t, rec.snapshot(), "delete one")
}

func TestRunRelistsWhenTheWindowIsTooSmall(t *testing.T) {
	// A two-event window: a watch from the list's version soon expires.
	c, _ := testServer(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cms := c.ConfigMaps()
	inf := New(cms, "", client.ListOptions{}, nil)
	go inf.Run(ctx)
	require.Eventually(t, inf.HasSynced, 5*time.Second, 5*time.Millisecond)
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		_, err := cms.Create(ctx, cm(n, nil))
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { return len(inf.List()) == 6 }, 5*time.Second, 5*time.Millisecond)
}

// A handler added after the informer synced (a controller switched back on
// over a running shared informer) is told of every cached object first.
func TestLateHandlerIsToldOfTheCache(t *testing.T) {
	c, _ := testServer(t, 0)
	ctx := context.Background()
	cms := c.ConfigMaps()
	for _, n := range []string{"b", "a"} {
		_, err := cms.Create(ctx, cm(n, nil))
		require.NoError(t, err)
	}
	inf := New(cms, "", client.ListOptions{}, nil)
	early := &recorder{}
	inf.AddHandler(early.handler())
	require.NoError(t, inf.Sync(ctx))
	late := &recorder{}
	inf.AddHandler(late.handler())
	assert.Equal(t, []string{"add a", "add b"}, late.snapshot())
	assert.Equal(t, []string{"add a", "add b"}, early.snapshot(), "the early handler is not told twice")
	_, err := cms.Create(ctx, cm("c", nil))
	require.NoError(t, err)
	require.NoError(t, inf.Sync(ctx))
	assert.Equal(t, []string{"add a", "add b", "add c"}, late.snapshot())
}

// The built-in indexes cost nothing until asked for: an informer no one
// asks by label holds no label index; the first ByIndex builds it from
// what the cache holds, and from then on it follows every change.
func TestBuiltinIndexesAreBuiltOnFirstUse(t *testing.T) {
	c, _ := testServer(t, 0)
	ctx := context.Background()
	_, err := c.ConfigMaps().Create(ctx, cm("a", map[string]string{"app": "x"}))
	require.NoError(t, err)
	inf := New(c.ConfigMaps(), "", client.ListOptions{}, nil)
	require.NoError(t, inf.Sync(ctx))
	inf.mu.RLock()
	assert.Empty(t, inf.indices, "no index before anyone asks")
	inf.mu.RUnlock()

	assert.Len(t, inf.ByIndex(LabelIndex, "app=x"), 1)
	_, err = c.ConfigMaps().Create(ctx, cm("b", map[string]string{"app": "x"}))
	require.NoError(t, err)
	require.NoError(t, inf.Sync(ctx))
	assert.Len(t, inf.ByIndex(LabelIndex, "app=x"), 2, "kept up to date once built")
	assert.Len(t, inf.ByIndex(NamespaceIndex, "default"), 2)
	inf.mu.RLock()
	assert.Len(t, inf.indices, 2, "only the indexes asked for")
	inf.mu.RUnlock()
}

// With a change count (step mode), Sync lists only when the count moved
// since its last list; a resource whose count cannot be told is listed
// every time.
func TestSyncListsOnlyWhenTheChangeCountMoved(t *testing.T) {
	c, _ := testServer(t, 0)
	ctx := context.Background()
	cms := c.ConfigMaps()
	count, known := uint64(1), true
	f := NewFactory(FactoryConfig{Changes: func(gvr k8sschema.GroupVersionResource) (uint64, bool) {
		assert.Equal(t, k8sschema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, gvr)
		return count, known
	}})
	inf := For(f, cms, "", client.ListOptions{}, nil)
	rec := &recorder{}
	inf.AddHandler(rec.handler())
	_, err := cms.Create(ctx, cm("a", nil))
	require.NoError(t, err)
	require.NoError(t, inf.Sync(ctx))
	assert.Equal(t, []string{"add a"}, rec.snapshot(), "the first Sync lists")

	// A write the count does not show (as no real write is): not listed.
	_, err = cms.Create(ctx, cm("b", nil))
	require.NoError(t, err)
	require.NoError(t, inf.Sync(ctx))
	assert.Equal(t, []string{"add a"}, rec.snapshot(), "the count did not move: no list")

	count++
	require.NoError(t, inf.Sync(ctx))
	assert.Equal(t, []string{"add a", "add b"}, rec.snapshot(), "the count moved: listed")

	known = false
	_, err = cms.Create(ctx, cm("c", nil))
	require.NoError(t, err)
	require.NoError(t, inf.Sync(ctx))
	assert.Equal(t, []string{"add a", "add b", "add c"}, rec.snapshot(), "an unknown count lists every time")

	// A list that failed is not remembered: the next Sync lists.
	known = true
	failing := For(f, client.NewInProcess(http.NotFoundHandler(), "test").ConfigMaps(), "", client.ListOptions{}, nil)
	require.Error(t, failing.Sync(ctx))
	assert.False(t, failing.HasSynced())
	assert.Error(t, failing.Sync(ctx), "listed again, not skipped")
}

// configMapRequests records the list and watch requests of configmaps a
// server answers ("list", "watch", "watch-list"); expireWatch makes the
// first plain watch end with 410 Expired once released is closed, and
// refuseWatchList answers watch-lists with 400, as a server without them.
type configMapRequests struct {
	recorder
	released        chan struct{}
	expired         bool
	refuseWatchList bool
}

func (r *configMapRequests) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		q := req.URL.Query()
		if req.Method != http.MethodGet || !strings.HasSuffix(req.URL.Path, "/configmaps") {
			h.ServeHTTP(w, req)
			return
		}
		switch {
		case q.Get("watch") != "true":
			r.add("list")
		case q.Get("sendInitialEvents") == "true":
			r.add("watch-list")
			if r.refuseWatchList {
				http.Error(w, "watch-list not served", http.StatusBadRequest)
				return
			}
		default:
			r.add("watch")
			r.mu.Lock()
			expire := !r.expired
			r.expired = true
			r.mu.Unlock()
			if expire {
				<-r.released
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
					`"message":"too old resource version","reason":"Expired","code":410}}` + "\n"))
				return
			}
		}
		h.ServeHTTP(w, req)
	})
}

// relistAfterExpiry runs an informer whose first watch is expired after
// "one" is deleted and "two" created, and checks that its cache and
// handlers end up with the server's state.
func relistAfterExpiry(t *testing.T, reqs *configMapRequests) *Informer[*corev1.ConfigMap] {
	reqs.released = make(chan struct{})
	c, _ := testServerWrapped(t, 0, reqs.wrap)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cms := c.ConfigMaps()
	for _, n := range []string{"one", "stays"} {
		_, err := cms.Create(ctx, cm(n, nil))
		require.NoError(t, err)
	}
	inf := New(cms, "default", client.ListOptions{}, nil)
	rec := &recorder{}
	inf.AddHandler(rec.handler())
	go inf.Run(ctx)
	require.Eventually(t, inf.HasSynced, 5*time.Second, 5*time.Millisecond)
	require.NoError(t, cms.Delete(ctx, "default", "one", nil))
	_, err := cms.Create(ctx, cm("two", nil))
	require.NoError(t, err)
	close(reqs.released)
	require.Eventually(t, func() bool {
		_, one := inf.Get("default", "one")
		_, two := inf.Get("default", "two")
		return !one && two
	}, 5*time.Second, 5*time.Millisecond)
	// And it watches on: a later change arrives without another relist.
	_, err = cms.Create(ctx, cm("three", nil))
	require.NoError(t, err)
	require.Eventually(t, func() bool { _, ok := inf.Get("default", "three"); return ok }, 5*time.Second, 5*time.Millisecond)
	assert.Equal(t, []string{"add one", "add stays", "delete one", "add two", "add three"}, rec.snapshot())
	return inf
}

// After an expired watch the informer relists with a watch-list (client-go's
// WatchListClient): one watch that starts with the current objects, which
// the informer applies as a list, then goes on. In process it is served
// from the watch cache's objects, shared, and joins the shared stream: a
// list of 100,000 pods was read from the store, encoded, decoded into
// private copies and too late to join the stream.
func TestRelistAfterExpiryIsAWatchList(t *testing.T) {
	reqs := &configMapRequests{}
	relistAfterExpiry(t, reqs)
	got := reqs.snapshot()
	assert.Equal(t, []string{"list", "watch", "watch-list"}, got, "one list at the start, none after")
}

// A server that refuses watch-lists gets a list instead.
func TestRelistFallsBackToAListWhenTheWatchListFails(t *testing.T) {
	reqs := &configMapRequests{refuseWatchList: true}
	relistAfterExpiry(t, reqs)
	got := reqs.snapshot()
	require.GreaterOrEqual(t, len(got), 5)
	assert.Equal(t, []string{"list", "watch", "watch-list", "list", "watch"}, got[:5])
	assert.Equal(t, 2, len(slices.DeleteFunc(got, func(s string) bool { return s != "list" })))
}

// Start joins a shared informer's loop and returns at once; the loop
// stops once every runner, started or run, has left.
func TestStartJoinsWithoutBlocking(t *testing.T) {
	c, _ := testServer(t, 0)
	inf := New(c.ConfigMaps(), "default", client.ListOptions{}, nil)
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	inf.Start(ctx1) // returns: no goroutine of the caller waits
	ran := make(chan struct{})
	go func() { inf.Run(ctx2); close(ran) }()
	require.Eventually(t, inf.HasSynced, 10*time.Second, time.Millisecond)
	require.Eventually(t, func() bool { inf.runMu.Lock(); defer inf.runMu.Unlock(); return inf.runners == 2 }, 10*time.Second, time.Millisecond)
	inf.runMu.Lock()
	done := inf.loopDone
	inf.runMu.Unlock()
	cancel1()
	require.Eventually(t, func() bool { inf.runMu.Lock(); defer inf.runMu.Unlock(); return inf.runners == 1 }, 10*time.Second, time.Millisecond)
	select {
	case <-done:
		t.Fatal("the loop stopped while a runner was left")
	default:
	}
	cancel2()
	<-ran
	<-done // the last runner's leaving stopped the loop
}
