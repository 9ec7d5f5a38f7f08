package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

func TestStoreCheckCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := boltstore.Open(boltstore.Config{Path: filepath.Join(dir, boltstore.FileName)})
	require.NoError(t, err)
	_, err = s.Create(context.Background(), "/registry/configmaps/default/a", []byte(`{"kind":"ConfigMap"}`), store.CreateOptions{})
	require.NoError(t, err)
	_, err = s.Create(context.Background(), "/registry/configmaps/default/b", []byte(`{"kind":"ConfigMap","data":`), store.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, s.Close())

	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"store", "check", dir}, &out, &errb)
	assert.Equal(t, 1, code, "a problem makes the command fail: %s%s", out.String(), errb.String())
	assert.Contains(t, out.String(), "revision 2, 2 keys")
	assert.Contains(t, out.String(), "problem: key /registry/configmaps/default/b: value does not decode")

	// A file with no problem.
	good := t.TempDir()
	s, err = boltstore.Open(boltstore.Config{Path: filepath.Join(good, boltstore.FileName)})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	out.Reset()
	assert.Equal(t, 0, run(context.Background(), []string{"store", "check", good}, &out, &errb))
	assert.Contains(t, out.String(), "no problem found")

	// No data file: an error, nothing created.
	empty := t.TempDir()
	assert.Equal(t, 1, run(context.Background(), []string{"store", "check", empty}, &out, &errb))
	_, err = os.Stat(filepath.Join(empty, boltstore.FileName))
	assert.True(t, os.IsNotExist(err))
}

// A data directory as a crash leaves it (copied while the store is open,
// before any checkpoint): check reports the file's revision and the
// writes the log adds at the next open.
func TestStoreCheckCountsTheLogsWrites(t *testing.T) {
	t.Parallel()
	dir, crashed := t.TempDir(), t.TempDir()
	s, err := boltstore.Open(boltstore.Config{Path: filepath.Join(dir, boltstore.FileName), CheckpointInterval: time.Hour})
	require.NoError(t, err)
	for _, name := range []string{"a", "b"} {
		_, err = s.Create(context.Background(), "/registry/configmaps/default/"+name, []byte(`{"kind":"ConfigMap"}`), store.CreateOptions{})
		require.NoError(t, err)
	}
	for _, f := range []string{boltstore.FileName, boltstore.FileName + boltstore.WALSuffix} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(crashed, f), data, 0o600))
	}
	require.NoError(t, s.Close())

	var out, errb bytes.Buffer
	assert.Equal(t, 0, run(context.Background(), []string{"store", "check", crashed}, &out, &errb), "%s%s", out.String(), errb.String())
	assert.Contains(t, out.String(), "revision 0, 0 keys")
	assert.Contains(t, out.String(), "kubesim.db.wal: 2 more acknowledged writes, up to revision 2, committed to the file at the next open")

	s, err = boltstore.Open(boltstore.Config{Path: filepath.Join(crashed, boltstore.FileName)})
	require.NoError(t, err)
	assert.Equal(t, int64(2), s.Revision())
	require.NoError(t, s.Close())
	out.Reset()
	assert.Equal(t, 0, run(context.Background(), []string{"store", "check", crashed}, &out, &errb))
	assert.Contains(t, out.String(), "revision 2, 2 keys")
	assert.NotContains(t, out.String(), "more acknowledged writes")
}
