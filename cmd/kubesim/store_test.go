package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

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

// damageKVPage points the kv bucket's second child page at a page id far
// outside the file, as a failing disk might (bbolt would follow it into
// unmapped memory and die with SIGSEGV). The layout is bbolt's: a branch
// element is pos u32 | ksize u32 | child page id u64, after the 16-byte
// page header.
func damageKVPage(t *testing.T, path string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	var root uint64
	var pageSize int
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		root, pageSize = uint64(tx.Bucket([]byte("kv")).Root()), tx.DB().Info().PageSize
		return nil
	}))
	require.NoError(t, db.Close())
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	page := make([]byte, pageSize)
	_, err = f.ReadAt(page, int64(root)*int64(pageSize))
	require.NoError(t, err)
	require.Equal(t, uint16(0x01), binary.NativeEndian.Uint16(page[8:]), "the kv bucket is a tree of pages")
	binary.NativeEndian.PutUint64(page[16+16+8:], 1<<30)
	_, err = f.WriteAt(page, int64(root)*int64(pageSize))
	require.NoError(t, err)
}

// The way out of a damaged data directory, as the messages give it:
// serve refuses it (no crash) and names the command to run; store check
// lists what is lost; a plain export refuses; export --skip-damaged saves
// every readable key; import makes a sound data directory of them.
func TestDamagedDataDirWayOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, boltstore.FileName)
	s, err := boltstore.Open(boltstore.Config{Path: path, UnsafeNoFsync: true})
	require.NoError(t, err)
	for i := range 300 {
		_, err := s.Create(context.Background(), fmt.Sprintf("/registry/configmaps/default/cm-%03d", i),
			[]byte(fmt.Sprintf(`{"kind":"ConfigMap","data":{"pad":"%0100d"}}`, i)), store.CreateOptions{})
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())
	damageKVPage(t, path)
	ctx := context.Background()

	var out, errb bytes.Buffer
	code := run(ctx, []string{"serve", "--data-dir", dir, "--addr", "127.0.0.1:0", "--api-server-only", "--nodes", "0", "--ui=false"}, &out, &errb)
	assert.Equal(t, 1, code)
	assert.Contains(t, errb.String(), path+" is damaged: page 1073741824 (bucket kv): a page id outside the file's pages")
	assert.Contains(t, errb.String(), "kubesim store check "+dir)

	out.Reset()
	errb.Reset()
	assert.Equal(t, 1, run(ctx, []string{"store", "check", dir}, &out, &errb))
	assert.Contains(t, out.String(), "problem: page 1073741824 (bucket kv): a page id outside the file's pages [2, ")
	assert.Contains(t, out.String(), "the keys from /registry/configmaps/default/cm-")

	snap := filepath.Join(t.TempDir(), "snap.jsonl")
	errb.Reset()
	assert.Equal(t, 1, run(ctx, []string{"store", "export", dir, snap}, &out, &errb))
	assert.Contains(t, errb.String(), "--skip-damaged")
	_, err = os.Stat(snap)
	assert.True(t, os.IsNotExist(err), "nothing half-written")

	out.Reset()
	errb.Reset()
	require.Equal(t, 0, run(ctx, []string{"store", "export", "--skip-damaged", dir, snap}, &out, &errb), "%s%s", out.String(), errb.String())
	assert.Contains(t, out.String(), "left out: page 1073741824 (bucket kv)")
	assert.Regexp(t, `exported 2[0-9]{2} readable keys of .*, as of revision 300, to `, out.String())

	fresh := filepath.Join(t.TempDir(), "fresh")
	out.Reset()
	require.Equal(t, 0, run(ctx, []string{"store", "import", snap, fresh}, &out, &errb), "%s%s", out.String(), errb.String())
	out.Reset()
	assert.Equal(t, 0, run(ctx, []string{"store", "check", fresh}, &out, &errb), "%s", out.String())
	assert.Contains(t, out.String(), "no problem found")
}

// stopOnListening is serve's stdout: it ends serve's context once serve
// says it listens.
type stopOnListening struct {
	bytes.Buffer
	stop func()
}

func (w *stopOnListening) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("listening on")) {
		w.stop()
	}
	return w.Buffer.Write(p)
}

// What an outside probe did to kubesim: 64 random byte flips in a data
// directory (its file and its write-ahead log), six times. serve crashed
// in five runs and store check in three (SIGSEGV in bbolt, a panic in its
// freelist rebuild). Now each either works or refuses the directory with
// an error; the test process would die with the crash otherwise.
func TestRandomFlipsNeverCrashServeOrStoreCheck(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	s, err := boltstore.Open(boltstore.Config{Path: filepath.Join(src, boltstore.FileName), UnsafeNoFsync: true, CheckpointInterval: time.Hour})
	require.NoError(t, err)
	ctx := context.Background()
	for i := range 300 {
		_, err := s.Create(ctx, fmt.Sprintf("/registry/configmaps/ns%d/cm-%03d", i%4, i),
			[]byte(fmt.Sprintf(`{"kind":"ConfigMap","data":{"pad":"%0120d"}}`, i)), store.CreateOptions{})
		require.NoError(t, err)
		if i == 250 {
			require.NoError(t, s.Close()) // the first 250 in the file, the rest in the log only
			s, err = boltstore.Open(boltstore.Config{Path: filepath.Join(src, boltstore.FileName), UnsafeNoFsync: true, CheckpointInterval: time.Hour})
			require.NoError(t, err)
		}
	}
	files := map[string][]byte{}
	for _, f := range []string{boltstore.FileName, boltstore.FileName + boltstore.WALSuffix} {
		files[f], err = os.ReadFile(filepath.Join(src, f))
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())

	for seed := range uint64(6) {
		rnd := rand.New(rand.NewPCG(seed, 64))
		dir := t.TempDir()
		for name, data := range files {
			data = bytes.Clone(data)
			for range 32 {
				data[rnd.IntN(len(data))] ^= byte(1 + rnd.IntN(255))
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o600))
		}
		var out, errb bytes.Buffer
		checked := run(ctx, []string{"store", "check", dir}, &out, &errb)
		assert.Contains(t, []int{0, 1}, checked)
		// serve stops as soon as it says it listens.
		serveCtx, stop := context.WithCancel(ctx)
		started := &stopOnListening{stop: stop}
		errb.Reset()
		served := run(serveCtx, []string{"serve", "--data-dir", dir, "--addr", "127.0.0.1:0", "--api-server-only", "--nodes", "0", "--ui=false"}, started, &errb)
		stop()
		assert.Contains(t, []int{0, 1}, served)
		why := "served, then stopped"
		if served != 0 {
			why, _, _ = strings.Cut(errb.String()[strings.LastIndex(errb.String(), "kubesim: "):], "; `kubesim store check")
			assert.Contains(t, why, "is damaged", "refused for its damage")
		}
		t.Logf("seed %d: store check exit %d, serve exit %d: %.200s", seed, checked, served, why)
	}
}
