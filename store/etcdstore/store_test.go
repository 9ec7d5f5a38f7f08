package etcdstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/etcdstore/etcdtest"
	"github.com/kubesim/kubesim/store/storetest"
)

// etcdURL is the client URL of the real etcd that TestMain starts
// (Debian's etcd-server, which .ci/run installs): tests use a real etcd,
// never a mock.
var etcdURL string

func TestMain(m *testing.M) {
	e, err := etcdtest.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcdstore tests need a real etcd:", err)
		os.Exit(1)
	}
	etcdURL = e.URL
	code := m.Run()
	e.Stop()
	os.Exit(code)
}

// prefixFor keeps each test's store apart in the one etcd: the same dir
// (a reopened store) finds its keys again.
func prefixFor(dir string) string {
	h := sha256.Sum256([]byte(dir))
	return "/kubesim-test/" + hex.EncodeToString(h[:8])
}

func openTest(t testing.TB, dir string, watch store.BroadcasterConfig) store.Interface {
	s, err := Open(Config{Endpoints: []string{etcdURL}, Prefix: prefixFor(dir), Watch: watch})
	require.NoError(t, err)
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Options{Open: openTest, Persistent: true})
}

// Two stores over one etcd are two API servers: each sees the other's
// writes through its watch, their revisions agree, and of two updates
// racing from the same read exactly one wins.
func TestTwoStoresShareOneEtcd(t *testing.T) {
	dir := t.TempDir()
	a := openTest(t, dir, store.BroadcasterConfig{}).(*Store)
	defer a.Close()
	b := openTest(t, dir, store.BroadcasterConfig{}).(*Store)
	defer b.Close()
	ctx := context.Background()

	w, err := b.Watch(ctx, "/registry/", 0)
	require.NoError(t, err)
	defer w.Stop()
	kv, err := a.Create(ctx, "/registry/pods/default/web", []byte("v1"), store.CreateOptions{UID: "u"})
	require.NoError(t, err)
	select {
	case ev := <-w.ResultChan():
		assert.Equal(t, store.Added, ev.Type)
		assert.Equal(t, kv.ModRevision, ev.Revision, "revisions agree")
	case <-time.After(30 * time.Second):
		t.Fatal("b never saw a's write")
	}
	got, err := b.Get(ctx, "/registry/pods/default/web")
	require.NoError(t, err)
	assert.Equal(t, kv, got)

	pre := store.Preconditions{ResourceVersion: kv.ModRevision}
	_, errA := a.Update(ctx, kv.Key, []byte("from a"), pre)
	_, errB := b.Update(ctx, kv.Key, []byte("from b"), pre)
	assert.True(t, (errA == nil) != (errB == nil), "exactly one update wins: %v / %v", errA, errB)
	assert.True(t, store.IsConflict(errA) || store.IsConflict(errB))
}

// etcd unreachable at start: an error naming the endpoints, within the
// dial timeout.
func TestUnreachableEtcdFailsFast(t *testing.T) {
	port, err := etcdtest.FreePort()
	require.NoError(t, err)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	start := time.Now()
	_, err = Open(Config{Endpoints: []string{url}, Prefix: "/x", DialTimeout: 500 * time.Millisecond})
	require.Error(t, err)
	assert.Contains(t, err.Error(), url)
	assert.Contains(t, err.Error(), "unreachable")
	assert.Less(t, time.Since(start), 30*time.Second, "bounded by the dial timeout, not hanging")
}

func TestConfigIsChecked(t *testing.T) {
	_, err := Open(Config{Prefix: "/x"})
	assert.ErrorContains(t, err, "no etcd endpoints")
	_, err = Open(Config{Endpoints: []string{etcdURL}, Prefix: "registry"})
	assert.ErrorContains(t, err, "must start with /")
	assert.False(t, strings.HasSuffix(prefixFor("a"), "/"))
}

// DBSize is etcd's own report of its database and cluster, for the API
// server's apiserver_storage_size_bytes.
func TestDBSize(t *testing.T) {
	s := openTest(t, t.TempDir(), store.BroadcasterConfig{}).(*Store)
	defer s.Close()
	size, id, err := s.DBSize(context.Background())
	require.NoError(t, err)
	assert.Positive(t, size)
	assert.Regexp(t, `^[0-9a-f]+$`, id)
	require.NoError(t, s.Close())
	_, _, err = s.DBSize(context.Background())
	assert.ErrorIs(t, err, store.ErrClosed)
}
