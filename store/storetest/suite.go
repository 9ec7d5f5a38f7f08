package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/store"
)

// Options tell the suite how to make stores of the backend under test.
type Options struct {
	// Open opens a store kept in dir (a fresh t.TempDir() per test) with the
	// given watch settings. The suite closes the stores it opens.
	Open func(t testing.TB, dir string, watch store.BroadcasterConfig) store.Interface
	// Persistent backends are also reopened on the same dir to check that
	// objects and the revision counter survive a restart.
	Persistent bool
}

// Run runs every conformance test against the backend.
func Run(t *testing.T, o Options) {
	tests := []struct {
		name string
		fn   func(*testing.T, Options)
	}{
		{"CreateGet", testCreateGet},
		{"RevisionsStrictlyIncrease", testRevisionsIncrease},
		{"UpdatePreconditions", testUpdatePreconditions},
		{"DeletePreconditions", testDeletePreconditions},
		{"ListPrefixAndPaging", testList},
		{"ListAtPastRevision", testListAtRevision},
		{"ConcurrentCounterLosesNoUpdate", testConcurrentCounter},
		{"ConcurrentCreateOneWins", testConcurrentCreate},
		{"WatchOrderAndCompleteness", testWatchOrder},
		{"WatchResumeFromRevision", testWatchResume},
		{"WatchPrefixFilter", testWatchPrefix},
		{"WatchDeleteCarriesPrevValue", testWatchDelete},
		{"WatchExpired", testWatchExpired},
		{"WatchCompact", testWatchCompact},
		{"SlowWatcherEvicted", testSlowWatcher},
		{"ListThenWatchMissesNothing", testListThenWatch},
		{"WatchEndsWithContext", testWatchContext},
		{"Close", testClose},
	}
	if o.Persistent {
		tests = append(tests, struct {
			name string
			fn   func(*testing.T, Options)
		}{"RestartKeepsObjectsAndRevision", testRestart})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, o) })
	}
}

func open(t *testing.T, o Options, w store.BroadcasterConfig) store.Interface {
	t.Helper()
	s := o.Open(t, t.TempDir(), w)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

var ctx = context.Background()

func testCreateGet(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{})
	kv, err := s.Create(ctx, "/registry/pods/default/a", []byte("A"), store.CreateOptions{UID: "u1"})
	require.NoError(t, err)
	assert.Equal(t, kv.CreateRevision, kv.ModRevision)
	assert.Equal(t, kv.ModRevision, s.Revision())
	got, err := s.Get(ctx, "/registry/pods/default/a")
	require.NoError(t, err)
	assert.Equal(t, kv, got)
	assert.Equal(t, "u1", got.UID)

	_, err = s.Create(ctx, "/registry/pods/default/a", []byte("B"), store.CreateOptions{})
	assert.True(t, store.IsKeyExists(err), "second create: %v", err)
	_, err = s.Get(ctx, "/registry/pods/default/missing")
	assert.True(t, store.IsNotFound(err), "get missing: %v", err)
	got, _ = s.Get(ctx, "/registry/pods/default/a")
	assert.Equal(t, "A", string(got.Value), "a failed create changed nothing")
}

func testRevisionsIncrease(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{})
	last := s.Revision()
	check := func(kv store.KeyValue, err error) {
		t.Helper()
		require.NoError(t, err)
		require.Greater(t, kv.ModRevision, last)
		require.Equal(t, s.Revision(), kv.ModRevision)
		last = kv.ModRevision
	}
	for i := range 20 {
		k := "/k/" + strconv.Itoa(i%5)
		if i < 5 {
			check(s.Create(ctx, k, []byte("v"), store.CreateOptions{}))
		} else if i < 15 {
			check(s.Update(ctx, k, []byte("w"+strconv.Itoa(i)), store.Preconditions{}))
		} else {
			check(s.Delete(ctx, k, store.Preconditions{}))
		}
	}
	// A failed write takes no revision.
	_, err := s.Delete(ctx, "/k/0", store.Preconditions{})
	require.True(t, store.IsNotFound(err))
	assert.Equal(t, last, s.Revision())
}

