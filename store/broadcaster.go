package store

import (
	"context"
	"sort"
	"strings"
	"sync"
)

// BroadcasterConfig sizes the watch window.
type BroadcasterConfig struct {
	// Window is how many recent events are kept for watchers that resume
	// from a past revision (default 10,000).
	Window int
	// WatcherBuffer is how many undelivered events one watcher may hold
	// before it is closed as too slow (default 1,000).
	WatcherBuffer int
}

// DefaultWindow and DefaultWatcherBuffer are the defaults of BroadcasterConfig.
const (
	DefaultWindow        = 10000
	DefaultWatcherBuffer = 1000
)

// Broadcaster keeps the recent-event window and fans events out to watchers.
// A backend calls Publish after each commit, in revision order, and serves
// Watch through it. It is the part of the API server's watch cache that
// does not know kinds.
//
// Publish never blocks: each watcher has a bounded buffer, and a watcher
// whose buffer is full is closed with an ExpiredError (its client relists),
// so one slow reader cannot stall writers.
type Broadcaster struct {
	cfg BroadcasterConfig

	mu sync.Mutex
	// ring holds the last len(ring) events; start is the index of the
	// oldest, count how many are valid.
	ring  []Event
	start int
	count int
	// floor is the revision a watch may start from when the window holds
	// nothing older: the revision at open, or the last compaction.
	floor    int64
	last     int64
	watchers map[*watcher]struct{}
	closed   bool
	// published is signalled (on mu) after every Publish, for Since
	// callers waiting for a revision their backend committed but had not
	// published yet.
	published sync.Cond
}

// NewBroadcaster returns a Broadcaster whose window starts at revision
// current (events at or before it cannot be replayed).
func NewBroadcaster(cfg BroadcasterConfig, current int64) *Broadcaster {
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.WatcherBuffer <= 0 {
		cfg.WatcherBuffer = DefaultWatcherBuffer
	}
	b := &Broadcaster{
		cfg:      cfg,
		ring:     make([]Event, cfg.Window),
		floor:    current,
		last:     current,
		watchers: map[*watcher]struct{}{},
	}
	b.published.L = &b.mu
	return b
}

// oldestLocked is the smallest fromRevision a watch may use: every event
// after it is still in the window.
func (b *Broadcaster) oldestLocked() int64 {
	if b.count == 0 {
		return b.floor
	}
	return b.ring[b.start].Revision - 1
}

// Publish records events (in increasing revision order) and delivers them
// to matching watchers.
func (b *Broadcaster) Publish(events ...Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	for _, ev := range events {
		b.appendLocked(ev)
		for w := range b.watchers {
			// A watcher opened at a revision the hub has not published
			// yet (a List read a newer commit) must not see older events.
			if ev.Revision <= w.from || !strings.HasPrefix(ev.Key, w.prefix) {
				continue
			}
			select {
			case w.ch <- ev:
			default:
				// The watcher's buffer is full: it is too slow. Ending it
				// with "expired" makes its client relist, as Kubernetes'
				// watch cache does with a blocked watcher.
				w.endLocked(&ExpiredError{Requested: ev.Revision, Oldest: ev.Revision,
					Reason: "watcher fell too far behind and was closed; list again"})
				delete(b.watchers, w)
			}
		}
	}
	b.published.Broadcast()
}

func (b *Broadcaster) appendLocked(ev Event) {
	n := len(b.ring)
	if b.count < n {
		b.ring[(b.start+b.count)%n] = ev
		b.count++
	} else {
		b.ring[b.start] = ev
		b.start = (b.start + 1) % n
	}
	b.last = ev.Revision
}

// Watch opens a watch on prefix for events after fromRevision (0: from
// now). Events still in the window are replayed first. The watch ends when
// ctx does, as a Kubernetes watch ends with its request.
func (b *Broadcaster) Watch(ctx context.Context, prefix string, fromRevision int64) (Watcher, error) {
	w, err := b.watch(prefix, fromRevision)
	if err != nil {
		return nil, err
	}
	if ctx.Done() != nil {
		go func() {
			select {
			case <-ctx.Done():
				w.Stop()
			case <-w.stopped:
			}
		}()
	}
	return w, nil
}

