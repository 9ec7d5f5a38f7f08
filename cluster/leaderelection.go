package cluster

import (
	"context"
	"sync"
	"time"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/rbacregistry"
	"github.com/kubesim/kubesim/client/leaderelection"
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
	// LeaseDuration, RenewDeadline, RetryPeriod: zero means
	// kube-controller-manager's 15 s, 10 s and 2 s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// electors are the running candidates, by Lease name.
type electors struct {
	mu sync.Mutex
	by map[string]*leaderelection.LeaderElector
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
