package handlers

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

// waitLong bounds waits for what must happen; generous for a loaded machine.
const waitLong = 30 * time.Second

func nextLong(t *testing.T, ch <-chan map[string]any) map[string]any {
	t.Helper()
	select {
	case ev, ok := <-ch:
		require.True(t, ok, "watch closed")
		return ev
	case <-time.After(waitLong):
		t.Fatal("no watch event")
	}
	return nil
}

// eventLine is "TYPE name" or "BOOKMARK rv".
func eventLine(ev map[string]any) string {
	if ev["type"] == "BOOKMARK" {
		return "BOOKMARK " + get(ev, "object", "metadata", "resourceVersion").(string)
	}
	name, _ := get(ev, "object", "metadata", "name").(string)
	return ev["type"].(string) + " " + name
}

const watchList = "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"

// client-go's reflector lists through a watch: the state as ADDED, a
// BOOKMARK annotated k8s.io/initial-events-end at the state's
// resourceVersion, then the changes; selectors apply throughout.
func TestWatchListOverHTTP(t *testing.T) {
	e := newEnv(t)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"a","labels":{"app":"web"}}}`).expect(201)
	e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"b","labels":{"app":"db"}}}`).expect(201)
	listRV := get(e.do("GET", "/api/v1/namespaces/default/configmaps", "", "").expect(200).obj(), "metadata", "resourceVersion").(string)

	for _, rv := range []string{"", "0", "1"} {
		t.Run("resourceVersion="+rv, func(t *testing.T) {
			evs, stop := watchLines(t, srv, "/api/v1/namespaces/default/configmaps?"+watchList+"&labelSelector=app%3Dweb&resourceVersion="+rv)
			defer stop()
			assert.Equal(t, "ADDED a", eventLine(nextLong(t, evs)))
			bm := nextLong(t, evs)
			require.Equal(t, "BOOKMARK "+listRV, eventLine(bm))
			assert.Equal(t, map[string]any{"kind": "ConfigMap", "apiVersion": "v1", "metadata": map[string]any{
				"resourceVersion": listRV, "annotations": map[string]any{"k8s.io/initial-events-end": "true"}}},
				withoutNulls(bm["object"].(map[string]any)))
		})
	}

	evs, stop := watchLines(t, srv, "/api/v1/namespaces/default/configmaps?"+watchList+"&labelSelector=app%3Dweb")
	defer stop()
	assert.Equal(t, "ADDED a", eventLine(nextLong(t, evs)))
	assert.Equal(t, "BOOKMARK "+listRV, eventLine(nextLong(t, evs)))
	e.do("PATCH", "/api/v1/namespaces/default/configmaps/b", "application/merge-patch+json", `{"metadata":{"labels":{"app":"web"}}}`).expect(200)
	assert.Equal(t, "ADDED b", eventLine(nextLong(t, evs)), "b starts matching")
	e.do("PATCH", "/api/v1/namespaces/default/configmaps/a", "application/merge-patch+json", `{"metadata":{"labels":{"app":"db"}}}`).expect(200)
	assert.Equal(t, "DELETED a", eventLine(nextLong(t, evs)), "a stops matching")
}

// withoutNulls drops null and empty-object fields, which typed kinds may
// encode (creationTimestamp: null) without changing what a client reads.
func withoutNulls(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		switch x := v.(type) {
		case nil:
			continue
		case map[string]any:
			x = withoutNulls(x)
			if len(x) == 0 {
				continue
			}
			v = x
		}
		out[k] = v
	}
	return out
}

// A custom resource's bookmark is an object of its kind.
func TestWatchListOfCustomResources(t *testing.T) {
	e := newEnv(t)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	e.do("POST", "/apis/lab.example.com/v1/namespaces/default/widgets", "", `{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":2}}`).expect(201)
	evs, stop := watchLines(t, srv, "/apis/lab.example.com/v1/namespaces/default/widgets?"+watchList)
	defer stop()
	assert.Equal(t, "ADDED w", eventLine(nextLong(t, evs)))
	bm := nextLong(t, evs)
	assert.Equal(t, "BOOKMARK", bm["type"])
	assert.Equal(t, "Widget", get(bm, "object", "kind"))
	assert.Equal(t, "lab.example.com/v1", get(bm, "object", "apiVersion"))
	assert.Equal(t, "true", get(bm, "object", "metadata", "annotations", "k8s.io/initial-events-end"))
	assert.Nil(t, get(bm, "object", "spec"))
	e.do("POST", "/apis/lab.example.com/v1/namespaces/default/widgets", "", `{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{"size":3}}`).expect(201)
	assert.Equal(t, "ADDED w2", eventLine(nextLong(t, evs)))
}