func testUpdatePreconditions(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{})
	kv, err := s.Create(ctx, "/k", []byte("1"), store.CreateOptions{UID: "uid-1"})
	require.NoError(t, err)

	_, err = s.Update(ctx, "/k", []byte("x"), store.Preconditions{ResourceVersion: kv.ModRevision + 100})
	assert.True(t, store.IsConflict(err), "stale revision: %v", err)
	_, err = s.Update(ctx, "/k", []byte("x"), store.Preconditions{UID: "other"})
	assert.True(t, store.IsConflict(err), "wrong uid: %v", err)
	_, err = s.Update(ctx, "/nope", []byte("x"), store.Preconditions{})
	assert.True(t, store.IsNotFound(err), "missing key: %v", err)

	up, err := s.Update(ctx, "/k", []byte("2"), store.Preconditions{ResourceVersion: kv.ModRevision, UID: "uid-1"})
	require.NoError(t, err)
	assert.Equal(t, kv.CreateRevision, up.CreateRevision)
	assert.Greater(t, up.ModRevision, kv.ModRevision)
	assert.Equal(t, "uid-1", up.UID, "uid survives an update")
	got, _ := s.Get(ctx, "/k")
	assert.Equal(t, "2", string(got.Value))

	// The old revision is now stale.
	_, err = s.Update(ctx, "/k", []byte("3"), store.Preconditions{ResourceVersion: kv.ModRevision})
	assert.True(t, store.IsConflict(err))
}

func testDeletePreconditions(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{})
	kv, err := s.Create(ctx, "/k", []byte("v"), store.CreateOptions{UID: "u"})
	require.NoError(t, err)
	_, err = s.Delete(ctx, "/k", store.Preconditions{UID: "not-u"})
	assert.True(t, store.IsConflict(err))
	_, err = s.Delete(ctx, "/k", store.Preconditions{ResourceVersion: kv.ModRevision + 1})
	assert.True(t, store.IsConflict(err))
	del, err := s.Delete(ctx, "/k", store.Preconditions{UID: "u", ResourceVersion: kv.ModRevision})
	require.NoError(t, err)
	assert.Equal(t, "v", string(del.Value), "delete returns the last value")
	assert.Greater(t, del.ModRevision, kv.ModRevision, "delete takes a new revision")
	_, err = s.Get(ctx, "/k")
	assert.True(t, store.IsNotFound(err))
	_, err = s.Delete(ctx, "/k", store.Preconditions{})
	assert.True(t, store.IsNotFound(err))
}

func testList(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{})
	for _, k := range []string{"/r/pods/ab/x", "/r/pods/ab/y", "/r/pods/abc/z", "/r/pods/b/w", "/r/services/ab/s"} {
		_, err := s.Create(ctx, k, []byte(k), store.CreateOptions{})
		require.NoError(t, err)
	}
	keys := func(r store.ListResult) []string {
		var out []string
		for _, kv := range r.Items {
			out = append(out, kv.Key)
			assert.Equal(t, kv.Key, string(kv.Value))
		}
		return out
	}
	res, err := s.List(ctx, "/r/pods/", store.ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"/r/pods/ab/x", "/r/pods/ab/y", "/r/pods/abc/z", "/r/pods/b/w"}, keys(res))
	assert.Equal(t, s.Revision(), res.Revision)
	assert.False(t, res.More)

	res, _ = s.List(ctx, "/r/pods/ab/", store.ListOptions{})
	assert.Equal(t, []string{"/r/pods/ab/x", "/r/pods/ab/y"}, keys(res), "namespace ab must not include abc")

	// Paging: limit 3, then continue after the last key.
	p1, err := s.List(ctx, "/r/pods/", store.ListOptions{Limit: 3})
	require.NoError(t, err)
	assert.Equal(t, []string{"/r/pods/ab/x", "/r/pods/ab/y", "/r/pods/abc/z"}, keys(p1))
	assert.True(t, p1.More)
	p2, err := s.List(ctx, "/r/pods/", store.ListOptions{Limit: 3, StartAfter: p1.Items[2].Key})
	require.NoError(t, err)
	assert.Equal(t, []string{"/r/pods/b/w"}, keys(p2))
	assert.False(t, p2.More)
	// Exactly filling a page is not "more".
	p3, _ := s.List(ctx, "/r/pods/", store.ListOptions{Limit: 4})
	assert.False(t, p3.More)

	empty, err := s.List(ctx, "/r/none/", store.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, empty.Items)
	assert.Equal(t, s.Revision(), empty.Revision)
}

