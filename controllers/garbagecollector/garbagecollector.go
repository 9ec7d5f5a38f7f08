package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/runmode"
)

// ControllerName is the collector's name for --controllers.
const ControllerName = "garbagecollector"

// DefaultIgnoredResources are not watched: there are many of them and they
// never own anything (the real collector ignores events by default; kubesim
// also skips leases, which the kubelets renew constantly).
func DefaultIgnoredResources() []schema.GroupResource {
	return []schema.GroupResource{
		{Group: "", Resource: "events"},
		{Group: "events.k8s.io", Resource: "events"},
		{Group: "coordination.k8s.io", Resource: "leases"},
	}
}

// Config builds a GarbageCollector.
type Config struct {
	// Client talks to the API server.
	Client *client.Client
	// Resources returns the resources the server serves now; it is called
	// on every Sync (and every ResyncPeriod in live mode) so that custom
	// resources defined later are watched. When several versions of one
	// resource are listed, the first is watched.
	Resources func() []client.ResourceInfo
	// IgnoredResources are never watched (DefaultIgnoredResources when nil).
	IgnoredResources []schema.GroupResource
	// Clock is the injected clock.
	Clock clock.Clock
	// Mode is how it runs: Live, or Step under the stepper.
	Mode runmode.Mode
	// Workers is the number of concurrent reconciles in live mode (1).
	Workers int
	// ResyncPeriod is how often live mode reads Resources again (5s).
	ResyncPeriod time.Duration
	// Logger logs; nil discards.
	Logger *slog.Logger
	// Informers, when set, builds the monitors' informers (private to the
	// collector, which starts and stops them as resources come and go; a
	// factory with a cache mutation detector watches them).
	Informers *cache.Factory
}

// GarbageCollector deletes objects whose owners are gone, and carries out
// the Foreground and Orphan propagation policies.
type GarbageCollector struct {
	cfg     Config
	ignored map[schema.GroupResource]bool
	ctrl    *controllers.Controller
	mapper  *restMapper
	logger  *slog.Logger

	// mu guards the graph; handlers take it, so it is never held while an
	// informer syncs.
	mu    sync.Mutex
	graph *graph

	// monitorsMu guards monitors.
	monitorsMu sync.Mutex
	monitors   map[schema.GroupResource]*monitor
}

// monitor is the informer of one resource: a metadata informer, as in
// Kubernetes (the graph needs only owner references, finalizers and the
// deletion timestamp), which in process holds the metadata of the watch
// cache's objects rather than a decoded copy of every object.
type monitor struct {
	info     client.ResourceInfo
	informer *cache.Informer[*metav1.PartialObjectMetadata]
	// cancel stops the informer's watch in live mode (nil until started).
	cancel context.CancelFunc
}

