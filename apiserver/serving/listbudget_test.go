package serving

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/clock"
)

// The shares of the list budget: workloads hold at most three quarters,
// system requests the whole, one system list always gets in, the exempt
// loopback is never refused, and a list bigger than the budget runs alone.
func TestListBudgetShares(t *testing.T) {
	b := NewListBudget(100)
	acquire := func(n int64, p Priority) func() {
		t.Helper()
		release, ok := b.Acquire(n, p)
		require.True(t, ok, "%d bytes, %s, with %d in use", n, p, b.Stats().InUse)
		return release
	}
	refused := func(n int64, p Priority) {
		t.Helper()
		_, ok := b.Acquire(n, p)
		assert.False(t, ok, "%d bytes, %s, with %d in use", n, p, b.Stats().InUse)
	}

	u1 := acquire(40, PriorityWorkload)
	u2 := acquire(35, PriorityWorkload)
	refused(1, PriorityWorkload) // the workloads' three quarters are used
	s1 := acquire(20, PrioritySystem)
	refused(10, PrioritySystem) // the whole budget would be over
	e := acquire(50, PriorityExempt)
	s1()
	// No other system list in flight: one gets in, whatever it costs.
	s2 := acquire(60, PrioritySystem)
	s2()
	e()
	u1()
	u2()
	assert.Equal(t, int64(0), b.Stats().InUse)

	// Alone, a list bigger than the budget runs; beside it nothing else
	// of the workloads does.
	huge := acquire(1000, PriorityWorkload)
	refused(1, PriorityWorkload)
	huge()
	u := acquire(10, PriorityWorkload)
	u()
	// Release is idempotent.
	u()
	assert.Equal(t, int64(0), b.Stats().InUse)
	st := b.Stats()
	assert.Equal(t, int64(3), st.Refused)
	assert.Equal(t, int64(7), st.Admitted)
}

// A list that may wait (AcquireWaiting) is let in when a release makes
// room, and refused once it has waited its time or its client has gone.
func TestListBudgetSystemListsWaitForRoom(t *testing.T) {
	b := NewListBudget(100)
	clk := clock.NewFake(time.Unix(0, 0))
	hold, ok := b.Acquire(100, PrioritySystem)
	require.True(t, ok)
	// wait starts a waiting list and returns its outcome, once it waits.
	wait := func(ctx context.Context) <-chan func() {
		t.Helper()
		before := b.Stats().Waiting
		got := make(chan func(), 1)
		go func() {
			release, _ := b.AcquireWaiting(ctx, 50, PrioritySystem, clk, 15*time.Second)
			got <- release
		}()
		require.Eventually(t, func() bool { return b.Stats().Waiting == before+1 }, time.Minute, time.Millisecond)
		return got
	}

	// Room made: the waiting list gets in.
	got := wait(context.Background())
	_, refused := b.Acquire(50, PrioritySystem)
	assert.False(t, refused, "Acquire does not wait")
	hold()
	release := <-got
	require.NotNil(t, release, "admitted once the holder released")
	assert.Equal(t, int64(50), b.Stats().InUse)

	// No room for 15 s on the clock: refused.
	hold2, ok := b.Acquire(50, PriorityExempt)
	require.True(t, ok)
	got = wait(context.Background())
	clk.Step(15 * time.Second)
	assert.Nil(t, <-got, "refused after waiting its time")

	// The client went: refused.
	ctx, cancel := context.WithCancel(context.Background())
	got = wait(ctx)
	cancel()
	assert.Nil(t, <-got, "refused when its client went")

	release()
	hold2()
	st := b.Stats()
	assert.Equal(t, int64(0), st.InUse)
	assert.Equal(t, int64(0), st.Waiting)
	assert.Equal(t, int64(3), st.Refused)
}

func TestWriteTooManyRequests(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteTooManyRequests(rec)
	assert.Equal(t, 429, rec.Code)
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	assert.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too many requests, please try again later.","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`, rec.Body.String())
}
