package handoff

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
)

// Event is one watch event handed over: Object (shared, immutable) when it
// is of the type the client wants, else Raw, the object's JSON; for ERROR,
// Status.
type Event struct {
	Type   api.WatchEventType
	Object api.Object
	Raw    []byte
	Status *metav1.Status
}

// Watch is the side channel of one watch request.
type Watch struct {
	want reflect.Type
	// metadataOnly: the client decodes into *api.PartialObjectMetadata (a
	// metadata informer, like the garbage collector's), and is handed the
	// metadata of whatever object the watch carries.
	metadataOnly bool
	claimed      atomic.Bool
	events       chan Event
	once         sync.Once
}

// NewWatch returns the side channel of a watch whose client decodes into
// objects like sample (a *api.Pod, or an *unstructured.Unstructured).
func NewWatch(sample api.Object) *Watch {
	_, meta := sample.(*metav1.PartialObjectMetadata)
	return &Watch{want: reflect.TypeOf(sample), metadataOnly: meta, events: make(chan Event, 64)}
}

type contextKey struct{}

// WithWatch returns ctx carrying w: the request made with it may be
// answered through w.
func WithWatch(ctx context.Context, w *Watch) context.Context {
	return context.WithValue(ctx, contextKey{}, w)
}

// FromContext is the Watch a request carries, or nil.
func FromContext(ctx context.Context) *Watch {
	w, _ := ctx.Value(contextKey{}).(*Watch)
	return w
}

// Claim is the server's: it reports whether it may answer through w (the
// first claim only; a request proxied on in process must not be answered
// twice). The server then closes w when the watch ends.
func (w *Watch) Claim() bool { return w.claimed.CompareAndSwap(false, true) }

// Claimed is the client's: whether the answer comes through w rather than
// the response body.
func (w *Watch) Claimed() bool { return w.claimed.Load() }

// Accepts reports whether obj may be handed over: it is of the type the
// client decodes into, or the client wants only metadata (Send then hands
// over obj's metadata).
func (w *Watch) Accepts(obj api.Object) bool {
	return w.metadataOnly || reflect.TypeOf(obj) == w.want
}

// Send hands ev to the client, waiting while its buffer is full; it
// reports false when ctx (the request's) ended first. To a client that
// wants only metadata it sends MetadataOf(ev.Object).
func (w *Watch) Send(ctx context.Context, ev Event) bool {
	if w.metadataOnly && ev.Object != nil {
		ev.Object = MetadataOf(ev.Object)
	}
	select {
	case w.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// Close ends the stream (the server's, when the watch ends).
func (w *Watch) Close() { w.once.Do(func() { close(w.events) }) }

// Events are the events, closed when the server ends the watch.
func (w *Watch) Events() <-chan Event { return w.events }

// MetadataOf is obj reduced to its type and metadata, as a metadata client
// sees it (PartialObjectMetadata). The metadata is a shallow copy: its
// labels, annotations, owner references, finalizers and managed fields are
// obj's own, shared and immutable like obj, so that a metadata informer of
// every pod costs a few hundred bytes a pod, not a decoded copy.
func MetadataOf(obj api.Object) *metav1.PartialObjectMetadata {
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		return m
	}
	return &metav1.PartialObjectMetadata{TypeMeta: *api.TypeMetaOf(obj), ObjectMeta: *api.Meta(obj)}
}
