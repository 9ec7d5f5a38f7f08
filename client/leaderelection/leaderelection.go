package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
)

// The defaults of kube-controller-manager and kube-scheduler
// (--leader-elect-lease-duration, -renew-deadline, -retry-period).
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// Config says which Lease to hold, as whom, and what to do while leading.
type Config struct {
	// Client writes the Lease.
	Client *client.Client
	// Namespace and Name name the Lease (kube-system/kube-controller-manager).
	Namespace, Name string
	// Identity is this candidate's holderIdentity; it must be unique
	// among the candidates (the real components use HOSTNAME_UUID).
	Identity string
	// Clock times the retries and the expiry (the cluster's clock).
	Clock clock.Clock
	// LeaseDuration is how long the others wait, after the last renewal
	// they saw, before taking over; RenewDeadline how long the leader
	// keeps trying to renew before it gives up leading; RetryPeriod the
	// time between attempts. Zero means the default.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// OnStartedLeading runs, in its own goroutine, when this candidate
	// becomes leader; its context ends when leadership is lost or Run's
	// context ends. OnStoppedLeading runs when Run returns after leading.
	OnStartedLeading func(ctx context.Context)
	OnStoppedLeading func()
	// ReleaseOnCancel empties holderIdentity when Run's context ends, so
	// that another candidate takes over at once rather than after
	// LeaseDuration (client-go's option of the same name).
	ReleaseOnCancel bool
	Logger          *slog.Logger
}

// LeaderElector runs one candidate's side of the election.
type LeaderElector struct {
	cfg Config

	mu sync.Mutex
	// observed is the last Lease read or written, observedTime when this
	// candidate saw its holder or renewTime change (its own clock, not the
	// holder's: clocks of different machines disagree).
	observed     *coordinationv1.Lease
	observedTime time.Time
	// leading is set from the successful attempt that made this
	// candidate leader until it gives up; lastRenew is when its last
	// attempt succeeded (Step).
	leading   bool
	lastRenew time.Time
}

// New checks the config and fills in the defaults.
func New(cfg Config) (*LeaderElector, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("leaderelection: Client and Clock are required")
	}
	if cfg.Namespace == "" || cfg.Name == "" || cfg.Identity == "" {
		return nil, errors.New("leaderelection: Namespace, Name and Identity are required")
	}
	if cfg.LeaseDuration == 0 {
		cfg.LeaseDuration = DefaultLeaseDuration
	}
	if cfg.RenewDeadline == 0 {
		cfg.RenewDeadline = DefaultRenewDeadline
	}
	if cfg.RetryPeriod == 0 {
		cfg.RetryPeriod = DefaultRetryPeriod
	}
	// client-go's own checks, with its wording.
	if cfg.LeaseDuration <= cfg.RenewDeadline {
		return nil, errors.New("leaseDuration must be greater than renewDeadline")
	}
	if cfg.RenewDeadline <= cfg.RetryPeriod {
		return nil, errors.New("renewDeadline must be greater than retryPeriod")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &LeaderElector{cfg: cfg}, nil
}

// Run acquires the Lease (retrying every RetryPeriod), runs
// OnStartedLeading, renews the Lease until a renewal has failed for
// RenewDeadline or ctx ends, then stops leading and returns. A component
// that lost the Lease is restarted by its caller, as the real ones exit
// and are restarted by their supervisor. Run is only a loop around Step
// on the clock; the stepper calls Step itself.
func (le *LeaderElector) Run(ctx context.Context) {
	for !le.Step(ctx) {
		if !le.wait(ctx) {
			return
		}
	}
	leadCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if le.cfg.OnStartedLeading != nil {
			le.cfg.OnStartedLeading(leadCtx)
		}
	}()
	for le.wait(ctx) && le.Step(ctx) {
	}
	stop()
	<-done
	if le.cfg.ReleaseOnCancel && ctx.Err() != nil {
		le.release()
	}
	if le.cfg.OnStoppedLeading != nil {
		le.cfg.OnStoppedLeading()
	}
}

// wait waits one RetryPeriod on the clock; false if ctx ended first.
func (le *LeaderElector) wait(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-le.cfg.Clock.After(le.cfg.RetryPeriod):
		return true
	}
}

// Step is one round of client-go's acquire and renew loops: one
// TryAcquireOrRenew, and what it means for leading. A candidate that did
// not lead leads once an attempt succeeds; a leader stays leader while its
// renewals succeed, and gives up when none has succeeded for
// RenewDeadline or the Lease it read names another holder ("failed to
// renew lease"). It reports whether this candidate leads afterwards. The
// caller calls it every RetryPeriod (RetryPeriod).
func (le *LeaderElector) Step(ctx context.Context) bool {
	ok := le.TryAcquireOrRenew(ctx)
	now := le.cfg.Clock.Now()
	le.mu.Lock()
	defer le.mu.Unlock()
	if ok {
		if !le.leading {
			le.cfg.Logger.Info("successfully acquired lease", "lease", le.cfg.Namespace+"/"+le.cfg.Name, "identity", le.cfg.Identity)
		}
		le.leading, le.lastRenew = true, now
		return true
	}
	if !le.leading || ctx.Err() != nil {
		return le.leading
	}
	if now.Sub(le.lastRenew) >= le.cfg.RenewDeadline || le.observed == nil || holder(le.observed) != le.cfg.Identity {
		le.cfg.Logger.Info("failed to renew lease", "lease", le.cfg.Namespace+"/"+le.cfg.Name, "identity", le.cfg.Identity)
		le.leading = false
	}
	return le.leading
}