// Kubernetes' own wording for every refused combination: 422 Invalid on
// ListOptions.meta.k8s.io, 400 for a resourceVersion that is no number.
func TestListOptionsRefused(t *testing.T) {
	e := newEnv(t)
	const cms = "/api/v1/namespaces/default/configmaps?"
	cases := []struct {
		query, message string
	}{
		{"watch=true&sendInitialEvents=true",
			"resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"},
		{"watch=true&sendInitialEvents=true&resourceVersionMatch=Exact&allowWatchBookmarks=true",
			`[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]`},
		{"watch=true&resourceVersionMatch=NotOlderThan",
			"resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"},
		{"sendInitialEvents=true",
			"sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"},
		{"resourceVersionMatch=NotOlderThan",
			"resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{"resourceVersion=5&resourceVersionMatch=bogus",
			`resourceVersionMatch: Unsupported value: "bogus": supported values: "Exact", "NotOlderThan", ""`},
		{"resourceVersion=0&resourceVersionMatch=Exact",
			`resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			st := e.do("GET", cms+c.query, "", "").expect(http.StatusUnprocessableEntity).status()
			assert.Equal(t, `ListOptions.meta.k8s.io "" is invalid: `+c.message, st.Message)
			assert.Equal(t, "Invalid", string(st.Reason))
			require.NotNil(t, st.Details)
			assert.Equal(t, "meta.k8s.io", st.Details.Group)
			assert.Equal(t, "ListOptions", st.Details.Kind)
			assert.NotEmpty(t, st.Details.Causes)
		})
	}
	for _, q := range []string{"resourceVersion=abc", "watch=true&resourceVersion=abc"} {
		st := e.do("GET", cms+q, "", "").expect(http.StatusBadRequest).status()
		assert.Equal(t, `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`, st.Message)
		assert.Equal(t, "BadRequest", string(st.Reason))
	}
}

// Exact at a revision compacted away is 410 Expired with etcd's wording.
func TestListExactGoneIsExpired(t *testing.T) {
	e := newEnv(t)
	rv := get(e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"a"}}`).expect(201).obj(), "metadata", "resourceVersion").(string)
	e.do("GET", "/api/v1/namespaces/default/configmaps?resourceVersionMatch=Exact&resourceVersion="+rv, "", "").expect(200)
	e.do("POST", "/api/v1/namespaces/default/configmaps", "", `{"metadata":{"name":"b"}}`).expect(201)
	require.NoError(t, e.store.Compact(context.Background(), e.store.Revision()))
	st := e.do("GET", "/api/v1/namespaces/default/configmaps?resourceVersionMatch=Exact&resourceVersion="+rv, "", "").expect(http.StatusGone).status()
	assert.Equal(t, "Expired", string(st.Reason))
	assert.Equal(t, "The resourceVersion for the provided list is too old.", st.Message)
}

// A revision the store has not reached: the list waits (on the injected
// clock), then 504 Timeout with the ResourceVersionTooLarge cause; a watch
// starts and says the same in an ERROR event.
func TestFutureResourceVersionIs504(t *testing.T) {
	e := newEnv(t)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	cur := e.store.Revision()
	future := strconv.FormatInt(cur+10, 10)
	want := "Timeout: Too large resource version: " + future + ", current: " + strconv.FormatInt(cur, 10)
	stepWhenWaiting := func() {
		require.Eventually(t, func() bool { _, ok := e.clock.NextDeadline(); return ok }, waitLong, time.Millisecond)
		e.clock.Step(registry.DefaultResourceVersionWait)
	}

	done := make(chan *resp, 1)
	go func() { done <- e.do("GET", "/api/v1/namespaces/default/configmaps?resourceVersion="+future, "", "") }()
	stepWhenWaiting()
	r := <-done
	st := r.expect(http.StatusGatewayTimeout).status()
	assert.Equal(t, want, st.Message)
	assert.Equal(t, "Timeout", string(st.Reason))
	require.NotNil(t, st.Details)
	assert.Equal(t, int32(1), st.Details.RetryAfterSeconds)
	require.Len(t, st.Details.Causes, 1)
	assert.Equal(t, "ResourceVersionTooLarge", string(st.Details.Causes[0].Type))
	assert.Equal(t, "Too large resource version", st.Details.Causes[0].Message)

	for _, q := range []string{"watch=true&resourceVersion=" + future, watchList + "&resourceVersion=" + future} {
		lines := make(chan (<-chan map[string]any), 1)
		go func() {
			evs, stop := watchLines(t, srv, "/api/v1/namespaces/default/configmaps?"+q)
			t.Cleanup(stop)
			lines <- evs
		}()
		stepWhenWaiting()
		var evs <-chan map[string]any
		select {
		case evs = <-lines:
		case <-time.After(waitLong):
			t.Fatal("the watch did not start")
		}
		ev := nextLong(t, evs)
		assert.Equal(t, "ERROR", ev["type"])
		assert.Equal(t, int64(504), get(ev, "object", "code"))
		assert.Equal(t, want, get(ev, "object", "message"))
	}
}

