package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

func TestChangeLogRemembersTheLastWriteOfEachResource(t *testing.T) {
	bs, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	defer bs.Close()
	st := store.WithChangeLog(bs)
	ctx := context.Background()
	const pods, cms = "/registry/core/pods/", "/registry/core/configmaps/"
	assert.Zero(t, st.Last(pods), "nothing written yet")

	p, err := st.Create(ctx, pods+"default/a", []byte("a"), store.CreateOptions{})
	require.NoError(t, err)
	c, err := st.Create(ctx, cms+"default/c", []byte("c"), store.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, p.ModRevision, st.Last(pods))
	assert.Equal(t, c.ModRevision, st.Last(cms), "each resource its own")

	_, err = st.Create(ctx, pods+"default/a", []byte("again"), store.CreateOptions{})
	require.Error(t, err)
	_, err = st.Update(ctx, pods+"default/a", []byte("b"), store.Preconditions{ResourceVersion: p.ModRevision + 5})
	require.Error(t, err)
	assert.Equal(t, p.ModRevision, st.Last(pods), "a failed write changes nothing")

	_, err = st.Update(ctx, pods+"other/a", []byte("x"), store.Preconditions{})
	require.Error(t, err, "not found")
	up, err := st.Update(ctx, pods+"default/a", []byte("b"), store.Preconditions{})
	require.NoError(t, err)
	assert.Equal(t, up.ModRevision, st.Last(pods))
	del, err := st.Delete(ctx, cms+"default/c", store.Preconditions{})
	require.NoError(t, err)
	assert.Equal(t, del.ModRevision, st.Last(cms), "a delete is a change")
	assert.Equal(t, up.ModRevision, st.Last(pods))
}

func TestResourcePrefix(t *testing.T) {
	for key, want := range map[string]string{
		"/registry/core/pods/default/web-1":            "/registry/core/pods/",
		"/registry/core/nodes/node-1":                  "/registry/core/nodes/",
		"/registry/apps/deployments/":                  "/registry/apps/deployments/",
		"/registry/stable.example.com/crontabs/ns/a/b": "/registry/stable.example.com/crontabs/",
		"/registry/core":                               "/registry/core",
	} {
		assert.Equal(t, want, store.ResourcePrefix(key), key)
	}
}
