package boltstore

import (
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/kubesim/kubesim/store"
)

func TestRecordRoundTripAndChecksum(t *testing.T) {
	r := record{createRev: 3, modRev: 7, uid: "u-1", value: []byte(`{"a":1}`)}
	for _, f := range []recordFormat{formatPlain, formatSummed} {
		b := r.encode(f)
		got, err := decodeRecord(b, f)
		require.NoError(t, err)
		assert.Equal(t, r, got)
	}
	b := r.encode(formatSummed)
	for i := range b {
		if i >= fixedRevsSize && i < fixedRevsSize+sumSize {
			continue
		}
		d := append([]byte(nil), b...)
		d[i] ^= 0x04
		got, err := decodeRecord(d, formatSummed)
		require.ErrorIs(t, err, errBadChecksum, "a flip at byte %d is caught", i)
		if i >= fixedRevsSize {
			assert.Equal(t, int64(7), got.modRev, "the revisions are still read")
		}
	}
	_, err := decodeRecord([]byte{1, 2, 3}, formatSummed)
	assert.ErrorIs(t, err, errBadRecord)
}

// A damaged record does not stop the store: it opens, the key reads back
// with no value (store.KeyValue's contract), the other keys are untouched,
// and the key can be rewritten (watchers see it as new) or deleted.
func TestDamagedRecordFailsSafe(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(Config{Path: path})
	require.NoError(t, err)
	for _, k := range []string{"/k/a", "/k/b", "/k/c"} {
		_, err := s.Create(bg, k, []byte(`{"v":"`+k+`"}`), store.CreateOptions{})
		require.NoError(t, err)
	}
	require.NoError(t, s.checkpointNow(), "the records are in the bbolt file")
	require.NoError(t, s.db.Update(func(tx *boltTx) error {
		b := tx.Bucket(bucketKV)
		raw := append([]byte(nil), b.Get([]byte("/k/b"))...)
		raw[len(raw)-2] ^= 0x01
		return b.Put([]byte("/k/b"), raw)
	}))
	require.NoError(t, s.Close())

	s, err = Open(Config{Path: path})
	require.NoError(t, err, "one damaged record does not stop the store")
	defer s.Close()
	kv, err := s.Get(bg, "/k/b")
	require.NoError(t, err)
	assert.Empty(t, kv.Value)
	assert.Equal(t, int64(2), kv.ModRevision)
	list, err := s.List(bg, "/k/", store.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, 3)
	assert.Equal(t, `{"v":"/k/a"}`, string(list.Items[0].Value))
	assert.Empty(t, list.Items[1].Value)
	assert.Equal(t, `{"v":"/k/c"}`, string(list.Items[2].Value))

	w, err := s.Watch(bg, "/k/", s.Revision())
	require.NoError(t, err)
	defer w.Stop()
	_, err = s.Update(bg, "/k/b", []byte(`{"v":"repaired"}`), store.Preconditions{ResourceVersion: 2})
	require.NoError(t, err)
	ev := <-w.ResultChan()
	assert.Equal(t, store.Added, ev.Type, "the rewritten object is new to watchers")
	kv, err = s.Get(bg, "/k/b")
	require.NoError(t, err)
	assert.Equal(t, `{"v":"repaired"}`, string(kv.Value))
}

// Files of format 1 (no checksums) are read and written as they are.
func TestFormatV1FilesStayV1(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		meta, _ := tx.CreateBucket(bucketMeta)
		_ = meta.Put(keyFormat, formatV1)
		rev := make([]byte, 8)
		binary.BigEndian.PutUint64(rev, 1)
		_ = meta.Put(keyRevision, rev)
		kv, _ := tx.CreateBucket(bucketKV)
		return kv.Put([]byte("/old"), record{createRev: 1, modRev: 1, value: []byte(`{"old":true}`)}.encode(formatPlain))
	}))
	require.NoError(t, db.Close())

	s, err := Open(Config{Path: path})
	require.NoError(t, err)
	kv, err := s.Get(bg, "/old")
	require.NoError(t, err)
	assert.Equal(t, `{"old":true}`, string(kv.Value))
	_, err = s.Create(bg, "/new", []byte(`{}`), store.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	rep, err := Check(path)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%v", rep.Problems)
	assert.Equal(t, 2, rep.Keys)
}
