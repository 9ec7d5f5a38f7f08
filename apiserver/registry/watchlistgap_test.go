package registry

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

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

// newStorageEnv is newRVEnv over a bolt store with watch (its window and
// buffers) and wrap around it (nil: none).
func newStorageEnv(t *testing.T, watch store.BroadcasterConfig, wrap func(store.Interface) store.Interface) *rvEnv {
	t.Helper()
	bolt, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true, Watch: watch})
	require.NoError(t, err)
	t.Cleanup(func() { _ = bolt.Close() })
	var storage store.Interface = bolt
	if wrap != nil {
		storage = wrap(bolt)
	}
	res := &Resource{Version: "v1", Name: "configmaps", Kind: "ConfigMap", Namespaced: true,
		New: func() api.Object { return &corev1.ConfigMap{} }}
	s, err := NewStore(Config{Resource: res, Storage: storage, Clock: clock.NewFake(time.Unix(0, 0)), IDs: NewIDs(rand.Reader)})
	require.NoError(t, err)
	return &rvEnv{t: t, st: bolt, s: s}
}

func newSlowListEnv(t *testing.T) (*rvEnv, *slowList) {
	t.Helper()
	slow := &slowList{armed: make(chan struct{}), read: make(chan struct{}), release: make(chan struct{})}
	e := newStorageEnv(t, store.BroadcasterConfig{Window: 8}, func(st store.Interface) store.Interface {
		slow.Interface = st
		return slow
	})
	e.s.cacher.windowSize = 4
	return e, slow
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
// again and again until the process ran out of memory.
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

// When the store ends the watch cache's own stream because it fell behind
// (a starved goroutine; its buffer in the store is small), the stream
// resumes from the last event it dispatched, out of the store's window:
// the watchers see every change and no error. Ending them all instead sent
// every kubelet of a 2,000-node cluster to list the pods again at once.
func TestWatchCacheResumesAfterFallingBehindTheStore(t *testing.T) {
	e := newStorageEnv(t, store.BroadcasterConfig{WatcherBuffer: 2, Window: 100}, nil)
	s := e.s
	ch, _ := e.watch(ListOptions{ResourceVersion: strconv.FormatInt(e.create("a", "web"), 10)})

	// The cacher cannot dispatch while the test holds its lock: the
	// store's buffer for it (2) overflows and its stream is ended.
	s.cacher.mu.Lock()
	for i := range 10 {
		e.create("c"+strconv.Itoa(i), "web")
	}
	s.cacher.mu.Unlock()
	for i := range 10 {
		assert.Equal(t, "ADDED c"+strconv.Itoa(i), summary(nextEvent(t, ch)))
	}
	s.cacher.mu.Lock()
	resumed := s.cacher.resumed
	s.cacher.mu.Unlock()
	assert.Equal(t, 1, resumed, "the stream was ended once and resumed")

	// Past the store's window there is nothing to resume from: the
	// watchers are ended with "expired" and relist.
	s.cacher.mu.Lock()
	for i := range 120 {
		e.create("d"+strconv.Itoa(i), "web")
	}
	s.cacher.mu.Unlock()
	var last WatchEvent
	for ev := range ch {
		last = ev
	}
	require.Equal(t, api.WatchEventError, last.Type, summary(last))
	assert.True(t, api.IsResourceExpired(last.Err), "%v", last.Err)
}

// blockingList counts the Lists under way and holds each until release.
type blockingList struct {
	store.Interface
	mu      sync.Mutex
	calls   int
	release chan struct{}
}

func (b *blockingList) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	b.mu.Lock()
	b.calls++
	b.mu.Unlock()
	<-b.release
	return b.Interface.List(ctx, prefix, opts)
}

func (b *blockingList) called() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls
}

// Watch-lists of one resource read their lists concurrentInitialLists at a
// time: when every watcher was ended at once and all relist together, the
// memory the lists hold stays bounded. The others are joined to the
// stream already and get every change once their turn comes.
func TestWatchListsReadTheirListsAFewAtATime(t *testing.T) {
	slow := &blockingList{release: make(chan struct{})}
	e := newStorageEnv(t, store.BroadcasterConfig{}, func(st store.Interface) store.Interface {
		slow.Interface = st
		return slow
	})
	s := e.s
	e.create("a", "web")

	n := concurrentInitialLists + 2
	started := make(chan watchResult, n)
	for range n {
		go func() {
			ch, err := s.Watch(context.Background(), "ns", ListOptions{SendInitialEvents: yes(), AllowWatchBookmarks: true,
				ResourceVersionMatch: ResourceVersionMatchNotOlderThan})
			started <- watchResult{ch, err}
		}()
	}
	require.Eventually(t, func() bool { return e.watchers() == n }, eventWait, time.Millisecond)
	require.Eventually(t, func() bool { return slow.called() == concurrentInitialLists }, eventWait, time.Millisecond)
	require.Never(t, func() bool { return slow.called() > concurrentInitialLists }, 100*time.Millisecond, time.Millisecond)
	e.create("b", "web") // while they wait
	close(slow.release)
	for range n {
		r := <-started
		require.NoError(t, r.err)
		var got []string
		for range 3 {
			got = append(got, summary(nextEvent(t, r.ch)))
		}
		// b is in the list, or after the bookmark: never twice, never lost.
		assert.Contains(t, [][]string{{"ADDED a", "ADDED b", "BOOKMARK 2"}, {"ADDED a", "BOOKMARK 1", "ADDED b"}}, got)
	}
	assert.Equal(t, n, slow.called())
}
