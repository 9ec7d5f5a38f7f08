package registry

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
)

// slowList is a storage whose next List, once armed, has read its answer
// and then waits for release before it returns it: the moment a long list
// of 100,000 pods spends decoding while the writes go on.
type slowList struct {
	store.Interface
	armed   chan struct{} // closed: the next List waits
	read    chan struct{} // closed by that List once it has read
	release chan struct{} // closed by the test
	// cancel, when set, is called instead of waiting, and the List fails
	// as a cancelled read does.
	cancel context.CancelFunc
}

func (s *slowList) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	res, err := s.Interface.List(ctx, prefix, opts)
	select {
	case <-s.armed:
		s.armed = make(chan struct{}) // only once
		if s.cancel != nil {
			s.cancel()
			return store.ListResult{}, ctx.Err()
		}
		close(s.read)
		<-s.release
	default:
	}
	return res, err
}

func newSlowListEnv(t *testing.T) (*rvEnv, *slowList) {
	t.Helper()
	bolt, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true,
		Watch: store.BroadcasterConfig{Window: 8}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = bolt.Close() })
	slow := &slowList{Interface: bolt, armed: make(chan struct{}), read: make(chan struct{}), release: make(chan struct{})}
	res := &Resource{Version: "v1", Name: "configmaps", Kind: "ConfigMap", Namespaced: true,
		New: func() api.Object { return &api.ConfigMap{} }}
	s, err := NewStore(Config{Resource: res, Storage: slow, Clock: clock.NewFake(time.Unix(0, 0)), IDs: NewIDs(rand.Reader)})
	require.NoError(t, err)
	s.cacher.windowSize = 4
	return &rvEnv{t: t, st: bolt, s: s}, slow
}

type watchResult struct {
	ch  <-chan WatchEvent
	err error
}

// watchList arms the slow list and starts a watch that reads it.
func (s *slowList) watchList(st *Store, opts ListOptions) <-chan watchResult {
	started := make(chan watchResult, 1)
	close(s.armed)
	go func() {
		ch, err := st.Watch(context.Background(), "ns", opts)
		started <- watchResult{ch, err}
	}()
	return started
}

func (e *rvEnv) watchers() int {
	e.s.cacher.mu.Lock()
	defer e.s.cacher.mu.Unlock()
	return len(e.s.cacher.all)
}

// A watch-list whose list takes longer than the windows of recent events
// last (the watch cache's and the store's) still joins the stream and
// misses nothing: it joins before the list is read, the changes made
// meanwhile wait for it, those the list already holds are not sent twice.
// Reading the list first and joining at its revision after it, as before,
// ended such a watch at once with "too old resource version", and at
// 100,000 pods in a creation burst every informer that relisted did so
// again and again until the process ran out of memory (session 8).
func TestWatchListJoinsBeforeItsListIsRead(t *testing.T) {
	e, slow := newSlowListEnv(t)
	e.create("a", "web")
	e.create("b", "db")
	started := slow.watchList(e.s, ListOptions{SendInitialEvents: yes(), AllowWatchBookmarks: true,
		ResourceVersionMatch: ResourceVersionMatchNotOlderThan, Labels: webSelector(t)})
	<-slow.read
	// Far more changes than either window holds, while the list waits.
	for i := range 20 {
		e.create("c"+strconv.Itoa(i), "web")
	}
	e.relabel("a", "db")  // leaves the selection: DELETED
	e.relabel("b", "web") // enters it: ADDED
	close(slow.release)
	r := <-started
	require.NoError(t, r.err)

	var got []string
	for range 2 + 20 + 2 {
		got = append(got, summary(nextEvent(t, r.ch)))
	}
	want := []string{"ADDED a", "BOOKMARK 2"}
	for i := range 20 {
		want = append(want, "ADDED c"+strconv.Itoa(i))
	}
	want = append(want, "DELETED a", "ADDED b")
	assert.Equal(t, want, got)
	select {
	case ev := <-r.ch:
		t.Fatalf("one event too many: %s %v", summary(ev), ev.Err)
	default:
	}
	// The watch goes on with the stream.
	e.create("d", "web")
	assert.Equal(t, "ADDED d", summary(nextEvent(t, r.ch)))
}

// While its list is read a watcher may hold more changes than its bound,
// but not without end: past listingBuffer times the bound it is ended, and
// all it sends is why (its client lists again).
func TestWatchListEndedWhileListingSendsOnlyWhy(t *testing.T) {
	e, slow := newSlowListEnv(t)
	e.s.cacher.buffer = 1
	e.create("a", "web")
	started := slow.watchList(e.s, ListOptions{SendInitialEvents: yes(), AllowWatchBookmarks: true,
		ResourceVersionMatch: ResourceVersionMatchNotOlderThan})
	<-slow.read
	for i := range listingBuffer + 1 {
		e.create("c"+strconv.Itoa(i), "web")
	}
	require.Eventually(t, func() bool { return e.watchers() == 0 }, eventWait, time.Millisecond)
	close(slow.release)
	r := <-started
	require.NoError(t, r.err)
	ev := nextEvent(t, r.ch)
	require.Equal(t, api.WatchEventError, ev.Type, summary(ev))
	assert.True(t, api.IsResourceExpired(ev.Err), "%v", ev.Err)
	_, open := <-r.ch
	assert.False(t, open, "nothing after the error")
}

// A list that fails fails the watch request, and the watcher that waited
// for it is forgotten.
func TestWatchListWhoseListFailsLeavesNoWatcher(t *testing.T) {
	e, slow := newSlowListEnv(t)
	e.create("a", "web")
	ctx, cancel := context.WithCancel(context.Background())
	slow.cancel = cancel
	close(slow.armed)
	_, err := e.s.Watch(ctx, "ns", ListOptions{SendInitialEvents: yes(), AllowWatchBookmarks: true,
		ResourceVersionMatch: ResourceVersionMatchNotOlderThan})
	require.Error(t, err)
	assert.Equal(t, 0, e.watchers())
}