func (b *Broadcaster) watch(prefix string, fromRevision int64) (*watcher, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrClosed
	}
	if fromRevision == 0 {
		fromRevision = b.last
	}
	if oldest := b.oldestLocked(); fromRevision < oldest {
		return nil, &ExpiredError{Requested: fromRevision, Oldest: oldest}
	}
	var replay []Event
	for i := 0; i < b.count; i++ {
		ev := b.ring[(b.start+i)%len(b.ring)]
		if ev.Revision > fromRevision && strings.HasPrefix(ev.Key, prefix) {
			replay = append(replay, ev)
		}
	}
	w := &watcher{b: b, prefix: prefix, from: fromRevision,
		ch: make(chan Event, b.cfg.WatcherBuffer+len(replay)), stopped: make(chan struct{})}
	for _, ev := range replay {
		w.ch <- ev
	}
	b.watchers[w] = struct{}{}
	return w, nil
}

// Since returns the events under prefix with a revision after from and at
// or before to, oldest first: what changed there between two revisions.
// It waits until the window holds every event up to to (a backend makes a
// commit readable a moment before it publishes it), and fails with an
// ExpiredError when events after from have already left the window (the
// history that far back is compacted), with ErrClosed once closed.
func (b *Broadcaster) Since(prefix string, from, to int64) ([]Event, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.last < to && !b.closed {
		b.published.Wait()
	}
	if b.closed {
		return nil, ErrClosed
	}
	if oldest := b.oldestLocked(); from < oldest {
		return nil, &ExpiredError{Requested: from, Oldest: oldest}
	}
	if from >= to {
		return nil, nil
	}
	// The ring is in revision order: start at the first event after from.
	n := len(b.ring)
	first := sort.Search(b.count, func(i int) bool { return b.ring[(b.start+i)%n].Revision > from })
	var out []Event
	for i := first; i < b.count; i++ {
		ev := b.ring[(b.start+i)%n]
		if ev.Revision > to {
			break
		}
		if strings.HasPrefix(ev.Key, prefix) {
			out = append(out, ev)
		}
	}
	return out, nil
}

// Compact forgets the events at or before revision.
func (b *Broadcaster) Compact(revision int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.count > 0 && b.ring[b.start].Revision <= revision {
		b.ring[b.start] = Event{}
		b.start = (b.start + 1) % len(b.ring)
		b.count--
	}
	if revision > b.floor {
		b.floor = min(revision, b.last)
	}
}

// Reset ends every watch with an expired error and starts the window
// again at revision: for a backend whose own event stream broke (etcd
// compacted the history it was reading), so that every watcher relists
// rather than miss events.
func (b *Broadcaster) Reset(revision int64, reason string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for w := range b.watchers {
		w.endLocked(&ExpiredError{Requested: w.from, Oldest: revision, Reason: reason})
		delete(b.watchers, w)
	}
	clear(b.ring)
	b.start, b.count = 0, 0
	b.last, b.floor = revision, revision
	b.published.Broadcast()
}

// Close ends every watch with ErrClosed.
func (b *Broadcaster) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for w := range b.watchers {
		w.endLocked(ErrClosed)
		delete(b.watchers, w)
	}
	b.published.Broadcast()
}

type watcher struct {
	b      *Broadcaster
	prefix string
	from   int64
	ch     chan Event
	// stopped is closed when the watch ends, for the context goroutine.
	stopped chan struct{}
	// err and ended are guarded by b.mu; every send and the close happen
	// under it, so closing never races a send.
	err   error
	ended bool
}

func (w *watcher) ResultChan() <-chan Event { return w.ch }

func (w *watcher) endLocked(err error) {
	if w.ended {
		return
	}
	w.ended = true
	w.err = err
	close(w.ch)
	close(w.stopped)
}

func (w *watcher) Stop() {
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	delete(w.b.watchers, w)
	w.endLocked(nil)
}

func (w *watcher) Err() error {
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	return w.err
}