// gatedWriter is a client that does not read: Write blocks until the gate
// opens. It records what was written.
type gatedWriter struct {
	header  http.Header
	gate    chan struct{}
	writing chan struct{} // closed at the first Write
	once    sync.Once
	mu      sync.Mutex
	body    []byte
}

func (g *gatedWriter) Header() http.Header { return g.header }
func (g *gatedWriter) WriteHeader(int)     {}
func (g *gatedWriter) Flush()              {}
func (g *gatedWriter) Write(p []byte) (int, error) {
	g.once.Do(func() { close(g.writing) })
	<-g.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	g.body = append(g.body, p...)
	return len(p), nil
}

// A watcher that falls behind is ended, and the last line of its stream
// says why: an ERROR with 410 Expired, so that its client lists again
// instead of believing it saw everything.
func TestSlowWatcherStreamEndsWithExpired(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	res := &registry.Resource{Version: "v1", Name: "configmaps", Kind: "ConfigMap", ListKind: "ConfigMapList", Namespaced: true,
		New: func() api.Object { return &corev1.ConfigMap{} }}
	s, err := registry.NewStore(registry.Config{Resource: res, Storage: st, Clock: clk, IDs: registry.NewIDs(rand.Reader), WatchBuffer: 3})
	require.NoError(t, err)
	h := &Handler{Clock: clk, Lookup: func(g, v, r string) (*registry.Store, bool) { return s, g == "" && v == "v1" && r == "configmaps" }}
	bg := context.Background()
	created, err := s.Create(bg, "default", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, registry.CreateOptions{})
	require.NoError(t, err)
	rv := api.Meta(created).ResourceVersion
	update := func(i int) {
		_, _, err := s.Update(bg, "default", "x", func(cur api.Object) (api.Object, error) {
			cur.(*corev1.ConfigMap).Data = map[string]string{"i": strconv.Itoa(i)}
			api.Meta(cur).ResourceVersion = ""
			return cur, nil
		}, registry.UpdateOptions{})
		require.NoError(t, err)
	}
	// A watcher that keeps up, to know when the cacher has handed out
	// every update.
	fast, err := s.Watch(bg, "default", registry.ListOptions{ResourceVersion: rv})
	require.NoError(t, err)

	w := &gatedWriter{header: http.Header{}, gate: make(chan struct{}), writing: make(chan struct{})}
	served := make(chan struct{})
	go func() {
		defer close(served)
		h.ServeHTTP(w, httptest.NewRequest("GET", "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion="+rv, nil))
	}()
	// The fast watcher's buffer is three events too: it is read after
	// each update, so that it never falls behind (ended, its closed
	// channel would answer at once and the test would go on before the
	// cacher had handed the slow watcher every update).
	sawUpdate := func(i int) {
		t.Helper()
		select {
		case ev, ok := <-fast:
			require.True(t, ok, "the fast watcher was ended")
			require.Equal(t, api.WatchEventModified, ev.Type, "update %d: %v", i, ev.Err)
		case <-time.After(waitLong):
			t.Fatal("the fast watcher missed an update")
		}
	}
	update(0)
	sawUpdate(0)
	select {
	case <-w.writing: // the handler holds the first event, blocked
	case <-time.After(waitLong):
		t.Fatal("the watch did not write")
	}
	// The handler holds one, its buffer three: the fifth ends it. The
	// cacher hands each event to every watcher before the next, so once
	// the fast watcher has the last update the slow one has been ended.
	for i := 1; i <= 6; i++ {
		update(i)
		sawUpdate(i)
	}
	close(w.gate)
	select {
	case <-served:
	case <-time.After(waitLong):
		t.Fatal("the slow watch did not end")
	}
	lines := strings.Split(strings.TrimSpace(string(w.body)), "\n")
	require.Len(t, lines, 5, "%s", w.body)
	last, err := unstructured.DecodeMap([]byte(lines[4]))
	require.NoError(t, err)
	assert.Equal(t, "ERROR", last["type"])
	assert.Equal(t, int64(410), get(last, "object", "code"))
	assert.Equal(t, "Expired", get(last, "object", "reason"))
}
