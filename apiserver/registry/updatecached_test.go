package registry

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
)

// An update starts from a copy of the watch cache's object when the cache
// holds the key at the stored modRevision: the cached object itself is
// never changed (watchers and informers share it), and an entry at
// another revision (an event still on its way) is never used.
func TestUpdateStartsFromTheWatchCachesObject(t *testing.T) {
	e := newCachedEnv(t)
	ctx := context.Background()
	const key = "/registry/core/configmaps/a/c03"
	kv, err := e.st.Get(ctx, key)
	require.NoError(t, err)
	cached := e.s.cacher.objects.get(key, kv.ModRevision)
	require.NotNil(t, cached, "the stream applied the object")
	// Mark the cached object (as only a test may) to see which one the
	// update starts from.
	cached.(*api.ConfigMap).Annotations = map[string]string{"seen": "cache"}

	var from string
	out, _, err := e.s.Update(ctx, "a", "c03", func(cur api.Object) (api.Object, error) {
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
	kv, err = e.st.Get(ctx, key)
	require.NoError(t, err)
	e.last = kv.ModRevision
	e.waitApplied(t)
	e.s.cacher.objects.mu.Lock()
	e.s.cacher.objects.objs[key] = cachedObject{obj: &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "c03", Namespace: "a",
		Annotations: map[string]string{"seen": "stale"}}}, rev: kv.ModRevision - 1}
	e.s.cacher.objects.mu.Unlock()
	_, _, err = e.s.Update(ctx, "a", "c03", func(cur api.Object) (api.Object, error) {
		cm := cur.(*api.ConfigMap)
		from = cm.Annotations["seen"]
		assert.Equal(t, "changed", cm.Data["k"])
		cm.Data["k"] = "again"
		return cm, nil
	}, UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "update", from, "the stored object, not the stale entry")
}
