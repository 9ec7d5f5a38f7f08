package cluster

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/kubesim/kubesim/scheduler"
)

// Live mode's controller switches: kube-controller-manager's --controllers
// is read at start, and turning a controller off there means restarting
// the process without it. Here a switch stops the component's loops (its
// context ends) and, turned on again, starts a fresh one built from its
// row of the wiring table: a restarted controller, with empty caches that
// it fills by listing, as after a restart. The kubelets have no switch
// (a node is stopped instead), nor do components run under leader
// election (the elected group starts and stops together).

// liveState is what live mode needs to switch components while they run.
type liveState struct {
	mu sync.Mutex
	// ctx is Start's; nil before Start.
	ctx context.Context
	// cancel stops the running component at an index of c.components;
	// ran marks one that has run (it cannot run twice: a new one is built).
	cancel map[int]context.CancelFunc
	ran    map[int]bool
	// decisions is the scheduler's observer, given again to a new one.
	decisions func(scheduler.Decision)
}

// startLive notes Start's context: the switches act from now on.
func (c *Cluster) startLive(ctx context.Context) {
	c.live.mu.Lock()
	defer c.live.mu.Unlock()
	c.live.ctx, c.live.cancel, c.live.ran = ctx, map[int]context.CancelFunc{}, map[int]bool{}
}

// runLive runs component i until ctx ends or its switch is turned off.
func (c *Cluster) runLive(ctx context.Context, i int) {
	c.live.mu.Lock()
	defer c.live.mu.Unlock()
	cctx, cancel := context.WithCancel(ctx)
	c.live.cancel[i], c.live.ran[i] = cancel, true
	c.mu.Lock()
	comp := c.components[i].comp
	c.mu.Unlock()
	go comp.Run(cctx)
}

// switchLive applies a switch to the running components of name.
func (c *Cluster) switchLive(name string, on bool) error {
	c.live.mu.Lock()
	started := c.live.ctx != nil
	c.live.mu.Unlock()
	if !started {
		return nil // Start will honour it
	}
	var idx []int
	c.mu.Lock()
	for i, b := range c.components {
		if b.name != name {
			continue
		}
		if strings.HasPrefix(name, "kubelet/") || b.row.build == nil {
			c.mu.Unlock()
			return fmt.Errorf("%s has no switch in live mode: stop its node instead", name)
		}
		if c.cfg.LeaderElection != nil && b.lease != "" {
			c.mu.Unlock()
			return fmt.Errorf("%s runs under leader election: it starts and stops with its Lease", name)
		}
		idx = append(idx, i)
	}
	c.mu.Unlock()
	for _, i := range idx {
		if err := c.switchOne(i, on); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) switchOne(i int, on bool) error {
	c.live.mu.Lock()
	cancel, running := c.live.cancel[i]
	ran, ctx := c.live.ran[i], c.live.ctx
	c.live.mu.Unlock()
	if !on {
		if running {
			cancel()
			c.live.mu.Lock()
			delete(c.live.cancel, i)
			c.live.mu.Unlock()
		}
		return nil
	}
	if running {
		return nil
	}
	if ran {
		// A component runs once: build a new one, as a restart would.
		c.mu.Lock()
		row := c.components[i].row
		c.mu.Unlock()
		cl, _ := c.client(row.userAgent, c.identity(row.name, row.userAgent))
		comp, err := row.build(ControllerContext{Client: cl, Clock: c.clock, Mode: c.cfg.Mode, Logger: c.logger})
		if err != nil {
			return fmt.Errorf("%s: %w", row.name, err)
		}
		c.instrument(comp)
		c.live.mu.Lock()
		f := c.live.decisions
		c.live.mu.Unlock()
		if s, ok := comp.(*scheduler.Scheduler); ok && f != nil {
			s.ObserveDecisions(f)
		}
		c.mu.Lock()
		c.components[i].comp = comp
		c.mu.Unlock()
	}
	c.runLive(ctx, i)
	return nil
}
