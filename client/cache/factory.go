package cache

import (
	"log/slog"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
)

// Factory hands the controllers of one process their informers, as
// client-go's SharedInformerFactory does for kube-controller-manager: with
// Share, one informer per resource, Go type, namespace and options, so that
// ten controllers watching pods hold one cache and decode each pod event
// once; without it (step mode, where each controller lists its sources
// before its own step and the trace depends on when handlers fire), a
// private informer per call, as if there were no factory.
//
// A nil *Factory is valid: For then builds a private informer.
type Factory struct {
	client   *client.Client
	share    bool
	detector *MutationDetector
	changes  func(schema.GroupVersionResource) (uint64, bool)

	mu        sync.Mutex
	informers map[factoryKey]any
}

// FactoryConfig configures a Factory.
type FactoryConfig struct {
	// Client, when set, is the client shared informers list and watch
	// with (kube-controller-manager's "shared-informers" client); unset,
	// an informer keeps the client of the resource it was first asked for.
	Client *client.Client
	// Share makes one informer serve every caller that asks for the same
	// thing (live mode).
	Share bool
	// Detector, when set, watches every object the informers hand out for
	// changes (KUBE_CACHE_MUTATION_DETECTOR); for tests.
	Detector *MutationDetector
	// Changes, when set, counts the writes that could change what a list
	// of a resource returns, or says it cannot tell (false: a resource
	// served elsewhere, say). Step mode's Sync skips the list of an
	// informer whose count has not moved since its last one.
	Changes func(schema.GroupVersionResource) (uint64, bool)
}

// NewFactory returns a factory.
func NewFactory(cfg FactoryConfig) *Factory {
	return &Factory{client: cfg.Client, share: cfg.Share, detector: cfg.Detector, changes: cfg.Changes, informers: map[factoryKey]any{}}
}

// factoryKey identifies a shared informer: the same resource decoded into
// the same Go type (a typed and a dynamic pods informer differ), in the
// same namespace, with the same selectors.
type factoryKey struct {
	gvr  schema.GroupVersionResource
	typ  reflect.Type
	ns   string
	opts client.ListOptions
}

// For returns the informer of res in namespace ns narrowed by opts: the
// shared one of f when f shares, a new one otherwise. Handlers and
// indexes added to a shared informer serve every controller that uses it;
// its objects are shared: copy before changing.
func For[T api.Object](f *Factory, res *client.Resource[T], ns string, opts client.ListOptions, logger *slog.Logger) *Informer[T] {
	if f == nil {
		return New(res, ns, opts, logger)
	}
	if !f.share {
		return Private(f, res, ns, opts, logger)
	}
	key := factoryKey{gvr: res.Info().GroupVersionResource(), typ: reflect.TypeFor[T](), ns: ns, opts: opts}
	f.mu.Lock()
	defer f.mu.Unlock()
	if inf, ok := f.informers[key]; ok {
		return inf.(*Informer[T])
	}
	if f.client != nil {
		res = res.WithClient(f.client)
	}
	inf := New(res, ns, opts, logger)
	inf.detector = f.detector
	f.informers[key] = inf
	return inf
}

// Shares reports whether f hands every caller the same informer (live
// mode's factory); false for nil.
func (f *Factory) Shares() bool { return f != nil && f.share }

// Len is the number of shared informers the factory holds.
func (f *Factory) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.informers)
}

// Private returns a new informer of res that is never shared, watched by
// f's mutation detector (if any): for a component that starts and stops
// its informers itself, as the garbage collector does its monitors when
// resources come and go. Its objects may still be shared with the watch
// cache (package handoff): copy before changing.
func Private[T api.Object](f *Factory, res *client.Resource[T], ns string, opts client.ListOptions, logger *slog.Logger) *Informer[T] {
	inf := New(res, ns, opts, logger)
	if f != nil {
		inf.detector = f.detector
		if f.changes != nil {
			gvr := res.Info().GroupVersionResource()
			inf.changes = func() (uint64, bool) { return f.changes(gvr) }
		}
	}
	return inf
}
