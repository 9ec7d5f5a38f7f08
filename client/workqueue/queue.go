package workqueue

import (
	"container/heap"
	"sync"
	"time"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/runmode"
)

// Config tunes a Queue.
type Config struct {
	Clock clock.Clock
	// Mode says who promotes delayed keys when their time comes: in Live
	// mode a timer goroutine, so that a blocked Get wakes; in Step mode
	// TryGet, at the point the stepper chooses (a goroutine promoting keys
	// whenever the fake clock moves would race the stepper).
	Mode runmode.Mode
	// BaseDelay and MaxDelay bound the per-key exponential back-off of
	// AddRateLimited (defaults 5 ms and 1000 s, as client-go's).
	BaseDelay, MaxDelay time.Duration
	// Name and MetricsProvider measure the queue (metrics.go): its depth,
	// adds, retries, and how long keys wait and are worked on, under the
	// label name=Name. Without a provider nothing is measured.
	Name            string
	MetricsProvider MetricsProvider
}

// Queue is a de-duplicating, delaying, rate-limiting queue of keys.
type Queue struct {
	cfg  Config
	mu   sync.Mutex
	cond *sync.Cond
	// queue is the order of ready keys; dirty the keys waiting to be
	// processed (queued, or re-added while processing).
	queue      []string
	dirty      map[string]bool
	processing map[string]bool
	// waiting are the delayed keys, earliest first (waitForPriorityQueue
	// in client-go's delaying queue): finding the next deadline or the
	// due keys does not walk every delayed key, which matters when each
	// of thousands of nodes waits for its next heartbeat in one queue.
	waiting  delayed
	failures map[string]int
	shutdown bool
	// timer waits for the earliest delayed key (live mode), due at
	// timerAt; one at a time. A key added later with an earlier deadline
	// replaces it: otherwise that key would wait for the later deadline
	// (a pod's 20ms stage behind another pod's 5-minute back-off).
	timer     clock.Timer
	timerAt   time.Time
	timerStop chan struct{}
	// metrics measure the queue (nil: not measured).
	metrics *metrics
}

// New returns an empty queue.
func New(cfg Config) *Queue {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.BaseDelay <= 0 {
		cfg.BaseDelay = 5 * time.Millisecond
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = 1000 * time.Second
	}
	q := &Queue{cfg: cfg, dirty: map[string]bool{}, processing: map[string]bool{},
		waiting: delayed{index: map[string]*waitingKey{}}, failures: map[string]int{}}
	q.cond = sync.NewCond(&q.mu)
	q.SetMetricsProvider(cfg.Name, cfg.MetricsProvider)
	return q
}

// Add queues key now. A key already queued is not queued twice; a key
// being processed is queued again once Done is called for it.
func (q *Queue) Add(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(key)
}

func (q *Queue) addLocked(key string) {
	if q.shutdown || q.dirty[key] {
		return
	}
	q.waiting.remove(key)
	q.dirty[key] = true
	q.metrics.add(key)
	if q.processing[key] {
		return
	}
	q.queue = append(q.queue, key)
	q.cond.Signal()
}

// AddAfter queues key after d on the queue's clock. An earlier pending
// deadline for the same key wins.
func (q *Queue) AddAfter(key string, d time.Duration) {
	if d <= 0 {
		q.Add(key)
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shutdown {
		return
	}
	at := q.cfg.Clock.Now().Add(d)
	if !q.waiting.set(key, at) {
		return
	}
	q.armLocked()
}

// armLocked starts a clock timer for the earliest waiting key, so that a
// blocked Get wakes when it is due (live mode; see Config.Mode). A timer
// already armed for that time or earlier stays; one armed for later is
// stopped and replaced.
func (q *Queue) armLocked() {
	if q.cfg.Mode == runmode.Step {
		return
	}
	next, ok := q.nextDeadlineLocked()
	if !ok {
		return
	}
	if q.timer != nil {
		if !next.Before(q.timerAt) {
			return
		}
		q.timer.Stop()
		close(q.timerStop) // its goroutine ends
	}
	t, stop := q.cfg.Clock.NewTimer(next.Sub(q.cfg.Clock.Now())), make(chan struct{})
	q.timer, q.timerAt, q.timerStop = t, next, stop
	go func() {
		select {
		case <-t.C():
		case <-stop:
			return
		}
		q.mu.Lock()
		defer q.mu.Unlock()
		if q.timer == t {
			q.timer = nil
		}
		q.promoteLocked()
		q.armLocked()
	}()
}

// promoteLocked moves due waiting keys to the queue, earliest first (the
// same time: in key order).
func (q *Queue) promoteLocked() {
	now := q.cfg.Clock.Now()
	for len(q.waiting.keys) > 0 && !q.waiting.keys[0].at.After(now) {
		w := heap.Pop(&q.waiting).(*waitingKey)
		q.addLocked(w.key)
	}
}

func (q *Queue) nextDeadlineLocked() (time.Time, bool) {
	if len(q.waiting.keys) == 0 {
		return time.Time{}, false
	}
	return q.waiting.keys[0].at, true
}

// NextDeadline is when the earliest delayed key becomes ready: the stepper
// moves the fake clock there when nothing else is runnable.
func (q *Queue) NextDeadline() (time.Time, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.nextDeadlineLocked()
}

// AddRateLimited queues key after its back-off: BaseDelay doubled for each
// failure since the last Forget, capped at MaxDelay.
func (q *Queue) AddRateLimited(key string) {
	q.mu.Lock()
	n := q.failures[key]
	q.failures[key] = n + 1
	q.metrics.retry()
	q.mu.Unlock()
	d := q.cfg.BaseDelay
	for i := 0; i < n && d < q.cfg.MaxDelay; i++ {
		d *= 2
	}
	q.AddAfter(key, min(d, q.cfg.MaxDelay))
}

// Forget clears key's back-off after a success.
func (q *Queue) Forget(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.failures, key)
}

