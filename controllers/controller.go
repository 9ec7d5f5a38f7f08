package controllers

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/client/workqueue"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/runmode"
)

// Result tells the controller what to do with a key after Reconcile.
type Result struct {
	// Requeue puts the key back at once (rate-limited).
	Requeue bool
	// RequeueAfter puts the key back after this long on the clock.
	RequeueAfter time.Duration
}

// Reconciler closes the gap between desired and actual state for one key
// ("namespace/name").
type Reconciler interface {
	Reconcile(ctx context.Context, key string) (Result, error)
}

// ReconcileFunc adapts a function to Reconciler.
type ReconcileFunc func(ctx context.Context, key string) (Result, error)

// Reconcile implements Reconciler.
func (f ReconcileFunc) Reconcile(ctx context.Context, key string) (Result, error) { return f(ctx, key) }

// Source is something a controller watches: an informer.
type Source interface {
	Run(ctx context.Context)
	Sync(ctx context.Context) error
	HasSynced() bool
}

// Cause is the watch event that put a key in the queue, for the causality
// trace: "the ReplicaSet's reconcile, triggered by the DELETED event of pod
// x at revision N".
type Cause struct {
	Event           string // ADDED, MODIFIED, DELETED, or "requeue", "timer"
	Kind            string
	Namespace, Name string
	ResourceVersion string
}

// String renders the cause for the trace.
func (c Cause) String() string {
	if c.Kind == "" {
		return c.Event
	}
	name := c.Name
	if c.Namespace != "" {
		name = c.Namespace + "/" + c.Name
	}
	if c.ResourceVersion != "" {
		return fmt.Sprintf("%s %s %s@%s", c.Event, c.Kind, name, c.ResourceVersion)
	}
	return fmt.Sprintf("%s %s %s", c.Event, c.Kind, name)
}

// Reconciling is one reconcile in progress, as the context of the
// requests it makes carries it: which controller, which key, and the
// watch event that queued the key. Live mode has no trace; the web page
// links each write to its cause with it (the pointer tells one reconcile
// from the next of the same key).
type Reconciling struct {
	Controller, Key string
	Cause           Cause
}

type reconcilingKey struct{}

// ReconcilingFrom returns the reconcile a request was made in, if any.
func ReconcilingFrom(ctx context.Context) (*Reconciling, bool) {
	r, ok := ctx.Value(reconcilingKey{}).(*Reconciling)
	return r, ok
}

// Config builds a Controller.
type Config struct {
	Name       string
	Reconciler Reconciler
	// Sources are the informers the controller needs synced; InformerFor
	// makes an informer and adds it here.
	Sources []Source
	// Informers is the factory InformerFor takes informers from: the
	// controller manager's shared factory (nil: private informers).
	Informers *cache.Factory
	Clock     clock.Clock
	// Mode is how the controller runs: its queue sets timers for delayed
	// keys in Live mode only (Step mode: the stepper moves time).
	Mode runmode.Mode
	// Workers is the number of concurrent reconciles in live mode (1).
	Workers int
	// Periodic marks a loop that requeues itself forever (a heartbeat, a
	// monitor): the stepper does not wait for it to settle.
	Periodic bool
	Logger   *slog.Logger
}

// Controller runs one Reconciler over a queue fed by its sources.
type Controller struct {
	name     string
	rec      Reconciler
	sources  []Source
	queue    *workqueue.Queue
	workers  int
	periodic bool
	logger   *slog.Logger
	// informers and informerLogger make InformerFor's informers (they log
	// with the Config's logger, unlabelled).
	informers      *cache.Factory
	informerLogger *slog.Logger

	mu     sync.Mutex
	causes map[string]Cause
	// delayed marks causes of keys waiting on a timer: an event that
	// queues the key sooner replaces such a cause.
	delayed map[string]bool
}

// New checks cfg and returns the controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Name == "" || cfg.Reconciler == nil || cfg.Clock == nil {
		return nil, fmt.Errorf("controllers: Name, Reconciler and Clock are required")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Controller{name: cfg.Name, rec: cfg.Reconciler, sources: cfg.Sources,
		queue: workqueue.New(workqueue.Config{Clock: cfg.Clock, Mode: cfg.Mode}), workers: cfg.Workers, periodic: cfg.Periodic,
		logger: cfg.Logger.With("controller", cfg.Name), informers: cfg.Informers, informerLogger: cfg.Logger,
		causes: map[string]Cause{}, delayed: map[string]bool{}}, nil
}

// Name is the controller's name, as --controllers uses it.
func (c *Controller) Name() string { return c.name }

