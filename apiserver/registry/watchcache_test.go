package registry

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
)

// onlyWatcher is the cacher's one watcher.
func (e *rvEnv) onlyWatcher() *cacheWatcher {
	e.t.Helper()
	e.s.cacher.mu.Lock()
	defer e.s.cacher.mu.Unlock()
	require.Len(e.t, e.s.cacher.all, 1)
	for cw := range e.s.cacher.all {
		return cw
	}
	return nil
}

// pending is what cw holds that its client has not read, and the size of
// the array its queue keeps.
func pending(cw *cacheWatcher) (n, capacity int) {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	return cw.pendingLocked(), cap(cw.queue)
}

// A watcher's queue is not allocated up front: it grows as events wait
// (up to the bound, not beyond), hands them on in order, and lets a big
// array go once drained, so a watcher that keeps up holds almost nothing.
func TestWatcherQueueGrowsOnlyAsEventsWait(t *testing.T) {
	e := newRVEnv(t)
	e.s.cacher.buffer = 100
	ch, _ := e.watch(ListOptions{ResourceVersion: strconv.FormatInt(e.create("x", "web"), 10)})
	cw := e.onlyWatcher()
	n, capacity := pending(cw)
	assert.Zero(t, n)
	assert.Zero(t, capacity, "nothing allocated before an event waits")

	// Read as they come: they go through the channel's few slots, and
	// the queue is never used.
	for i := range 5 {
		e.relabel("x", "a"+strconv.Itoa(i))
		assert.Equal(t, "MODIFIED x app=a"+strconv.Itoa(i), summaryWithLabel(nextEvent(t, ch)))
	}
	_, capacity = pending(cw)
	assert.Zero(t, capacity)

	// Not read: they wait, all of them (the channel's slots, then the
	// queue), under the bound of 100.
	for i := range 60 {
		e.relabel("x", "b"+strconv.Itoa(i))
	}
	require.Eventually(t, func() bool { n, _ := pending(cw); return n == 60 }, eventWait, time.Millisecond)
	_, capacity = pending(cw)
	assert.Greater(t, capacity, smallQueue)
	for i := range 60 {
		assert.Equal(t, "MODIFIED x app=b"+strconv.Itoa(i), summaryWithLabel(nextEvent(t, ch)))
	}
	require.Eventually(t, func() bool { n, c := pending(cw); return n == 0 && c <= smallQueue }, eventWait, time.Millisecond,
		"drained, the burst's array is let go")
	e.s.cacher.mu.Lock()
	assert.Len(t, e.s.cacher.all, 1, "never ended: it stayed under its bound")
	e.s.cacher.mu.Unlock()
}

// The initial events of a watch count against its bound as the first
// events it holds: with three slots past them, the fourth change not read
// ends the watch, after everything it held.
func TestInitialEventsCountAgainstTheBound(t *testing.T) {
	e := newRVEnv(t)
	e.s.cacher.buffer = 3
	for i := range 5 {
		e.create("c"+strconv.Itoa(i), "web")
	}
	ch, _ := e.watch(ListOptions{}) // no resourceVersion: the current state first
	for i := range 4 {
		e.relabel("c0", "v"+strconv.Itoa(i))
	}
	require.Eventually(t, func() bool {
		e.s.cacher.mu.Lock()
		defer e.s.cacher.mu.Unlock()
		return len(e.s.cacher.all) == 0
	}, eventWait, time.Millisecond)
	var got []string
	var last WatchEvent
	for ev := range ch {
		last = ev
		got = append(got, string(ev.Type))
	}
	assert.Equal(t, []string{"ADDED", "ADDED", "ADDED", "ADDED", "ADDED", "MODIFIED", "MODIFIED", "MODIFIED", "ERROR"}, got)
	assert.True(t, api.IsResourceExpired(last.Err), "%v", last.Err)
}

// A client that leaves ends its watch at once, whatever it had not read:
// the channel closes and the cacher forgets the watcher.
func TestLeavingWatcherClosesWithEventsUnread(t *testing.T) {
	e := newRVEnv(t)
	ch, cancel := e.watch(ListOptions{ResourceVersion: strconv.FormatInt(e.create("x", "web"), 10)})
	cw := e.onlyWatcher()
	for i := range 3 {
		e.relabel("x", "v"+strconv.Itoa(i))
	}
	require.Eventually(t, func() bool { n, _ := pending(cw); return n == 3 }, eventWait, time.Millisecond)
	cancel()
	deadline := time.After(eventWait)
	for open := true; open; {
		select {
		case _, open = <-ch:
		case <-deadline:
			t.Fatal("the watch did not close")
		}
	}
	e.s.cacher.mu.Lock()
	defer e.s.cacher.mu.Unlock()
	assert.Empty(t, e.s.cacher.all)
}

func summaryWithLabel(ev WatchEvent) string {
	if ev.Object == nil {
		return string(ev.Type)
	}
	return summary(ev) + " app=" + api.Meta(ev.Object).Labels["app"]
}
