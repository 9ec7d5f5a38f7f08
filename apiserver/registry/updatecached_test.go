package registry

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

// An update starts from a copy of the watch cache's object when the cache
// holds the key at the stored modRevision: the cached object itself is
// never changed (watchers and informers share it), and an entry at
// another revision (an event still on its way) is never used.
func TestUpdateStartsFromTheWatchCachesObject(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	res := &Resource{Version: "v1", Name: "configmaps", Kind: "ConfigMap", ListKind: "ConfigMapList", Namespaced: true,
		New: func() api.Object { return &api.ConfigMap{} }}
	s, err := NewStore(Config{Resource: res, Storage: st, Clock: clock.NewFake(time.Unix(0, 0)), IDs: NewIDs(rand.Reader)})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// A watch runs the watch cache's stream.
	_, err = s.Watch(ctx, "", ListOptions{})
	require.NoError(t, err)
	_, err = s.Create(ctx, "a", &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "c03"}, Data: map[string]string{"k": "0"}}, CreateOptions{})
	require.NoError(t, err)
	const key = "/registry/core/configmaps/a/c03"
	kv, err := st.Get(ctx, key)
	require.NoError(t, err)
	var cached api.Object
	require.Eventually(t, func() bool { cached = s.cacher.objects.get(key, kv.ModRevision); return cached != nil },
		10*time.Second, time.Millisecond, "the stream applied the object")
	applied := func(rev int64) {
		require.Eventually(t, func() bool {
			s.cacher.objects.mu.RLock()
			defer s.cacher.objects.mu.RUnlock()
			return s.cacher.objects.applied >= rev
		}, 10*time.Second, time.Millisecond)
	}
	// Mark the cached object (as only a test may) to see which one the
	// update starts from.
	cached.(*api.ConfigMap).Annotations = map[string]string{"seen": "cache"}

	var from string
	out, _, err := s.Update(ctx, "a", "c03", func(cur api.Object) (api.Object, error) {
		cm := cur.(*api.ConfigMap)
		from = cm.Annotations["seen"]
		cm.Data["k"] = "changed"
		cm.Annotations = map[string]string{"seen": "update"}
		return cm, nil
	}, UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "cache", from, "the update started from the cached object")
	assert.Equal(t, "changed", out.(*api.ConfigMap).Data["k"])
	assert.Equal(t, map[string]string{"seen": "cache"}, cached.(*api.ConfigMap).Annotations, "the cached object is left as it was")
	assert.Equal(t, "0", cached.(*api.ConfigMap).Data["k"], "the cached object is left as it was")

	// An entry at another revision than the store's is not used: the
	// update decodes what is stored. (The stream has applied the first
	// update before the entry is planted, so nothing replaces it.)
	kv, err = st.Get(ctx, key)
	require.NoError(t, err)
	applied(kv.ModRevision)
	s.cacher.objects.mu.Lock()
	s.cacher.objects.objs[key] = cachedObject{obj: &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "c03", Namespace: "a",
		Annotations: map[string]string{"seen": "stale"}}}, rev: kv.ModRevision - 1}
	s.cacher.objects.mu.Unlock()
	_, _, err = s.Update(ctx, "a", "c03", func(cur api.Object) (api.Object, error) {
		cm := cur.(*api.ConfigMap)
		from = cm.Annotations["seen"]
		assert.Equal(t, "changed", cm.Data["k"])
		cm.Data["k"] = "again"
		return cm, nil
	}, UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "update", from, "the stored object, not the stale entry")
}