// Periodic reports whether the loop requeues itself forever.
func (c *Controller) Periodic() bool { return c.periodic }

// AddSource adds an informer the controller needs synced.
func (c *Controller) AddSource(s Source) { c.sources = append(c.sources, s) }

// Enqueue queues key now; cause says why (the first cause of a waiting key
// is kept).
func (c *Controller) Enqueue(key string, cause Cause) {
	c.mu.Lock()
	if _, ok := c.causes[key]; !ok || c.delayed[key] {
		c.causes[key] = cause
		delete(c.delayed, key)
	}
	c.mu.Unlock()
	c.queue.Add(key)
}

// EnqueueAfter queues key after d.
func (c *Controller) EnqueueAfter(key string, d time.Duration, cause Cause) {
	c.noteDelayedCause(key, cause)
	c.queue.AddAfter(key, d)
}

// StepInfo describes one reconcile, for the trace.
type StepInfo struct {
	Key    string
	Cause  Cause
	Result Result
	Err    error
}

// process reconciles one key taken from the queue.
func (c *Controller) process(ctx context.Context, key string) StepInfo {
	defer c.queue.Done(key)
	c.mu.Lock()
	cause := c.causes[key]
	delete(c.causes, key)
	delete(c.delayed, key)
	c.mu.Unlock()
	// The writes the reconcile makes carry it in their context: live
	// mode has no trace, and this is how a write is linked to its cause.
	ctx = context.WithValue(ctx, reconcilingKey{}, &Reconciling{Controller: c.name, Key: key, Cause: cause})
	res, err := c.rec.Reconcile(ctx, key)
	switch {
	case err != nil:
		c.logger.Debug("reconcile failed; will retry", "key", key, "err", err)
		c.noteDelayedCause(key, Cause{Event: "retry after error"})
		c.queue.AddRateLimited(key)
	case res.RequeueAfter > 0:
		c.queue.Forget(key)
		c.noteDelayedCause(key, Cause{Event: "requeue after " + res.RequeueAfter.String()})
		c.queue.AddAfter(key, res.RequeueAfter)
	case res.Requeue:
		c.noteDelayedCause(key, Cause{Event: "requeue"})
		c.queue.AddRateLimited(key)
	default:
		c.queue.Forget(key)
	}
	return StepInfo{Key: key, Cause: cause, Result: res, Err: err}
}

// noteDelayedCause records why a key waits on a timer, unless an event
// already queued it.
func (c *Controller) noteDelayedCause(key string, cause Cause) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.causes[key]; !ok {
		c.causes[key] = cause
		c.delayed[key] = true
	}
}

// Sync refreshes every source by listing (step mode).
func (c *Controller) Sync(ctx context.Context) error {
	for _, s := range c.sources {
		if err := s.Sync(ctx); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return nil
}

// Step reconciles one ready key, if any (step mode).
func (c *Controller) Step(ctx context.Context) (StepInfo, bool) {
	key, ok := c.queue.TryGet()
	if !ok {
		return StepInfo{}, false
	}
	return c.process(ctx, key), true
}

// SetQueueMetrics measures the controller's queue with p under the
// controller's name (workqueue_depth{name="replicaset"}, ...), as
// kube-controller-manager names each controller's queue. Call it before
// Run or the first Step; the cluster does, for every controller it builds.
// Without it the queue measures nothing.
func (c *Controller) SetQueueMetrics(p workqueue.MetricsProvider) {
	c.queue.SetMetricsProvider(c.name, p)
}

// NextDeadline is when the next delayed key becomes ready.
func (c *Controller) NextDeadline() (time.Time, bool) { return c.queue.NextDeadline() }

// Pending is the number of keys ready now.
func (c *Controller) Pending() int { return c.queue.Len() }

// Waiting are the keys queued for later (a RequeueAfter, the back-off
// after an error), not ready yet.
func (c *Controller) Waiting() []string { return c.queue.Waiting() }

// Run starts the sources, waits until they have synced, then runs workers
// until ctx ends (live mode).
func (c *Controller) Run(ctx context.Context) {
	for _, s := range c.sources {
		if st, ok := s.(interface{ Start(context.Context) }); ok {
			st.Start(ctx) // an informer: joins its loop without a goroutine of ours
			continue
		}
		go s.Run(ctx)
	}
	for _, s := range c.sources {
		for !s.HasSynced() {
			select {
			case <-ctx.Done():
				c.queue.ShutDown()
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	var wg sync.WaitGroup
	for range c.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				key, ok := c.queue.Get()
				if !ok {
					return
				}
				c.process(ctx, key)
			}
		}()
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
}
