package clientgo

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/kubesim/kubesim/e2e/framework"
)

// candidate runs client-go's leader election for identity until its
// context ends, reporting when it leads and when it stops leading.
type candidate struct {
	leading, stopped chan struct{}
	done             chan struct{}
	cancel           context.CancelFunc
}

func runCandidate(t *testing.T, cs kubernetes.Interface, identity string) *candidate {
	t.Helper()
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Name: "e2e-leader", Namespace: "default"},
		Client:     cs.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
	}
	ctx, cancel := context.WithCancel(t.Context())
	c := &candidate{leading: make(chan struct{}), stopped: make(chan struct{}), done: make(chan struct{}), cancel: cancel}
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock,
		// Long enough that a loaded machine never makes the leader miss
		// its renew deadline; the handover tested here does not wait for
		// expiry at all, since the leader releases the lease, and the
		// other candidate retries every RetryPeriod.
		LeaseDuration:   15 * time.Second,
		RenewDeadline:   10 * time.Second,
		RetryPeriod:     100 * time.Millisecond,
		ReleaseOnCancel: true,
		Name:            identity,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { close(c.leading) },
			OnStoppedLeading: func() { close(c.stopped) },
		},
	})
	require.NoError(t, err)
	go func() {
		defer close(c.done)
		le.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-c.done })
	return c
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(wait):
		t.Fatalf("%s: not within %v", what, wait)
	}
}

// TestLeaderElectionLeaseLock runs two candidates of client-go's
// leader election on one coordination.k8s.io Lease: the first leads and
// the Lease names it; when it steps down it releases the Lease and the
// second takes over, counted as a transition.
func TestLeaderElectionLeaseLock(t *testing.T) {
	k := framework.Start(t, framework.Options{APIServerOnly: true})
	cs := k.Clientset(t)
	ctx := t.Context()
	leases := cs.CoordinationV1().Leases("default")

	a := runCandidate(t, cs, "candidate-a")
	waitClosed(t, a.leading, "candidate-a leads")
	lease, err := leases.Get(ctx, "e2e-leader", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, lease.Spec.HolderIdentity)
	assert.Equal(t, "candidate-a", *lease.Spec.HolderIdentity)
	require.NotNil(t, lease.Spec.LeaseDurationSeconds)
	assert.Equal(t, int32(15), *lease.Spec.LeaseDurationSeconds)
	require.NotNil(t, lease.Spec.AcquireTime)
	require.NotNil(t, lease.Spec.RenewTime)
	transitions := int32(0)
	if lease.Spec.LeaseTransitions != nil {
		transitions = *lease.Spec.LeaseTransitions
	}

	b := runCandidate(t, cs, "candidate-b")
	// b waits while a renews: the lease keeps naming a, its renewTime
	// moving on.
	firstRenew := lease.Spec.RenewTime.Time
	require.Eventually(t, func() bool {
		l, err := leases.Get(ctx, "e2e-leader", metav1.GetOptions{})
		return err == nil && *l.Spec.HolderIdentity == "candidate-a" && l.Spec.RenewTime.After(firstRenew)
	}, wait, poll, "candidate-a renews its lease")
	select {
	case <-b.leading:
		t.Fatal("candidate-b leads while candidate-a holds the lease")
	default:
	}

	a.cancel()
	waitClosed(t, a.stopped, "candidate-a stops leading")
	waitClosed(t, b.leading, "candidate-b takes over")
	lease, err = leases.Get(ctx, "e2e-leader", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "candidate-b", *lease.Spec.HolderIdentity)
	require.NotNil(t, lease.Spec.LeaseTransitions)
	assert.Equal(t, transitions+1, *lease.Spec.LeaseTransitions, "the handover is one transition")
}
