package snapshot

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
	"github.com/kubesim/kubesim/store/etcdstore"
	"github.com/kubesim/kubesim/store/etcdstore/etcdtest"
)

func openBolt(t *testing.T) store.Interface {
	t.Helper()
	s, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// all reads every key of s: key, value, uid (revisions are each store's own).
func all(t *testing.T, s store.Interface) []store.KeyValue {
	t.Helper()
	res, err := s.List(context.Background(), "/", store.ListOptions{})
	require.NoError(t, err)
	out := make([]store.KeyValue, 0, len(res.Items))
	for _, kv := range res.Items {
		out = append(out, store.KeyValue{Key: kv.Key, Value: kv.Value, UID: kv.UID})
	}
	return out
}

// fill writes n keys (with uids and binary values) and one update.
func fill(t *testing.T, s store.Interface, n int) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		key := fmt.Sprintf("/registry/configmaps/ns%d/cm-%03d", i%3, i)
		_, err := s.Create(ctx, key, []byte(fmt.Sprintf("value %d \x00\xff", i)), store.CreateOptions{UID: fmt.Sprintf("uid-%d", i)})
		require.NoError(t, err)
	}
	_, err := s.Update(ctx, "/registry/configmaps/ns0/cm-000", []byte("updated"), store.Preconditions{})
	require.NoError(t, err)
}

// A bbolt store goes to a file, into etcd, out to a file again and back
// into bbolt: every key, value and uid arrives unchanged, in small pages.
func TestRoundTripBoltEtcdBolt(t *testing.T) {
	e, err := etcdtest.Start()
	require.NoError(t, err)
	defer e.Stop()
	ctx := context.Background()

	src := openBolt(t)
	fill(t, src, 7)
	want := all(t, src)
	require.Len(t, want, 7)

	var file1 bytes.Buffer
	h, n, err := export(ctx, src, &file1, 2)
	require.NoError(t, err)
	assert.Equal(t, 7, n)
	assert.Equal(t, Header{Format: Format, Revision: src.Revision()}, h)
	first, _, _ := strings.Cut(file1.String(), "\n")
	assert.JSONEq(t, fmt.Sprintf(`{"format":%q,"revision":%d}`, Format, src.Revision()), first)

	etcd, err := etcdstore.Open(etcdstore.Config{Endpoints: []string{e.URL}, Prefix: "/roundtrip"})
	require.NoError(t, err)
	defer etcd.Close()
	_, n, err = Import(ctx, etcd, bytes.NewReader(file1.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 7, n)
	assert.Equal(t, want, all(t, etcd))

	var file2 bytes.Buffer
	_, n, err = export(ctx, etcd, &file2, 3)
	require.NoError(t, err)
	assert.Equal(t, 7, n)

	dst := openBolt(t)
	_, n, err = Import(ctx, dst, &file2)
	require.NoError(t, err)
	assert.Equal(t, 7, n)
	assert.Equal(t, want, all(t, dst))
	assert.Equal(t, int64(7), dst.Revision(), "import creates: revisions are the target's own")
}

func TestImportRefusesANonEmptyStore(t *testing.T) {
	ctx := context.Background()
	src := openBolt(t)
	fill(t, src, 2)
	var file bytes.Buffer
	_, _, err := Export(ctx, src, &file)
	require.NoError(t, err)

	dst := openBolt(t)
	_, err = dst.Create(ctx, "/registry/namespaces/default", []byte("ns"), store.CreateOptions{})
	require.NoError(t, err)
	_, n, err := Import(ctx, dst, &file)
	require.ErrorIs(t, err, ErrNotEmpty)
	assert.Contains(t, err.Error(), "/registry/namespaces/default")
	assert.Equal(t, 0, n)
	assert.Len(t, all(t, dst), 1, "nothing imported")
}

func TestImportRefusesOtherFiles(t *testing.T) {
	_, _, err := Import(context.Background(), openBolt(t), strings.NewReader(`{"format":"etcd"}`+"\n"))
	assert.ErrorContains(t, err, `not a kubesim store snapshot: format "etcd"`)
	_, _, err = Import(context.Background(), openBolt(t), strings.NewReader(`{"format":"`+Format+`"}`+"\n"+`{"key":"registry/x","value":""}`))
	assert.ErrorContains(t, err, `key "registry/x" must start with /`)
}

// writeDuringList writes a key after the first page is read, as an API
// server still running would.
type writeDuringList struct {
	store.Interface
	lists int
}

func (w *writeDuringList) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	res, err := w.Interface.List(ctx, prefix, opts)
	if w.lists++; w.lists == 1 {
		_, _ = w.Interface.Update(ctx, "/registry/configmaps/ns2/cm-005", []byte("late"), store.Preconditions{})
	}
	return res, err
}

func TestExportFailsWhenTheStoreChangesMeanwhile(t *testing.T) {
	s := openBolt(t)
	fill(t, s, 6)
	_, _, err := export(context.Background(), &writeDuringList{Interface: s}, &bytes.Buffer{}, 2)
	assert.ErrorContains(t, err, "key /registry/configmaps/ns2/cm-005 was written during the export")
}
