package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
	"github.com/kubesim/kubesim/store/etcdstore/etcdtest"
)

// keysOf reads a data directory's keys, values and uids.
func keysOf(t *testing.T, dir string) []store.KeyValue {
	t.Helper()
	s, err := boltstore.Open(boltstore.Config{Path: filepath.Join(dir, boltstore.FileName)})
	require.NoError(t, err)
	defer s.Close()
	res, err := s.List(context.Background(), "/", store.ListOptions{})
	require.NoError(t, err)
	var out []store.KeyValue
	for _, kv := range res.Items {
		out = append(out, store.KeyValue{Key: kv.Key, Value: kv.Value, UID: kv.UID})
	}
	return out
}

// A bbolt data directory copied into etcd and back with the commands:
// the same keys, values and uids; importing again into the now non-empty
// etcd prefix is refused.
func TestStoreExportImportThroughEtcd(t *testing.T) {
	t.Parallel()
	e, err := etcdtest.Start()
	require.NoError(t, err)
	defer e.Stop()
	ctx := context.Background()

	src := t.TempDir()
	s, err := boltstore.Open(boltstore.Config{Path: filepath.Join(src, boltstore.FileName)})
	require.NoError(t, err)
	for i := range 3 {
		_, err = s.Create(ctx, fmt.Sprintf("/registry/configmaps/default/cm-%d", i), []byte(fmt.Sprintf(`{"n":%d}`, i)),
			store.CreateOptions{UID: fmt.Sprintf("uid-%d", i)})
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())
	want := keysOf(t, src)

	files := t.TempDir()
	sh := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := run(ctx, args, &out, &errb)
		return code, out.String() + errb.String()
	}
	code, out := sh("store", "export", src, filepath.Join(files, "1.jsonl"))
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "exported 3 keys")
	code, out = sh("store", "import", filepath.Join(files, "1.jsonl"), "--etcd-servers", e.URL, "--etcd-prefix", "/lab")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "imported 3 keys (exported at revision 3) into etcd "+e.URL+" (prefix /lab)")

	code, out = sh("store", "import", filepath.Join(files, "1.jsonl"), "--etcd-servers", e.URL, "--etcd-prefix", "/lab")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "the target store is not empty (it holds /registry/configmaps/default/cm-0, among others): import only into an empty store")

	code, out = sh("store", "export", "--etcd-servers", e.URL, "--etcd-prefix", "/lab", filepath.Join(files, "2.jsonl"))
	require.Equal(t, 0, code, out)
	dst := filepath.Join(t.TempDir(), "restored")
	code, out = sh("store", "import", filepath.Join(files, "2.jsonl"), dst)
	require.Equal(t, 0, code, out)
	assert.Equal(t, want, keysOf(t, dst))

	// The data directory is no longer empty either.
	code, out = sh("store", "import", filepath.Join(files, "2.jsonl"), dst)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "the target store is not empty")
}

func TestStoreExportRefusesWhatItCannotDo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var out, errb bytes.Buffer
	empty := t.TempDir()
	assert.Equal(t, 1, run(ctx, []string{"store", "export", empty, filepath.Join(empty, "x.jsonl")}, &out, &errb))
	assert.Contains(t, errb.String(), "no kubesim data file in "+empty)
	_, err := os.Stat(filepath.Join(empty, boltstore.FileName))
	assert.True(t, os.IsNotExist(err), "export creates no store")

	errb.Reset()
	assert.Equal(t, 1, run(ctx, []string{"store", "export", "only-one-arg"}, &out, &errb))
	assert.Contains(t, errb.String(), "usage: kubesim store check")
}

// serve with etcd away: exit 1 and an error naming every endpoint given.
func TestServeOnUnreachableEtcdNamesTheEndpoints(t *testing.T) {
	t.Parallel()
	p1, err := etcdtest.FreePort()
	require.NoError(t, err)
	p2, err := etcdtest.FreePort()
	require.NoError(t, err)
	urls := fmt.Sprintf("http://127.0.0.1:%d,http://127.0.0.1:%d", p1, p2)
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"serve", "--data-dir", t.TempDir(), "--addr", "127.0.0.1:0",
		"--api-server-only", "--etcd-servers", urls}, &out, &errb)
	assert.Equal(t, 1, code)
	assert.Contains(t, errb.String(), "etcd at "+urls+" is unreachable")
	assert.NotContains(t, out.String(), "listening")
}