// New checks cfg and returns the collector.
func New(cfg Config) (*GarbageCollector, error) {
	if cfg.Client == nil || cfg.Resources == nil || cfg.Clock == nil {
		return nil, fmt.Errorf("garbagecollector: Client, Resources and Clock are required")
	}
	if cfg.IgnoredResources == nil {
		cfg.IgnoredResources = DefaultIgnoredResources()
	}
	if cfg.ResyncPeriod <= 0 {
		cfg.ResyncPeriod = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	gc := &GarbageCollector{cfg: cfg, ignored: map[schema.GroupResource]bool{}, mapper: newRESTMapper(cfg.Client),
		logger: cfg.Logger.With("controller", ControllerName), graph: newGraph(),
		monitors: map[schema.GroupResource]*monitor{}}
	for _, gr := range cfg.IgnoredResources {
		gc.ignored[gr] = true
	}
	ctrl, err := controllers.New(controllers.Config{Name: ControllerName, Reconciler: gc, Clock: cfg.Clock, Mode: cfg.Mode,
		Workers: cfg.Workers, Logger: cfg.Logger, Sources: []controllers.Source{&monitorSource{gc: gc}}})
	if err != nil {
		return nil, err
	}
	gc.ctrl = ctrl
	return gc, nil
}

// Controllers returns the collector's one controller, for the stepper and
// the controller manager.
func (gc *GarbageCollector) Controllers() []*controllers.Controller {
	return []*controllers.Controller{gc.ctrl}
}

// Run runs the collector until ctx ends (live mode).
func (gc *GarbageCollector) Run(ctx context.Context) { gc.ctrl.Run(ctx) }

// Monitored lists the resources watched now, in order.
func (gc *GarbageCollector) Monitored() []client.ResourceInfo {
	gc.monitorsMu.Lock()
	defer gc.monitorsMu.Unlock()
	out := make([]client.ResourceInfo, 0, len(gc.monitors))
	for _, m := range gc.monitors {
		out = append(out, m.info)
	}
	slices.SortFunc(out, compareInfo)
	return out
}

func compareInfo(a, b client.ResourceInfo) int {
	if c := strings.Compare(a.Group, b.Group); c != 0 {
		return c
	}
	return strings.Compare(a.Resource, b.Resource)
}

// syncMonitors starts watching newly served resources and stops watching
// those no longer served. It returns the monitors in order, and the ones
// it removed.
func (gc *GarbageCollector) syncMonitors() (current, removed []*monitor) {
	want := map[schema.GroupResource]client.ResourceInfo{}
	for _, info := range gc.cfg.Resources() {
		gr := schema.GroupResource{Group: info.Group, Resource: info.Resource}
		if gc.ignored[gr] || strings.Contains(info.Resource, "/") {
			continue
		}
		if _, dup := want[gr]; !dup {
			want[gr] = info
		}
	}
	gc.monitorsMu.Lock()
	defer gc.monitorsMu.Unlock()
	for gr, m := range gc.monitors {
		if info, ok := want[gr]; !ok || info != m.info {
			delete(gc.monitors, gr)
			removed = append(removed, m)
		}
	}
	added := false
	for gr, info := range want {
		if _, ok := gc.monitors[gr]; ok {
			continue
		}
		gc.monitors[gr] = gc.newMonitor(info)
		added = true
	}
	if added {
		// An owner seen only through a reference (virtual) may be of the
		// kind just added, and may have been deleted before its monitor
		// started: no delete event will ever come for it. Check every
		// virtual owner again, as Kubernetes requeues virtual nodes.
		defer gc.recheckVirtual()
	}
	for _, m := range gc.monitors {
		current = append(current, m)
	}
	slices.SortFunc(current, func(a, b *monitor) int { return compareInfo(a.info, b.info) })
	slices.SortFunc(removed, func(a, b *monitor) int { return compareInfo(a.info, b.info) })
	return current, removed
}

// recheckVirtual queues a check of every owner known only through
// references, in uid order.
func (gc *GarbageCollector) recheckVirtual() {
	gc.mu.Lock()
	var ws []work
	for _, n := range gc.graph.uidToNode {
		if !n.observed {
			ws = append(ws, work{itemKey(actionDelete, n), controllers.Cause{Event: "new resource watched"}})
		}
	}
	gc.mu.Unlock()
	slices.SortFunc(ws, func(a, b work) int { return strings.Compare(a.key, b.key) })
	gc.enqueue(ws)
}

func (gc *GarbageCollector) newMonitor(info client.ResourceInfo) *monitor {
	inf := cache.Private(gc.cfg.Informers, client.Metadata(gc.cfg.Client, info), "", client.ListOptions{}, gc.cfg.Logger)
	inf.AddHandler(cache.Handler[*metav1.PartialObjectMetadata]{
		OnAdd: func(obj *metav1.PartialObjectMetadata) { gc.observe("ADDED", info, obj) },
		OnUpdate: func(old, obj *metav1.PartialObjectMetadata) {
			if old.UID != obj.UID {
				// Deleted and created again under the same name
				// between two looks: two different objects.
				gc.forget("DELETED", old)
				gc.observe("ADDED", info, obj)
				return
			}
			gc.observe("MODIFIED", info, obj)
		},
		OnDelete: func(obj *metav1.PartialObjectMetadata) { gc.forget("DELETED", obj) },
	})
	return &monitor{info: info, informer: inf}
}

// removeMonitor stops a monitor and treats the objects it observed as
// deleted: their dependents are checked (with live GETs) again.
func (gc *GarbageCollector) removeMonitor(m *monitor) {
	if m.cancel != nil {
		m.cancel()
	}
	gc.mapper.forget(m.info.Group, m.info.Resource)
	for _, obj := range m.informer.List() {
		gc.forget("DELETED", obj)
	}
}

func (gc *GarbageCollector) observe(event string, info client.ResourceInfo, obj *metav1.PartialObjectMetadata) {
	gc.mapper.learn(obj.APIVersion, obj.Kind, info)
	gc.mu.Lock()
	w := gc.graph.observe(event, info, obj)
	gc.mu.Unlock()
	gc.enqueue(w)
}

func (gc *GarbageCollector) forget(event string, obj *metav1.PartialObjectMetadata) {
	gc.mu.Lock()
	w := gc.graph.remove(obj.UID, causeOf(event, obj))
	gc.mu.Unlock()
	gc.enqueue(w)
}

func (gc *GarbageCollector) enqueue(ws []work) {
	for _, w := range ws {
		gc.ctrl.Enqueue(w.key, w.cause)
	}
}

// monitorSource is the collector's one Source: it keeps the set of
// monitors in step with the served resources, then syncs or runs them.
type monitorSource struct {
	gc *GarbageCollector

	mu      sync.Mutex
	started bool
}

// Sync implements controllers.Source (step mode): read the resources
// again, then list every monitored resource in order. A resource that
// vanished between the two answers 404 and is skipped.
func (s *monitorSource) Sync(ctx context.Context) error {
	current, removed := s.gc.syncMonitors()
	for _, m := range removed {
		s.gc.removeMonitor(m)
	}
	var errs []error
	for _, m := range current {
		if err := m.informer.Sync(ctx); err != nil && !api.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("listing %s: %w", m.info.GroupVersionResource(), err))
		}
	}
	s.mu.Lock()
	s.started = true
	s.mu.Unlock()
	return errors.Join(errs...)
}

// Run implements controllers.Source (live mode): watch every monitored
// resource, and look for new or removed resources every ResyncPeriod.
func (s *monitorSource) Run(ctx context.Context) {
	for {
		current, removed := s.gc.syncMonitors()
		for _, m := range removed {
			s.gc.removeMonitor(m)
		}
		for _, m := range current {
			if m.cancel == nil {
				mctx, cancel := context.WithCancel(ctx)
				m.cancel = cancel
				go m.informer.Run(mctx)
			}
		}
		s.mu.Lock()
		s.started = true
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-s.gc.cfg.Clock.After(s.gc.cfg.ResyncPeriod):
		}
	}
}

// HasSynced implements controllers.Source: every monitor has listed once.
func (s *monitorSource) HasSynced() bool {
	s.mu.Lock()
	started := s.started
	s.mu.Unlock()
	if !started {
		return false
	}
	s.gc.monitorsMu.Lock()
	defer s.gc.monitorsMu.Unlock()
	for _, m := range s.gc.monitors {
		if !m.informer.HasSynced() {
			return false
		}
	}
	return true
}