// Leading reports whether this candidate leads: it acquired the Lease
// and has not given it up since (Step).
func (le *LeaderElector) Leading() bool {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.leading
}

// RetryPeriod is the time between two Steps.
func (le *LeaderElector) RetryPeriod() time.Duration { return le.cfg.RetryPeriod }

// TryAcquireOrRenew makes one attempt: it creates the Lease if there is
// none, renews it if this candidate holds it, takes it over if its holder
// has not renewed it for LeaseDuration (or released it), and otherwise
// leaves it. It reports whether this candidate holds the Lease afterwards.
// The stepper and tests call it directly.
func (le *LeaderElector) TryAcquireOrRenew(ctx context.Context) bool {
	leases := le.cfg.Client.Leases()
	now := le.cfg.Clock.Now()
	cur, err := leases.Get(ctx, le.cfg.Namespace, le.cfg.Name)
	if err != nil {
		if !api.IsNotFound(err) {
			le.cfg.Logger.Info("error retrieving lease", "err", err)
			return false
		}
		l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: le.cfg.Namespace, Name: le.cfg.Name}}
		le.fill(l, now, true)
		created, err := leases.Create(ctx, l)
		if err != nil {
			return false // AlreadyExists: another candidate was first
		}
		le.observe(created, now)
		return true
	}
	le.mu.Lock()
	if le.observed == nil || holder(le.observed) != holder(cur) || !sameTime(le.observed.Spec.RenewTime, cur.Spec.RenewTime) {
		le.observed, le.observedTime = cur, now
	}
	expiresAt := le.observedTime.Add(le.cfg.LeaseDuration)
	le.mu.Unlock()
	mine := holder(cur) == le.cfg.Identity
	if !mine && holder(cur) != "" && now.Before(expiresAt) {
		return false // held by another, not expired
	}
	next := cur.DeepCopy()
	le.fill(next, now, !mine)
	updated, err := leases.Update(ctx, next) // carries cur's resourceVersion: a race is a 409
	if err != nil {
		le.cfg.Logger.Info("failed to update lease", "err", err)
		return false
	}
	le.observe(updated, now)
	return true
}

// fill writes this candidate into spec; a new holder of an existing
// Lease gets a new acquireTime and one more transition (client-go counts
// every change of holder, a release included).
func (le *LeaderElector) fill(l *coordinationv1.Lease, now time.Time, takeover bool) {
	if takeover {
		var n int32
		if l.ResourceVersion != "" && l.Spec.LeaseTransitions != nil {
			n = *l.Spec.LeaseTransitions + 1
		} else if l.ResourceVersion != "" {
			n = 1
		}
		at := metav1.NewMicroTime(now)
		l.Spec.AcquireTime, l.Spec.LeaseTransitions = &at, &n
	}
	id := le.cfg.Identity
	secs := int32(le.cfg.LeaseDuration / time.Second)
	mt := metav1.NewMicroTime(now)
	l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.RenewTime = &id, &secs, &mt
}

// release empties holderIdentity if this candidate still holds the Lease.
func (le *LeaderElector) release() {
	le.mu.Lock()
	cur := le.observed
	le.mu.Unlock()
	if cur == nil || holder(cur) != le.cfg.Identity {
		return
	}
	next := cur.DeepCopy()
	empty := ""
	secs := int32(1)
	next.Spec.HolderIdentity, next.Spec.LeaseDurationSeconds = &empty, &secs
	ctx, cancel := context.WithTimeout(context.Background(), le.cfg.RenewDeadline)
	defer cancel()
	if updated, err := le.cfg.Client.Leases().Update(ctx, next); err == nil {
		le.observe(updated, le.cfg.Clock.Now())
	}
}

func (le *LeaderElector) observe(l *coordinationv1.Lease, now time.Time) {
	le.mu.Lock()
	defer le.mu.Unlock()
	le.observed, le.observedTime = l, now
}

// IsLeader reports whether the last Lease this candidate saw names it.
func (le *LeaderElector) IsLeader() bool {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.observed != nil && holder(le.observed) == le.cfg.Identity
}

// Holder is the holder of the last Lease this candidate saw ("" if none).
func (le *LeaderElector) Holder() string {
	le.mu.Lock()
	defer le.mu.Unlock()
	if le.observed == nil {
		return ""
	}
	return holder(le.observed)
}

func holder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func sameTime(a, b *metav1.MicroTime) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

// String names the candidate and its Lease, for logs.
func (le *LeaderElector) String() string {
	return fmt.Sprintf("%s on %s/%s", le.cfg.Identity, le.cfg.Namespace, le.cfg.Name)
}
