package stepper

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
)

// DefaultHorizon is how far ahead RunUntilStable looks for pending work:
// timers further away (a deployment's progress deadline, a long back-off)
// do not keep the cluster "unstable".
const DefaultHorizon = 30 * time.Second

// DefaultStart is the fake clock's start time unless Config says otherwise.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Pausable is a component that can be stopped and started again, as a
// kubelet is when its node fails: the stepper leaves the loops of a
// stopped one alone (no Sync, Step or NextDeadline).
type Pausable interface {
	Stopped() bool
}

// Actor is one component the stepper drives: its loops, visited in order.
type Actor struct {
	// Switch is the name that turns it on and off (--controllers, the
	// scenario's disable step).
	Switch string
	// Loops are its controllers.
	Loops []*controllers.Controller
	// Writes records the API writes of its client, for the trace (nil:
	// none shown).
	Writes *Recorder
	// Pausable is set for a component that may be stopped (a kubelet).
	Pausable Pausable
	// Process names the process the loops run in when the cluster runs
	// several copies of one component (the controller managers standing
	// for leader election): the trace names each loop process/loop. ""
	// for the usual one copy.
	Process string
}

// Config builds a Stepper.
type Config struct {
	// Start is the fake clock's start time (DefaultStart).
	Start time.Time
	// Enabled reports whether the actor of a switch name may run (nil:
	// every one).
	Enabled func(name string) bool
	// Changes, when set, returns a count that grows with every change to
	// what a list could return (a write answered by the API server, a
	// write to storage). A loop whose lists were read at the same count
	// and the same time on the clock has nothing new to read, so Step
	// does not list again for it. Kubernetes' informers never relist to
	// stay current (they watch); step mode relists before every unit of
	// work, and this keeps that from costing a list per informer per step
	// when nothing changed (about half of all steps write nothing).
	Changes func() uint64
}

// syncMark is the moment a loop's lists were last read: the change count
// and the clock's time.
type syncMark struct {
	changes uint64
	at      time.Time
}

// loop is one controller the stepper visits, with the actor it is of.
type loop struct {
	ctrl  *controllers.Controller
	actor *Actor
	// synced is when its lists were last read whole, if ok; absent says
	// that read found its resource not served.
	synced syncMark
	ok     bool
	absent bool
}

// name is the loop's name in the trace.
func (l *loop) name() string {
	if l.actor.Process != "" {
		return l.actor.Process + "/" + l.ctrl.Name()
	}
	return l.ctrl.Name()
}

// Stepper drives the loops of its actors from one goroutine on its fake
// clock.
type Stepper struct {
	clock   *clock.Fake
	started time.Time
	enabled func(string) bool
	changes func() uint64

	mu      sync.Mutex
	loops   []*loop
	next    int
	trace   []Entry
	onEntry func(Entry)
}

// New returns a stepper with its fake clock at cfg.Start.
func New(cfg Config) *Stepper {
	if cfg.Start.IsZero() {
		cfg.Start = DefaultStart
	}
	if cfg.Enabled == nil {
		cfg.Enabled = func(string) bool { return true }
	}
	fake := clock.NewFake(cfg.Start)
	return &Stepper{clock: fake, started: fake.Now(), enabled: cfg.Enabled, changes: cfg.Changes}
}

// Clock is the stepper's fake clock, to build the loops with; only the
// stepper moves it.
func (s *Stepper) Clock() clock.Clock { return s.clock }

// Add appends an actor's loops to the fixed order.
func (s *Stepper) Add(a Actor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ctrl := range a.Loops {
		s.loops = append(s.loops, &loop{ctrl: ctrl, actor: &a})
	}
}

// OnEntry registers f to receive every trace entry as it happens (the
// interactive stepper and the demo print them).
func (s *Stepper) OnEntry(f func(Entry)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onEntry = f
}

// Loop names one loop the stepper drives: its controller's name (the
// trace's actor) and the switch of the component it belongs to.
type Loop struct {
	Name, Switch string
}

// Loops lists the loops in the stepper's fixed order (the web page draws
// them as a row that lights up as each reconciles).
func (s *Stepper) Loops() []Loop {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Loop, 0, len(s.loops))
	for _, l := range s.loops {
		out = append(out, Loop{Name: l.name(), Switch: l.actor.Switch})
	}
	return out
}

// Trace returns the entries so far.
func (s *Stepper) Trace() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Entry(nil), s.trace...)
}

func (s *Stepper) record(e Entry) {
	s.mu.Lock()
	s.trace = append(s.trace, e)
	f := s.onEntry
	s.mu.Unlock()
	if f != nil {
		f(e)
	}
}

// activeLoops are the loops that may run now: of an enabled actor, and
// not of a stopped one.
func (s *Stepper) activeLoops() []*loop {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*loop
	for _, l := range s.loops {
		if !s.enabled(l.actor.Switch) {
			continue
		}
		if p := l.actor.Pausable; p != nil && p.Stopped() {
			continue
		}
		out = append(out, l)
	}
	return out
}