// testConcurrentCounter runs 16 writers doing read-modify-write of one
// counter with a resourceVersion precondition, retrying on conflict, as
// every Kubernetes controller does. No increment may be lost.
func testConcurrentCounter(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{})
	_, err := s.Create(ctx, "/counter", []byte("0"), store.CreateOptions{})
	require.NoError(t, err)
	const writers, each = 16, 25
	var wg sync.WaitGroup
	var conflicts sync.Map
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for range each {
				for {
					kv, err := s.Get(ctx, "/counter")
					if err != nil {
						errs <- err
						return
					}
					v, _ := strconv.Atoi(string(kv.Value))
					_, err = s.Update(ctx, "/counter", []byte(strconv.Itoa(v+1)), store.Preconditions{ResourceVersion: kv.ModRevision})
					if store.IsConflict(err) {
						n++
						continue
					}
					if err != nil {
						errs <- err
						return
					}
					break
				}
			}
			conflicts.Store(w, n)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	kv, err := s.Get(ctx, "/counter")
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(writers*each), string(kv.Value))
}

func testConcurrentCreate(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{})
	const n = 16
	var wg sync.WaitGroup
	results := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, results[i] = s.Create(ctx, "/one", []byte(strconv.Itoa(i)), store.CreateOptions{})
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range results {
		if err == nil {
			wins++
		} else {
			assert.True(t, store.IsKeyExists(err), "%v", err)
		}
	}
	assert.Equal(t, 1, wins)

	// Concurrent updates from the same read: exactly one wins.
	kv, _ := s.Get(ctx, "/one")
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, results[i] = s.Update(ctx, "/one", []byte("u"+strconv.Itoa(i)), store.Preconditions{ResourceVersion: kv.ModRevision})
		}()
	}
	wg.Wait()
	wins = 0
	for _, err := range results {
		if err == nil {
			wins++
		} else {
			assert.True(t, store.IsConflict(err), "%v", err)
		}
	}
	assert.Equal(t, 1, wins)
}

// collect reads n events or fails after a timeout.
func collect(t *testing.T, w store.Watcher, n int) []store.Event {
	t.Helper()
	var out []store.Event
	timeout := time.After(10 * time.Second)
	for len(out) < n {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %d of %d events: %v", len(out), n, w.Err())
			}
			out = append(out, ev)
		case <-timeout:
			t.Fatalf("timed out after %d of %d events", len(out), n)
		}
	}
	return out
}

// expectQuiet fails if w delivers anything within a short while.
func expectQuiet(t *testing.T, w store.Watcher) {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if ok {
			t.Fatalf("unexpected event %+v", ev)
		}
	case <-time.After(50 * time.Millisecond):
	}
}

func testWatchOrder(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{WatcherBuffer: 10000})
	start := s.Revision()
	w, err := s.Watch(ctx, "/w/", start)
	require.NoError(t, err)
	defer w.Stop()
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				k := fmt.Sprintf("/w/%d/%d", g, i)
				_, err := s.Create(ctx, k, []byte("v"), store.CreateOptions{})
				assert.NoError(t, err)
				_, err = s.Update(ctx, k, []byte("v2"), store.Preconditions{})
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	evs := collect(t, w, writers*each*2)
	seen := map[string]store.EventType{}
	for i, ev := range evs {
		// Every write is under /w/, so revisions must be contiguous:
		// strictly increasing, none skipped, none repeated.
		require.Equal(t, start+int64(i)+1, ev.Revision, "event %d", i)
		switch ev.Type {
		case store.Added:
			require.NotContains(t, seen, ev.Key)
		case store.Modified:
			require.Equal(t, store.Added, seen[ev.Key], "MODIFIED after ADDED for %s", ev.Key)
			require.Equal(t, "v", string(ev.PrevValue))
		}
		seen[ev.Key] = ev.Type
	}
	assert.Len(t, seen, writers*each)
	expectQuiet(t, w)
}

