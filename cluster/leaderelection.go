package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/rbacregistry"
	"github.com/kubesim/kubesim/client/leaderelection"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// The Leases kube-controller-manager and kube-scheduler hold in
// kube-system while they lead: each elects separately.
const (
	ControllerManagerLease = "kube-controller-manager"
	SchedulerLease         = "kube-scheduler"
	leaseNamespace         = "kube-system"
)

// LeaderElection turns on leader election (--leader-elect): several
// clusters over one store (kubesim serve over one etcd) then run the
// controller manager's loops, node lifecycle included, only in the holder
// of the kube-controller-manager Lease, and the scheduler only in the
// holder of the kube-scheduler Lease. The API server and the kubelets run
// everywhere.
type LeaderElection struct {
	// Identity is this cluster's holderIdentity (unique per process).
	Identity string
	// Candidates, in step mode, are the controller managers standing for
	// kube-system/kube-controller-manager inside the one cluster, by
	// holderIdentity, each as if it were its own process: its own elector
	// and its own copy of every controller, which run only while it leads
	// (StopCandidate kills one). The scheduler is not elected in step
	// mode. Live mode uses Identity instead: one candidate per process.
	Candidates []string
	// LeaseDuration, RenewDeadline, RetryPeriod: zero means
	// kube-controller-manager's 15 s, 10 s and 2 s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// electors are the running candidates, by Lease name; candidates the
// step-mode ones, in order.
type electors struct {
	mu         sync.Mutex
	by         map[string]*leaderelection.LeaderElector
	candidates []*candidate
}

// validate checks the config against the run mode (nil: no election).
func (le *LeaderElection) validate(mode runmode.Mode) error {
	if le == nil {
		return nil
	}
	if mode != runmode.Step {
		if len(le.Candidates) > 0 {
			return errors.New("cluster: leader election candidates are for step mode; a live cluster is one candidate (Identity)")
		}
		return nil
	}
	if len(le.Candidates) < 2 {
		return errors.New("cluster: leader election in step mode needs two or more candidates")
	}
	for i, id := range le.Candidates {
		if id == "" || slices.Contains(le.Candidates[:i], id) {
			return fmt.Errorf("cluster: leader election candidate %q: identities must be unique and not empty", id)
		}
	}
	return nil
}

// stepCandidates reports whether this step-mode cluster runs several
// controller managers that elect a leader.
func (c *Cluster) stepCandidates() bool {
	return c.stepper != nil && c.cfg.LeaderElection != nil
}

// candidate is one controller manager "process" of a step-mode cluster.
type candidate struct {
	identity string
	elector  *leaderelection.LeaderElector
	// stopped is set when the process is killed (StopCandidate).
	stopped atomic.Bool
}

// Stopped pauses the candidate's elector loop once its process is killed
// (stepper.Pausable).
func (p *candidate) Stopped() bool { return p.stopped.Load() }

// leaderGate pauses a candidate's controllers unless it is running and
// leads: the real kube-controller-manager starts them, informers included,
// only in OnStartedLeading.
type leaderGate struct{ p *candidate }

func (g leaderGate) Stopped() bool { return g.p.stopped.Load() || !g.p.elector.Leading() }

// addCandidates adds, for each step-mode candidate, its elector as a loop
// of the stepper and its own copy of the controller manager's rows, gated
// by its leadership. The elector's loop is one key, the Lease, requeued
// every RetryPeriod on the fake clock: each visit is one Step (one
// acquire or renew attempt), so the trace shows the election as the
// writes on the Lease. It is periodic, like a heartbeat: runUntilStable
// does not wait for it.
func (c *Cluster) addCandidates(rows []wiring) error {
	cfg := c.cfg.LeaderElection
	key := leaseNamespace + "/" + ControllerManagerLease
	for _, id := range cfg.Candidates {
		cl, rec := c.client("leader-election", apiserver.FixedIdentity(&controllerManagerUser))
		el, err := leaderelection.New(leaderelection.Config{Client: cl, Clock: c.clock, Namespace: leaseNamespace,
			Name: ControllerManagerLease, Identity: id, LeaseDuration: cfg.LeaseDuration, RenewDeadline: cfg.RenewDeadline,
			RetryPeriod: cfg.RetryPeriod, Logger: c.logger})
		if err != nil {
			return err
		}
		p := &candidate{identity: id, elector: el}
		loop, err := controllers.New(controllers.Config{Name: "leaderelection", Clock: c.clock, Mode: c.cfg.Mode,
			Periodic: true, Logger: c.logger,
			Reconciler: controllers.ReconcileFunc(func(ctx context.Context, _ string) (controllers.Result, error) {
				el.Step(ctx)
				return controllers.Result{RequeueAfter: el.RetryPeriod()}, nil
			})})
		if err != nil {
			return err
		}
		loop.Enqueue(key, controllers.Cause{Event: "kube-controller-manager started"})
		c.stepper.Add(stepper.Actor{Loops: []*controllers.Controller{loop}, Writes: rec, Pausable: p, Process: id})
		for _, w := range rows {
			if _, err := c.addIn(w, ControllerManagerLease, leaderGate{p}, id); err != nil {
				return err
			}
		}
		c.electors.candidates = append(c.electors.candidates, p)
	}
	return nil
}

// StopCandidate kills a step-mode controller manager, as kill -9 does:
// its controllers stop, and it neither renews nor releases its Lease, so
// another candidate takes over only when the Lease has not been renewed
// for its duration.
func (c *Cluster) StopCandidate(identity string) error {
	for _, p := range c.electors.candidates {
		if p.identity == identity {
			p.stopped.Store(true)
			return nil
		}
	}
	var ids []string
	for _, p := range c.electors.candidates {
		ids = append(ids, p.identity)
	}
	if len(ids) == 0 {
		return errors.New("this cluster runs no leader election candidates")
	}
	return fmt.Errorf("no controller manager %q (candidates: %v)", identity, ids)
}

// Leading reports whether this cluster holds a Lease
// (ControllerManagerLease, SchedulerLease); without leader election it
// always leads.
func (c *Cluster) Leading(lease string) bool {
	if c.cfg.LeaderElection == nil {
		return true
	}
	c.electors.mu.Lock()
	le := c.electors.by[lease]
	c.electors.mu.Unlock()
	return le != nil && le.IsLeader()
}

// runElected runs comps while this cluster holds the Lease named lease.
// Losing the Lease stops them and ends the candidacy: the real component
// exits ("leaderelection lost") and its supervisor starts a fresh
// process; here the loops cannot be started twice, so the server goes on
// as an API server only for that component, and says so in its log.
func (c *Cluster) runElected(ctx context.Context, lease string, comps []Component) {
	le := c.cfg.LeaderElection
	// The candidate writes its Lease as the component it elects for:
	// system:kube-scheduler or system:kube-controller-manager, whose
	// bootstrap roles may update their Leases in kube-system.
	who := &controllerManagerUser
	if lease == SchedulerLease {
		who = &authn.UserInfo{Name: rbacregistry.KubeScheduler, Groups: []string{authn.AllAuthenticated}}
	}
	cl, _ := c.client(lease+"/leader-election", apiserver.FixedIdentity(who))
	el, err := leaderelection.New(leaderelection.Config{Client: cl, Clock: c.clock, Namespace: leaseNamespace, Name: lease,
		Identity: le.Identity, LeaseDuration: le.LeaseDuration, RenewDeadline: le.RenewDeadline, RetryPeriod: le.RetryPeriod,
		ReleaseOnCancel: true, Logger: c.logger,
		OnStartedLeading: func(leadCtx context.Context) {
			var wg sync.WaitGroup
			for _, comp := range comps {
				wg.Add(1)
				go func() { defer wg.Done(); comp.Run(leadCtx) }()
			}
			wg.Wait()
		}})
	if err != nil {
		c.logger.Error("leader election", "lease", lease, "err", err)
		return
	}
	c.electors.mu.Lock()
	if c.electors.by == nil {
		c.electors.by = map[string]*leaderelection.LeaderElector{}
	}
	c.electors.by[lease] = el
	c.electors.mu.Unlock()
	el.Run(ctx)
	if ctx.Err() == nil {
		c.logger.Error("leaderelection lost", "lease", lease, "identity", le.Identity)
	}
}