// Step runs one unit of work: every active loop refreshes its view (lists),
// then the next loop in round-robin order that has a ready key reconciles
// it. It reports false when no loop had work (time did not move).
func (s *Stepper) Step(ctx context.Context) (Entry, bool, error) {
	all := s.activeLoops()
	loops := all[:0:0]
	mark, marked := s.mark()
	for _, l := range all {
		if marked && l.ok && l.synced == mark {
			// Nothing was written since its lists were read.
			if !l.absent {
				loops = append(loops, l)
			}
			continue
		}
		l.ok = false
		if err := l.ctrl.Sync(ctx); err != nil {
			if api.IsNotFound(err) {
				// It watches a resource not served yet (an operator
				// whose CRD is not applied yet): it has nothing to do.
				l.synced, l.ok, l.absent = mark, marked, true
				continue
			}
			return Entry{}, false, err
		}
		l.synced, l.ok, l.absent = mark, marked, false
		loops = append(loops, l)
	}
	s.mu.Lock()
	start := s.next
	s.mu.Unlock()
	for i := range loops {
		idx := (start + i) % len(loops)
		l := loops[idx]
		l.actor.Writes.Start()
		info, ok := l.ctrl.Step(ctx)
		writes := l.actor.Writes.Stop()
		if !ok {
			continue
		}
		s.mu.Lock()
		// Continue after this loop next time, by its place in the full
		// list, so turning loops on and off keeps the order stable.
		for j, b := range s.loops {
			if b == l {
				s.next = j + 1
			}
		}
		s.mu.Unlock()
		now := s.clock.Now()
		e := Entry{Time: now, Elapsed: now.Sub(s.started), Actor: l.name(), Key: info.Key,
			Cause: info.Cause.String(), Writes: writes}
		if len(writes) > 0 {
			e.User = l.actor.Writes.User
		}
		if info.Err != nil {
			e.Err = info.Err.Error()
		}
		s.record(e)
		return e, true, nil
	}
	return Entry{}, false, nil
}

// mark reads the change count and the clock before any list: a write that
// ends after it raises the count, so the next Step lists again.
func (s *Stepper) mark() (syncMark, bool) {
	if s.changes == nil {
		return syncMark{}, false
	}
	return syncMark{changes: s.changes(), at: s.clock.Now()}, true
}

// nextDeadline is the earliest time a loop has delayed work, among the
// periodic loops too or not.
func (s *Stepper) nextDeadline(withPeriodic bool) (time.Time, bool) {
	var next time.Time
	found := false
	for _, l := range s.activeLoops() {
		if l.ctrl.Periodic() && !withPeriodic {
			continue
		}
		if d, ok := l.ctrl.NextDeadline(); ok && (!found || d.Before(next)) {
			next, found = d, true
		}
	}
	if d, ok := s.clock.NextDeadline(); ok && (!found || d.Before(next)) {
		next, found = d, true
	}
	return next, found
}

// moveTo sets the fake clock to t and notes it in the trace.
func (s *Stepper) moveTo(t time.Time) {
	s.clock.SetTime(t)
	now := s.clock.Now()
	s.record(Entry{Time: now, Elapsed: now.Sub(s.started), Note: "time advances", NoteZh: "时间推进"})
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
func (s *Stepper) RunUntilStable(ctx context.Context, lim Limits) (int, error) {
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
		_, did, err := s.Step(ctx)
		if err != nil {
			return steps, err
		}
		if did {
			steps++
			continue
		}
		due, ok := s.nextDeadline(false)
		if !ok || due.Sub(s.clock.Now()) > lim.Horizon {
			return steps, nil
		}
		next, _ := s.nextDeadline(true)
		if next.After(due) {
			next = due
		}
		s.moveTo(next)
	}
	return steps, fmt.Errorf("cluster: not stable after %d steps", lim.MaxSteps)
}

// Advance lets d of fake time pass, running every loop (heartbeats too)
// whose timers fall inside it, then settles at now+d.
func (s *Stepper) Advance(ctx context.Context, d time.Duration, lim Limits) (int, error) {
	if lim.MaxSteps <= 0 {
		lim.MaxSteps = 10000
	}
	end := s.clock.Now().Add(d)
	steps := 0
	for steps < lim.MaxSteps {
		_, did, err := s.Step(ctx)
		if err != nil {
			return steps, err
		}
		if did {
			steps++
			continue
		}
		next, ok := s.nextDeadline(true)
		if !ok || next.After(end) {
			if s.clock.Now().Before(end) {
				s.moveTo(end)
				continue
			}
			return steps, nil
		}
		s.moveTo(next)
	}
	return steps, fmt.Errorf("cluster: advancing %s took more than %d steps", d, lim.MaxSteps)
}