func testWatchResume(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{})
	var revs []int64
	for i := range 10 {
		kv, err := s.Create(ctx, "/r/"+strconv.Itoa(i), []byte("v"), store.CreateOptions{})
		require.NoError(t, err)
		revs = append(revs, kv.ModRevision)
	}
	w, err := s.Watch(ctx, "/r/", revs[4])
	require.NoError(t, err)
	defer w.Stop()
	evs := collect(t, w, 5)
	for i, ev := range evs {
		assert.Equal(t, revs[5+i], ev.Revision)
		assert.Equal(t, "/r/"+strconv.Itoa(5+i), ev.Key)
	}
	// Then live events continue the same stream.
	kv, err := s.Create(ctx, "/r/live", []byte("v"), store.CreateOptions{})
	require.NoError(t, err)
	ev := collect(t, w, 1)[0]
	assert.Equal(t, kv.ModRevision, ev.Revision)
	expectQuiet(t, w)

	// fromRevision 0 means "from now": nothing replayed.
	w0, err := s.Watch(ctx, "/r/", 0)
	require.NoError(t, err)
	defer w0.Stop()
	expectQuiet(t, w0)
}

func testWatchPrefix(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{})
	w, err := s.Watch(ctx, "/registry/pods/ab/", 0)
	require.NoError(t, err)
	defer w.Stop()
	for _, k := range []string{"/registry/pods/abc/x", "/registry/pods/ab/y", "/registry/services/ab/z"} {
		_, err := s.Create(ctx, k, []byte("v"), store.CreateOptions{})
		require.NoError(t, err)
	}
	ev := collect(t, w, 1)[0]
	assert.Equal(t, "/registry/pods/ab/y", ev.Key)
	assert.Equal(t, store.Added, ev.Type)
	expectQuiet(t, w)
}

func testWatchDelete(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{})
	_, err := s.Create(ctx, "/d", []byte("last"), store.CreateOptions{UID: "u"})
	require.NoError(t, err)
	w, err := s.Watch(ctx, "/d", 0)
	require.NoError(t, err)
	defer w.Stop()
	del, err := s.Delete(ctx, "/d", store.Preconditions{})
	require.NoError(t, err)
	ev := collect(t, w, 1)[0]
	assert.Equal(t, store.Deleted, ev.Type)
	assert.Equal(t, "last", string(ev.PrevValue))
	assert.Equal(t, "last", string(ev.Value))
	assert.Equal(t, "u", ev.UID)
	assert.Equal(t, del.ModRevision, ev.Revision)
}

func testWatchExpired(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{Window: 5})
	_, err := s.Create(ctx, "/e/first", []byte("v"), store.CreateOptions{})
	require.NoError(t, err)
	first := s.Revision()
	for i := range 10 {
		_, err := s.Create(ctx, "/e/"+strconv.Itoa(i), []byte("v"), store.CreateOptions{})
		require.NoError(t, err)
	}
	_, err = s.Watch(ctx, "/e/", first)
	require.Error(t, err)
	assert.True(t, store.IsExpired(err), "%v", err)
	var exp *store.ExpiredError
	require.True(t, errors.As(err, &exp))
	assert.Equal(t, first, exp.Requested)

	// The oldest revision the window still covers works.
	w, err := s.Watch(ctx, "/e/", s.Revision()-5)
	require.NoError(t, err)
	defer w.Stop()
	assert.Len(t, collect(t, w, 5), 5)
	_, err = s.Watch(ctx, "/e/", s.Revision()-6)
	assert.True(t, store.IsExpired(err))
}

