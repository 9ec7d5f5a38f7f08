package registry

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/fields"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

func TestSpliceResourceVersion(t *testing.T) {
	out, ok := spliceResourceVersion([]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"},"data":{"metadata":{"x":"y"}}}`), 42, "v1")
	require.True(t, ok)
	assert.JSONEq(t, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"42","name":"a"},"data":{"metadata":{"x":"y"}}}`, string(out))
	out, ok = spliceResourceVersion([]byte(`{"apiVersion":"v1","kind":"X","metadata":{}}`), 7, "v1")
	require.True(t, ok)
	assert.JSONEq(t, `{"apiVersion":"v1","kind":"X","metadata":{"resourceVersion":"7"}}`, string(out))
	_, ok = spliceResourceVersion([]byte(`{"apiVersion":"lab/v2","kind":"X","metadata":{}}`), 7, "lab/v1")
	assert.False(t, ok, "stored at another version: must be decoded")
}

// ListRaw must serve exactly what List serves, selectors included.
func TestListRawMatchesList(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	defer st.Close()
	res := &Resource{Version: "v1", Name: "configmaps", Kind: "ConfigMap", Namespaced: true,
		New: func() api.Object { return &corev1.ConfigMap{} }}
	s, err := NewStore(Config{Resource: res, Storage: st, Clock: clock.NewFake(time.Unix(0, 0)), IDs: NewIDs(rand.Reader)})
	require.NoError(t, err)
	ctx := context.Background()
	for i, n := range []string{"a", "b", "c", "d", "e"} {
		app := "web"
		if i%2 == 1 {
			app = "db"
		}
		_, err := s.Create(ctx, "ns", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: map[string]string{"app": app}},
			Data: map[string]string{"k": n}}, CreateOptions{})
		require.NoError(t, err)
	}
	web, _ := labels.Parse("app=web")
	cases := []ListOptions{{}, {Labels: web}, {Fields: fields.OneTermEqualSelector("metadata.name", "c")}, {Limit: 2}, {Labels: web, Limit: 1}}
	for _, opts := range cases {
		want, err := s.List(ctx, "ns", opts)
		require.NoError(t, err)
		got, err := s.ListRaw(ctx, "ns", opts)
		require.NoError(t, err)
		require.Len(t, got.Items, len(want.Items))
		assert.Equal(t, want.ResourceVersion, got.ResourceVersion)
		assert.Equal(t, want.Continue, got.Continue)
		for i := range want.Items {
			exp, _ := json.Marshal(want.Items[i])
			assert.JSONEq(t, string(exp), string(got.Items[i]))
		}
	}
}

// The shared watch stops when its last watcher leaves and starts again for
// the next one, which still sees every event after its resourceVersion.
func TestWatchCacheStopsAndRestarts(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	defer st.Close()
	res := &Resource{Version: "v1", Name: "configmaps", Kind: "ConfigMap", Namespaced: true,
		New: func() api.Object { return &corev1.ConfigMap{} }}
	s, err := NewStore(Config{Resource: res, Storage: st, Clock: clock.NewFake(time.Unix(0, 0)), IDs: NewIDs(rand.Reader)})
	require.NoError(t, err)
	bg := context.Background()
	create := func(name string) string {
		obj, err := s.Create(bg, "ns", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, CreateOptions{})
		require.NoError(t, err)
		return api.Meta(obj).ResourceVersion
	}
	rv := create("a")
	ctx1, cancel1 := context.WithCancel(bg)
	ch1, err := s.Watch(ctx1, "ns", ListOptions{ResourceVersion: rv})
	require.NoError(t, err)
	create("b")
	ev := <-ch1
	assert.Equal(t, "b", api.Meta(ev.Object).Name)
	cancel1()
	for range ch1 {
	}
	require.Eventually(t, func() bool {
		s.cacher.mu.Lock()
		defer s.cacher.mu.Unlock()
		return !s.cacher.started
	}, 5*time.Second, time.Millisecond, "the shared stream stopped with its last watcher")

	rv = create("c")
	create("d")
	ctx2, cancel2 := context.WithCancel(bg)
	defer cancel2()
	ch2, err := s.Watch(ctx2, "ns", ListOptions{ResourceVersion: rv})
	require.NoError(t, err)
	ev = <-ch2
	assert.Equal(t, "d", api.Meta(ev.Object).Name)
	assert.NotNil(t, ev.Raw(), "events carry their encoded object")
}

// An event's JSON is made when a watcher first asks for it, once for all
// the watchers of the event: the stored bytes with the resourceVersion
// spliced in. Until then the event holds only the stored bytes (watchers
// in the same process take the decoded object and never ask).
func TestWatchEventJSONMadeOnceOnFirstUse(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	defer st.Close()
	res := &Resource{Version: "v1", Name: "configmaps", Kind: "ConfigMap", Namespaced: true,
		New: func() api.Object { return &corev1.ConfigMap{} }}
	s, err := NewStore(Config{Resource: res, Storage: st, Clock: clock.NewFake(time.Unix(0, 0)), IDs: NewIDs(rand.Reader)})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, err := s.Create(ctx, "ns", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, CreateOptions{})
	require.NoError(t, err)
	rv := api.Meta(first).ResourceVersion
	ch1, err := s.Watch(ctx, "ns", ListOptions{ResourceVersion: rv})
	require.NoError(t, err)
	ch2, err := s.Watch(ctx, "ns", ListOptions{ResourceVersion: rv})
	require.NoError(t, err)
	_, err = s.Create(ctx, "ns", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Data: map[string]string{"k": "v"}}, CreateOptions{})
	require.NoError(t, err)
	ev1, ev2 := <-ch1, <-ch2
	require.NotNil(t, ev1.json)
	require.Same(t, ev1.json, ev2.json, "the watchers share the event's JSON")
	assert.Nil(t, ev1.json.raw, "no JSON made before a watcher asks")

	raw := ev1.Raw()
	want, err := json.Marshal(ev1.Object)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(raw))
	assert.Contains(t, string(raw), `"resourceVersion":"`+api.Meta(ev1.Object).ResourceVersion+`"`)
	assert.Same(t, &raw[0], &ev2.Raw()[0], "made once")
	assert.Nil(t, ev1.json.value, "the stored bytes are let go once spliced")
}

// An object no write decoded (a client out of the process sends JSON and
// takes JSON back) is decoded for its event and kept by the watch cache
// until the key's next write: in slices of their exact length, not the
// JSON decoder's, grown by doubling (five conditions in room for eight).
func TestWatchCacheKeepsExactSlicesOfUndecodedWrites(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	defer st.Close()
	res := &Resource{Version: "v1", Name: "pods", Kind: "Pod", Namespaced: true,
		New: func() api.Object { return &corev1.Pod{} }}
	s, err := NewStore(Config{Resource: res, Storage: st, Clock: clock.NewFake(time.Unix(0, 0)), IDs: NewIDs(rand.Reader)})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := s.Watch(ctx, "ns", ListOptions{})
	require.NoError(t, err)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	for _, c := range []corev1.PodConditionType{"A", "B", "C", "D", "E"} {
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: c, Status: corev1.ConditionTrue})
	}
	_, err = s.Create(ctx, "ns", pod, CreateOptions{}) // no Decoded: nothing decoded by the write
	require.NoError(t, err)
	ev := <-ch
	got := ev.Object.(*corev1.Pod).Status.Conditions
	require.Len(t, got, 5)
	assert.Equal(t, len(got), cap(got), "the cached object's slices are their exact length")
}
