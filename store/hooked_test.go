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

func TestWithWriteHook(t *testing.T) {
	bs, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	defer bs.Close()
	type call struct {
		value   string
		rev     int64
		deleted bool
	}
	var calls []call
	st := store.WithWriteHook(bs, func(v []byte, rev int64, deleted bool) { calls = append(calls, call{string(v), rev, deleted}) })
	ctx := context.Background()
	kv, err := st.Create(ctx, "/k", []byte("a"), store.CreateOptions{})
	require.NoError(t, err)
	_, err = st.Create(ctx, "/k", []byte("again"), store.CreateOptions{})
	require.Error(t, err, "a failed write")
	up, err := st.Update(ctx, "/k", []byte("b"), store.Preconditions{ResourceVersion: kv.ModRevision})
	require.NoError(t, err)
	_, err = st.Update(ctx, "/k", []byte("c"), store.Preconditions{ResourceVersion: kv.ModRevision})
	require.Error(t, err, "a conflict")
	del, err := st.Delete(ctx, "/k", store.Preconditions{})
	require.NoError(t, err)
	assert.Equal(t, []call{{"a", kv.ModRevision, false}, {"b", up.ModRevision, false}, {"b", del.ModRevision, true}}, calls,
		"only successful writes are told, a delete with the last value")
}
