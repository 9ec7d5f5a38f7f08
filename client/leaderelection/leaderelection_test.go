package leaderelection

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
)

func candidate(t *testing.T, cl *client.Client, clk clock.Clock, id string) *LeaderElector {
	t.Helper()
	le, err := New(Config{Client: cl, Clock: clk, Namespace: "kube-system", Name: "kube-controller-manager", Identity: id})
	require.NoError(t, err)
	return le
}

// One attempt at a time on the fake clock: the first candidate creates
// the Lease; the second cannot take it while it is renewed; once the
// holder stops renewing, the second takes it after LeaseDuration (counted
// from when it last saw a renewal), with one more transition; the old
// holder then sees it has lost.
func TestLeaseIsTakenOverOnlyAfterLeaseDuration(t *testing.T) {
	env := apiservertest.New(t)
	ctx := context.Background()
	a, b := candidate(t, env.Client, env.Clock, "a"), candidate(t, env.Client, env.Clock, "b")

	require.True(t, a.TryAcquireOrRenew(ctx), "a creates the lease")
	assert.False(t, b.TryAcquireOrRenew(ctx), "held by a")
	l, err := env.Client.Leases().Get(ctx, "kube-system", "kube-controller-manager")
	require.NoError(t, err)
	assert.Equal(t, "a", *l.Spec.HolderIdentity)
	assert.Equal(t, int32(15), *l.Spec.LeaseDurationSeconds)
	assert.Equal(t, int32(0), *l.Spec.LeaseTransitions)

	for range 10 { // a renews every retry period: b never takes over
		env.Clock.Step(DefaultRetryPeriod)
		require.True(t, a.TryAcquireOrRenew(ctx))
		require.False(t, b.TryAcquireOrRenew(ctx))
	}
	// a dies. b saw its last renewal just now: 14 s later it still waits.
	env.Clock.Step(DefaultLeaseDuration - time.Second)
	assert.False(t, b.TryAcquireOrRenew(ctx))
	env.Clock.Step(time.Second)
	require.True(t, b.TryAcquireOrRenew(ctx), "expired: b takes over")
	assert.True(t, b.IsLeader())
	l, err = env.Client.Leases().Get(ctx, "kube-system", "kube-controller-manager")
	require.NoError(t, err)
	assert.Equal(t, "b", *l.Spec.HolderIdentity)
	assert.Equal(t, int32(1), *l.Spec.LeaseTransitions)
	assert.True(t, l.Spec.AcquireTime.Time.Equal(env.Clock.Now()))

	assert.False(t, a.TryAcquireOrRenew(ctx), "a comes back: b holds it")
	assert.False(t, a.IsLeader())
	assert.Equal(t, "b", a.Holder())
}

// Two candidates that both saw the Lease expire write it from the same
// resourceVersion: exactly one wins, the other gets a Conflict.
func TestRaceForAnExpiredLeaseHasOneWinner(t *testing.T) {
	env := apiservertest.New(t)
	ctx := context.Background()
	old := candidate(t, env.Client, env.Clock, "old")
	require.True(t, old.TryAcquireOrRenew(ctx))
	b, c := candidate(t, env.Client, env.Clock, "b"), candidate(t, env.Client, env.Clock, "c")
	require.False(t, b.TryAcquireOrRenew(ctx))
	require.False(t, c.TryAcquireOrRenew(ctx))
	env.Clock.Step(DefaultLeaseDuration)

	var wg sync.WaitGroup
	won := make([]bool, 2)
	for i, le := range []*LeaderElector{b, c} {
		wg.Add(1)
		go func() { defer wg.Done(); won[i] = le.TryAcquireOrRenew(ctx) }()
	}
	wg.Wait()
	assert.NotEqual(t, won[0], won[1], "exactly one winner: %v", won)
}