// A list at a past revision sees the keys as they were then: changed
// values as they were, deleted keys back, created keys not yet there, page
// after page; compacted history answers expired, a future revision
// ErrFutureRevision.
func testListAtRevision(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{})
	was := map[string]store.KeyValue{}
	for _, k := range []string{"a", "b", "c", "d"} {
		kv, err := s.Create(ctx, "/h/"+k, []byte(k+"1"), store.CreateOptions{UID: "u-" + k})
		require.NoError(t, err)
		was[k] = kv
	}
	_, err := s.Create(ctx, "/other/x", []byte("x"), store.CreateOptions{})
	require.NoError(t, err)
	then := s.Revision()

	_, err = s.Update(ctx, "/h/a", []byte("a2"), store.Preconditions{})
	require.NoError(t, err)
	_, err = s.Delete(ctx, "/h/c", store.Preconditions{})
	require.NoError(t, err)
	_, err = s.Create(ctx, "/h/bb", []byte("bb1"), store.CreateOptions{})
	require.NoError(t, err)
	_, err = s.Create(ctx, "/h/e", []byte("e1"), store.CreateOptions{})
	require.NoError(t, err)
	_, err = s.Update(ctx, "/h/a", []byte("a3"), store.Preconditions{})
	require.NoError(t, err)

	keys := func(res store.ListResult) []string {
		var out []string
		for _, kv := range res.Items {
			out = append(out, kv.Key)
		}
		return out
	}
	all, err := s.List(ctx, "/h/", store.ListOptions{Revision: then})
	require.NoError(t, err)
	assert.Equal(t, then, all.Revision)
	assert.False(t, all.More)
	require.Equal(t, []string{"/h/a", "/h/b", "/h/c", "/h/d"}, keys(all))
	for i, k := range []string{"a", "b", "c", "d"} {
		assert.Equal(t, was[k], all.Items[i], "%s as it was", k)
	}

	p1, err := s.List(ctx, "/h/", store.ListOptions{Revision: then, Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, []string{"/h/a", "/h/b"}, keys(p1))
	assert.True(t, p1.More)
	p2, err := s.List(ctx, "/h/", store.ListOptions{Revision: then, Limit: 2, StartAfter: "/h/b"})
	require.NoError(t, err)
	assert.Equal(t, []string{"/h/c", "/h/d"}, keys(p2), "the deleted key is back, the created ones are not there yet")
	assert.False(t, p2.More)
	p3, err := s.List(ctx, "/h/", store.ListOptions{Revision: then, Limit: 1, StartAfter: "/h/b"})
	require.NoError(t, err)
	assert.Equal(t, []string{"/h/c"}, keys(p3))
	assert.True(t, p3.More)

	now, err := s.List(ctx, "/h/", store.ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"/h/a", "/h/b", "/h/bb", "/h/d", "/h/e"}, keys(now))

	_, err = s.List(ctx, "/h/", store.ListOptions{Revision: s.Revision() + 100})
	assert.ErrorIs(t, err, store.ErrFutureRevision)

	require.NoError(t, s.Compact(ctx, then+1))
	_, err = s.List(ctx, "/h/", store.ListOptions{Revision: then, Limit: 2, StartAfter: "/h/b"})
	assert.True(t, store.IsExpired(err), "%v", err)
	res, err := s.List(ctx, "/h/", store.ListOptions{Revision: then + 1})
	require.NoError(t, err, "the compacted revision itself is still readable")
	assert.Equal(t, []string{"/h/a", "/h/b", "/h/c", "/h/d"}, keys(res))
}

func testWatchCompact(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{})
	var revs []int64
	for i := range 6 {
		kv, err := s.Create(ctx, "/c/"+strconv.Itoa(i), []byte("v"), store.CreateOptions{})
		require.NoError(t, err)
		revs = append(revs, kv.ModRevision)
	}
	require.NoError(t, s.Compact(ctx, revs[3]))
	_, err := s.Watch(ctx, "/c/", revs[2])
	assert.True(t, store.IsExpired(err), "%v", err)
	w, err := s.Watch(ctx, "/c/", revs[3])
	require.NoError(t, err)
	defer w.Stop()
	evs := collect(t, w, 2)
	assert.Equal(t, revs[4], evs[0].Revision)
	// Compaction touches history only: objects stay.
	res, err := s.List(ctx, "/c/", store.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, res.Items, 6)
}

func testSlowWatcher(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{WatcherBuffer: 10})
	slow, err := s.Watch(ctx, "/s/", 0)
	require.NoError(t, err)
	fast, err := s.Watch(ctx, "/s/", 0)
	require.NoError(t, err)
	defer fast.Stop()
	// Nobody reads slow; writes must still finish promptly. The fast
	// watcher is read before each next write: with a buffer of 10, a
	// reader left behind by a fast store would itself be ended as slow.
	for i := range 100 {
		kv, err := s.Create(ctx, "/s/"+strconv.Itoa(i), []byte("v"), store.CreateOptions{})
		require.NoError(t, err)
		select {
		case ev, ok := <-fast.ResultChan():
			require.True(t, ok, "a fast watcher beside a slow one is not ended (event %d)", i)
			require.Equal(t, kv.ModRevision, ev.Revision, "a fast watcher beside a slow one misses nothing")
		case <-time.After(20 * time.Second):
			t.Fatal("writers blocked by a slow watcher")
		}
	}
	// The slow watcher gets what fit in its buffer, then a closed channel
	// and an expired error.
	n := 0
	for range slow.ResultChan() {
		n++
	}
	assert.Equal(t, 10, n)
	assert.True(t, store.IsExpired(slow.Err()), "%v", slow.Err())
}

