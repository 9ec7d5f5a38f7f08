package workqueue

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/runmode"
)

func newFake() (*Queue, *clock.Fake) {
	c := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	return New(Config{Clock: c, Mode: runmode.Step}), c
}

func TestDeduplicatesAndKeepsOrder(t *testing.T) {
	q, _ := newFake()
	q.Add("a")
	q.Add("b")
	q.Add("a")
	assert.Equal(t, 2, q.Len())
	k, ok := q.TryGet()
	require.True(t, ok)
	assert.Equal(t, "a", k)
	// Re-added while processing: not handed out twice, queued after Done.
	q.Add("a")
	k2, _ := q.TryGet()
	assert.Equal(t, "b", k2)
	_, ok = q.TryGet()
	assert.False(t, ok, "a is being processed")
	q.Done("a")
	k3, ok := q.TryGet()
	require.True(t, ok)
	assert.Equal(t, "a", k3)
}

func TestAddAfterWaitsForTheClock(t *testing.T) {
	q, c := newFake()
	q.AddAfter("late", 2*time.Second)
	q.AddAfter("early", time.Second)
	q.AddAfter("early", 5*time.Second) // the earlier deadline wins
	_, ok := q.TryGet()
	assert.False(t, ok)
	next, ok := q.NextDeadline()
	require.True(t, ok)
	assert.Equal(t, c.Now().Add(time.Second), next)
	c.Step(time.Second)
	k, ok := q.TryGet()
	require.True(t, ok)
	assert.Equal(t, "early", k)
	_, ok = q.TryGet()
	assert.False(t, ok)
	c.Step(time.Second)
	k, _ = q.TryGet()
	assert.Equal(t, "late", k)
}

func TestRateLimitedBackOffDoublesUntilForget(t *testing.T) {
	q, c := newFake()
	q.AddRateLimited("k") // 5ms
	q.AddRateLimited("k") // 10ms, but the 5ms deadline is earlier
	assert.Equal(t, 2, q.NumRequeues("k"))
	c.Step(5 * time.Millisecond)
	k, ok := q.TryGet()
	require.True(t, ok)
	q.Done(k)
	q.AddRateLimited("k") // third failure: 20ms
	c.Step(19 * time.Millisecond)
	_, ok = q.TryGet()
	assert.False(t, ok)
	c.Step(time.Millisecond)
	_, ok = q.TryGet()
	assert.True(t, ok)
	q.Forget("k")
	assert.Equal(t, 0, q.NumRequeues("k"))
}

func TestGetBlocksUntilAddAndShutDown(t *testing.T) {
	q := New(Config{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		k, ok := q.Get()
		assert.True(t, ok)
		assert.Equal(t, "x", k)
		q.Done(k)
		_, ok = q.Get()
		assert.False(t, ok)
	}()
	time.Sleep(10 * time.Millisecond)
	q.Add("x")
	time.Sleep(10 * time.Millisecond)
	q.ShutDown()
	wg.Wait()
}

func TestDelayedKeyWakesABlockedGetOnTheRealClock(t *testing.T) {
	q := New(Config{})
	// start is read before AddAfter: the key's deadline is at least 20ms
	// after it whatever the scheduler does between the two lines (read
	// after, a busy machine could spend the whole delay in between).
	start := time.Now()
	q.AddAfter("soon", 20*time.Millisecond)
	k, ok := q.Get()
	require.True(t, ok)
	assert.Equal(t, "soon", k)
	assert.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond)
}

// The mode, not the kind of clock, decides who promotes delayed keys: in
// live mode a timer on the queue's clock (whatever clock it is) wakes a
// blocked Get; in step mode no timer is set, and only TryGet promotes.
func TestModeDecidesWhoPromotesDelayedKeys(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	stepClock := clock.NewFake(start)
	step := New(Config{Clock: stepClock, Mode: runmode.Step})
	step.AddAfter("k", time.Second)
	_, armed := stepClock.NextDeadline()
	assert.False(t, armed, "step mode sets no timer")

	liveClock := clock.NewFake(start)
	live := New(Config{Clock: liveClock, Mode: runmode.Live})
	live.AddAfter("k", time.Second)
	at, armed := liveClock.NextDeadline()
	require.True(t, armed, "live mode sets a timer on its clock")
	assert.Equal(t, start.Add(time.Second), at)
	got := make(chan string)
	go func() {
		k, _ := live.Get()
		got <- k
	}()
	liveClock.SetTime(at)
	assert.Equal(t, "k", <-got, "the timer promoted the key and woke Get")
	live.ShutDown()
}

// In live mode a timer wakes Get for the earliest delayed key. A key added
// later with an earlier deadline gets its own timer: it must not wait for
// the one already armed (a pod's 20ms stage behind another pod's 5-minute
// CrashLoopBackOff on the same kubelet).
func TestLiveEarlierDeadlineRearmsTheTimer(t *testing.T) {
	c := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	q := New(Config{Clock: c, Mode: runmode.Live})
	defer q.ShutDown()
	q.AddAfter("late", 5*time.Minute)
	q.AddAfter("early", time.Second)
	got := make(chan string, 2)
	go func() {
		for {
			k, ok := q.Get()
			if !ok {
				return
			}
			got <- k
			q.Done(k)
		}
	}()
	c.Step(time.Second)
	select {
	case k := <-got:
		assert.Equal(t, "early", k)
	case <-time.After(30 * time.Second):
		t.Fatal("the key due in 1s was not handed out after 1s: it waits for the 5-minute timer")
	}
	// The superseded timer was stopped; the late key still comes, on time.
	_, pending := c.NextDeadline()
	assert.True(t, pending, "a timer waits for the late key")
	c.Step(5*time.Minute - time.Second)
	select {
	case k := <-got:
		assert.Equal(t, "late", k)
	case <-time.After(30 * time.Second):
		t.Fatal("the late key never came")
	}
}

// TestDueKeysComeEarliestFirstThenByKey: delayed keys kept in a heap come
// out as the sorted map they replaced did — by deadline, the same deadline
// in key order — a deadline moved earlier moves the key, and a key added
// now no longer waits (the stepper's order, and so the golden traces,
// depend on it).
func TestDueKeysComeEarliestFirstThenByKey(t *testing.T) {
	q, c := newFake()
	deadlines := map[string]time.Duration{}
	for i := range 200 {
		key := string(rune('a'+i%26)) + string(rune('a'+i/26))
		d := time.Duration((i*37)%11+1) * time.Second
		deadlines[key] = d
		q.AddAfter(key, d)
	}
	q.AddAfter("zz", 20*time.Second)
	q.AddAfter("zz", 3*time.Second) // earlier: moves
	deadlines["zz"] = 3 * time.Second
	q.AddAfter("aa", 30*time.Second) // later: stays
	q.AddAfter("now", time.Hour)
	q.Add("now") // ready at once, and no longer delayed
	k, ok := q.TryGet()
	require.True(t, ok)
	require.Equal(t, "now", k)
	q.Done("now")

	c.Step(time.Minute)
	var got []string
	for {
		k, ok := q.TryGet()
		if !ok {
			break
		}
		got = append(got, k)
		q.Done(k)
	}
	require.Len(t, got, len(deadlines), "each key once, and not the one added at once")
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		require.True(t, deadlines[a] < deadlines[b] || deadlines[a] == deadlines[b] && a < b,
			"%s (%s) came before %s (%s)", a, deadlines[a], b, deadlines[b])
	}
	_, ok = q.NextDeadline()
	require.False(t, ok, "nothing waits any more")
}