// Run on the fake clock: the leader's OnStartedLeading runs; when its
// renewals stop succeeding (its Run ends with ReleaseOnCancel), the other
// candidate's Run takes over and its OnStartedLeading runs.
func TestRunHandsOverWhenTheLeaderStops(t *testing.T) {
	env := apiservertest.New(t)
	leading := make(chan string, 4)
	run := func(ctx context.Context, id string, release bool) *LeaderElector {
		le, err := New(Config{Client: env.Client, Clock: env.Clock, Namespace: "kube-system", Name: "kube-scheduler",
			Identity: id, ReleaseOnCancel: release,
			OnStartedLeading: func(context.Context) { leading <- id }})
		require.NoError(t, err)
		return le
	}
	ctxA, stopA := context.WithCancel(context.Background())
	a := run(ctxA, "a", true)
	doneA := make(chan struct{})
	go func() { defer close(doneA); a.Run(ctxA) }()
	require.Equal(t, "a", <-leading)

	ctxB, stopB := context.WithCancel(context.Background())
	defer stopB()
	b := run(ctxB, "b", false)
	doneB := make(chan struct{})
	go func() { defer close(doneB); b.Run(ctxB) }()

	stopA() // a releases the lease as it stops
	<-doneA
	released := env.Clock.Now()
	// b retries every RetryPeriod of fake time: step until it leads.
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case id := <-leading:
			assert.Equal(t, "b", id)
			assert.Less(t, env.Clock.Now().Sub(released), DefaultLeaseDuration, "released: no need to wait for expiry")
			stopB()
			<-doneB
			return
		default:
		}
		require.True(t, time.Now().Before(deadline), "b never took over")
		env.Clock.Step(100 * time.Millisecond)
		time.Sleep(time.Millisecond) // let b's goroutine react to the timer; the loop waits on the condition
	}
}

func TestConfigIsChecked(t *testing.T) {
	env := apiservertest.New(t)
	_, err := New(Config{Client: env.Client, Clock: env.Clock, Namespace: "kube-system", Name: "x", Identity: "a",
		LeaseDuration: 10 * time.Second, RenewDeadline: 10 * time.Second})
	assert.EqualError(t, err, "leaseDuration must be greater than renewDeadline")
	_, err = New(Config{Client: env.Client, Clock: env.Clock, Namespace: "kube-system", Name: "x"})
	assert.Error(t, err)
}

// Step is one round of the acquire/renew loop: a candidate leads from the
// attempt that wins the Lease; a leader that finds another holder in the
// Lease (it was taken over while this one was stalled) gives up at once.
func TestStepLeadsAndGivesUp(t *testing.T) {
	env := apiservertest.New(t)
	ctx := context.Background()
	a, b := candidate(t, env.Client, env.Clock, "a"), candidate(t, env.Client, env.Clock, "b")
	require.True(t, a.Step(ctx))
	require.False(t, b.Step(ctx))
	assert.True(t, a.Leading())
	assert.False(t, b.Leading())

	// a stalls (a stopped process): b sees no renewal for LeaseDuration.
	env.Clock.Step(DefaultRetryPeriod)
	require.False(t, b.Step(ctx))
	env.Clock.Step(DefaultLeaseDuration)
	require.True(t, b.Step(ctx), "expired: b leads")
	assert.True(t, b.Leading())
	assert.True(t, a.Leading(), "a has not looked yet")
	assert.False(t, a.Step(ctx), "a reads b's Lease and stops leading")
	assert.False(t, a.Leading())
}

// A leader whose renewals fail (its API server is unreachable) keeps
// leading until RenewDeadline has passed since its last good renewal,
// then gives up (client-go's renew loop).
func TestStepGivesUpAfterRenewDeadline(t *testing.T) {
	env := apiservertest.New(t)
	ctx := context.Background()
	down := &unreachable{next: &client.InProcessTransport{Handler: env.Server.Handler()}}
	cl, err := client.New(client.Config{Server: "http://in-process", Transport: down})
	require.NoError(t, err)
	a := candidate(t, cl, env.Clock, "a")
	require.True(t, a.Step(ctx))
	down.off.Store(true)
	for range 4 { // 8 s of failed renewals: within the 10 s deadline
		env.Clock.Step(DefaultRetryPeriod)
		require.True(t, a.Step(ctx), "still leading at %s", env.Clock.Now().Sub(apiservertest.Start))
	}
	env.Clock.Step(DefaultRetryPeriod)
	assert.False(t, a.Step(ctx), "10 s without a renewal: a gives up")
	assert.False(t, a.Leading())
}

// unreachable fails every request while off is set.
type unreachable struct {
	next http.RoundTripper
	off  atomic.Bool
}

func (u *unreachable) RoundTrip(r *http.Request) (*http.Response, error) {
	if u.off.Load() {
		return nil, errors.New("dial tcp: connection refused")
	}
	return u.next.RoundTrip(r)
}