// testListThenWatch is the informer pattern: list, then watch from the
// list's revision while writers keep going. Every key ends up known, with
// its final value, and nothing is seen twice.
func testListThenWatch(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{WatcherBuffer: 10000})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	total := 0
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				total = i
				return
			default:
			}
			_, err := s.Create(ctx, "/lw/"+strconv.Itoa(i), []byte("v"), store.CreateOptions{})
			assert.NoError(t, err)
		}
	}()
	time.Sleep(20 * time.Millisecond)
	res, err := s.List(ctx, "/lw/", store.ListOptions{})
	require.NoError(t, err)
	w, err := s.Watch(ctx, "/lw/", res.Revision)
	require.NoError(t, err)
	defer w.Stop()
	time.Sleep(20 * time.Millisecond)
	close(stop)
	wg.Wait()
	known := map[string]bool{}
	for _, kv := range res.Items {
		known[kv.Key] = true
	}
	evs := collect(t, w, total-len(res.Items))
	for _, ev := range evs {
		require.Greater(t, ev.Revision, res.Revision)
		require.False(t, known[ev.Key], "seen twice: %s", ev.Key)
		known[ev.Key] = true
	}
	assert.Len(t, known, total)
	expectQuiet(t, w)
}

func testWatchContext(t *testing.T, o Options) {
	s := open(t, o, store.BroadcasterConfig{})
	c, cancel := context.WithCancel(ctx)
	w, err := s.Watch(c, "/", 0)
	require.NoError(t, err)
	cancel()
	select {
	case _, ok := <-w.ResultChan():
		assert.False(t, ok)
	case <-time.After(5 * time.Second):
		t.Fatal("watch did not end with its context")
	}
	assert.NoError(t, w.Err())
}

func testClose(t *testing.T, o Options) {
	s := o.Open(t, t.TempDir(), store.BroadcasterConfig{})
	w, err := s.Watch(ctx, "/", 0)
	require.NoError(t, err)
	_, err = s.Create(ctx, "/x", []byte("v"), store.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	n := 0
	for range w.ResultChan() {
		n++
	}
	assert.Equal(t, 1, n, "events before close are delivered")
	assert.ErrorIs(t, w.Err(), store.ErrClosed)
	_, err = s.Create(ctx, "/y", []byte("v"), store.CreateOptions{})
	assert.ErrorIs(t, err, store.ErrClosed)
	_, err = s.Get(ctx, "/x")
	assert.ErrorIs(t, err, store.ErrClosed)
	assert.NoError(t, s.Close(), "close twice is fine")
}

func testRestart(t *testing.T, o Options) {
	dir := t.TempDir()
	s := o.Open(t, dir, store.BroadcasterConfig{})
	var last store.KeyValue
	for i := range 5 {
		kv, err := s.Create(ctx, "/p/"+strconv.Itoa(i), []byte("v"+strconv.Itoa(i)), store.CreateOptions{UID: "u" + strconv.Itoa(i)})
		require.NoError(t, err)
		last = kv
	}
	_, err := s.Delete(ctx, "/p/4", store.Preconditions{})
	require.NoError(t, err)
	rev := s.Revision()
	require.NoError(t, s.Close())

	s2 := o.Open(t, dir, store.BroadcasterConfig{})
	defer s2.Close()
	assert.Equal(t, rev, s2.Revision(), "the counter is persisted")
	res, err := s2.List(ctx, "/p/", store.ListOptions{})
	require.NoError(t, err)
	require.Len(t, res.Items, 4)
	for i, kv := range res.Items {
		assert.Equal(t, "v"+strconv.Itoa(i), string(kv.Value))
		assert.Equal(t, "u"+strconv.Itoa(i), kv.UID)
	}
	kv, err := s2.Create(ctx, "/p/new", []byte("v"), store.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, rev+1, kv.ModRevision, "a revision is never reused")
	assert.Greater(t, kv.ModRevision, last.ModRevision)
	// History before the restart is gone; a watch from it is expired.
	_, err = s2.Watch(ctx, "/p/", last.ModRevision-1)
	assert.True(t, store.IsExpired(err), "%v", err)
}