// NumRequeues is how many failures key has had since it was forgotten.
func (q *Queue) NumRequeues(key string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.failures[key]
}

// Get blocks until a key is ready or the queue shuts down (ok false).
// Call Done(key) when finished with it.
func (q *Queue) Get() (key string, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.queue) == 0 && !q.shutdown {
		q.cond.Wait()
	}
	if len(q.queue) == 0 {
		return "", false
	}
	return q.popLocked(), true
}

// TryGet returns a ready key without blocking. Delayed keys whose time
// has come on the clock are ready too.
func (q *Queue) TryGet() (key string, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.promoteLocked()
	if len(q.queue) == 0 {
		return "", false
	}
	return q.popLocked(), true
}

func (q *Queue) popLocked() string {
	key := q.queue[0]
	q.queue = q.queue[1:]
	q.processing[key] = true
	delete(q.dirty, key)
	q.metrics.get(key)
	return key
}

// Done marks key finished; if it was added meanwhile it is queued again.
func (q *Queue) Done(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.processing, key)
	q.metrics.done(key)
	if q.dirty[key] {
		q.queue = append(q.queue, key)
		q.cond.Signal()
	}
}

// Len is the number of ready keys.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.queue)
}

// Waiting are the delayed keys, not ready yet (AddAfter, AddRateLimited),
// in no particular order.
func (q *Queue) Waiting() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	keys := make([]string, len(q.waiting.keys))
	for i, w := range q.waiting.keys {
		keys[i] = w.key
	}
	return keys
}

// ShutDown wakes every Get with ok false; later adds are ignored.
func (q *Queue) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.shutdown {
		q.metrics.shutDown()
	}
	q.shutdown = true
	q.cond.Broadcast()
}

// waitingKey is a delayed key and when it becomes ready.
type waitingKey struct {
	key string
	at  time.Time
	// i is its place in delayed.keys, for heap.Fix and heap.Remove.
	i int
}

// delayed is a min-heap of waiting keys by (at, key), with an index by
// key: each key waits at most once, at its earliest deadline.
type delayed struct {
	keys  []*waitingKey
	index map[string]*waitingKey
}

// set makes key wait until at, unless it already waits until then or
// earlier; it reports whether the deadline changed.
func (d *delayed) set(key string, at time.Time) bool {
	if w, ok := d.index[key]; ok {
		if !at.Before(w.at) {
			return false
		}
		w.at = at
		heap.Fix(d, w.i)
		return true
	}
	heap.Push(d, &waitingKey{key: key, at: at})
	return true
}

// remove stops key waiting, if it does.
func (d *delayed) remove(key string) {
	if w, ok := d.index[key]; ok {
		heap.Remove(d, w.i)
	}
}

// The heap.Interface methods; use set, remove and heap.Pop.

func (d *delayed) Len() int { return len(d.keys) }

func (d *delayed) Less(i, j int) bool {
	a, b := d.keys[i], d.keys[j]
	if a.at.Equal(b.at) {
		return a.key < b.key
	}
	return a.at.Before(b.at)
}

func (d *delayed) Swap(i, j int) {
	d.keys[i], d.keys[j] = d.keys[j], d.keys[i]
	d.keys[i].i, d.keys[j].i = i, j
}

func (d *delayed) Push(x any) {
	w := x.(*waitingKey)
	w.i = len(d.keys)
	d.keys = append(d.keys, w)
	d.index[w.key] = w
}

func (d *delayed) Pop() any {
	last := len(d.keys) - 1
	w := d.keys[last]
	d.keys[last] = nil
	d.keys = d.keys[:last]
	delete(d.index, w.key)
	return w
}
