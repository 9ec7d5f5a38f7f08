package cluster

import (
	"context"

	"errors"
	"fmt"
	"github.com/kubesim/kubesim/api"
	"time"
)

// DefaultHorizon is how far ahead RunUntilStable looks for pending work:
// timers further away (a deployment's progress deadline, a long back-off)
// do not keep the cluster "unstable".
const DefaultHorizon = 30 * time.Second

// ErrNotStepMode is returned by the stepper in live mode.
var ErrNotStepMode = errors.New("cluster: not in step mode")

// OnEntry registers f to receive every trace entry as it happens (the
// interactive stepper and the demo print them).
func (c *Cluster) OnEntry(f func(Entry)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onEntry = f
}

// Trace returns the entries so far.
func (c *Cluster) Trace() []Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Entry(nil), c.trace...)
}

func (c *Cluster) record(e Entry) {
	c.mu.Lock()
	c.trace = append(c.trace, e)
	f := c.onEntry
	c.mu.Unlock()
	if f != nil {
		f(e)
	}
}

// activeActors are the loops that may run now: enabled, and not of a
// stopped kubelet.
func (c *Cluster) activeActors() []*actor {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*actor
	for _, a := range c.actors {
		if on, known := c.enabled[a.switchName]; known && !on {
			continue
		}
		if a.kubelet != nil && a.kubelet.Stopped() {
			continue
		}
		out = append(out, a)
	}
	return out
}

// Step runs one unit of work: every active loop refreshes its view (lists),
// then the next loop in round-robin order that has a ready key reconciles
// it. It reports false when no loop had work (time did not move).
func (c *Cluster) Step(ctx context.Context) (Entry, bool, error) {
	if c.fake == nil {
		return Entry{}, false, ErrNotStepMode
	}
	all := c.activeActors()
	actors := all[:0:0]
	for _, a := range all {
		if err := a.ctrl.Sync(ctx); err != nil {
			if api.IsNotFound(err) {
				// It watches a resource not served yet (an operator
				// whose CRD is not applied yet): it has nothing to do.
				continue
			}
			return Entry{}, false, err
		}
		actors = append(actors, a)
	}
	c.mu.Lock()
	start := c.next
	c.mu.Unlock()
	for i := range actors {
		idx := (start + i) % len(actors)
		a := actors[idx]
		writes := a.rec.start()
		info, ok := a.ctrl.Step(ctx)
		a.rec.stop()
		if !ok {
			continue
		}
		c.mu.Lock()
		// Continue after this actor next time, by its place in the full
		// list, so turning loops on and off keeps the order stable.
		for j, b := range c.actors {
			if b == a {
				c.next = j + 1
			}
		}
		c.mu.Unlock()
		now := c.clock.Now()
		e := Entry{Time: now, Elapsed: now.Sub(c.started), Actor: a.ctrl.Name(), Key: info.Key,
			Cause: info.Cause.String(), Writes: *writes}
		if info.Err != nil {
			e.Err = info.Err.Error()
		}
		c.record(e)
		return e, true, nil
	}
	return Entry{}, false, nil
}

// nextDeadline is the earliest time a loop has delayed work, among the
// periodic loops too or not.
func (c *Cluster) nextDeadline(withPeriodic bool) (time.Time, bool) {
	var next time.Time
	found := false
	for _, a := range c.activeActors() {
		if a.ctrl.Periodic() && !withPeriodic {
			continue
		}
		if d, ok := a.ctrl.NextDeadline(); ok && (!found || d.Before(next)) {
			next, found = d, true
		}
	}
	if d, ok := c.fake.NextDeadline(); ok && (!found || d.Before(next)) {
		next, found = d, true
	}
	return next, found
}

// moveTo sets the fake clock to t and notes it in the trace.
func (c *Cluster) moveTo(t time.Time) {
	c.fake.SetTime(t)
	now := c.clock.Now()
	c.record(Entry{Time: now, Elapsed: now.Sub(c.started), Note: "time advances"})
}

// Limits bound RunUntilStable and Advance.
type Limits struct {
	// MaxSteps stops a run that never settles (default 10,000).
	MaxSteps int
	// Horizon is how far ahead pending timers count (DefaultHorizon).
	Horizon time.Duration
}

// RunUntilStable steps until nothing is runnable and no loop (other than
// heartbeats and monitors) has work due within the horizon, moving the
// clock to the next timer whenever nothing is runnable. It returns the
// number of steps taken.
func (c *Cluster) RunUntilStable(ctx context.Context, lim Limits) (int, error) {
	if c.fake == nil {
		return 0, ErrNotStepMode
	}
	if lim.MaxSteps <= 0 {
		lim.MaxSteps = 10000
	}
	if lim.Horizon <= 0 {
		lim.Horizon = DefaultHorizon
	}
	steps := 0
	for steps < lim.MaxSteps {
		if err := ctx.Err(); err != nil {
			return steps, err
		}
		_, did, err := c.Step(ctx)
		if err != nil {
			return steps, err
		}
		if did {
			steps++
			continue
		}
		due, ok := c.nextDeadline(false)
		if !ok || due.Sub(c.clock.Now()) > lim.Horizon {
			return steps, nil
		}
		next, _ := c.nextDeadline(true)
		if next.After(due) {
			next = due
		}
		c.moveTo(next)
	}
	return steps, fmt.Errorf("cluster: not stable after %d steps", lim.MaxSteps)
}

// Advance lets d of fake time pass, running every loop (heartbeats too)
// whose timers fall inside it, then settles at now+d.
func (c *Cluster) Advance(ctx context.Context, d time.Duration, lim Limits) (int, error) {
	if c.fake == nil {
		return 0, ErrNotStepMode
	}
	if lim.MaxSteps <= 0 {
		lim.MaxSteps = 10000
	}
	end := c.clock.Now().Add(d)
	steps := 0
	for steps < lim.MaxSteps {
		_, did, err := c.Step(ctx)
		if err != nil {
			return steps, err
		}
		if did {
			steps++
			continue
		}
		next, ok := c.nextDeadline(true)
		if !ok || next.After(end) {
			if c.clock.Now().Before(end) {
				c.moveTo(end)
				continue
			}
			return steps, nil
		}
		c.moveTo(next)
	}
	return steps, fmt.Errorf("cluster: advancing %s took more than %d steps", d, lim.MaxSteps)
}
