package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/handoff"
	"github.com/kubesim/kubesim/api/jsoncodec"
	"github.com/kubesim/kubesim/api/unstructured"
)

// ResourceInfo names a resource on the server.
type ResourceInfo struct {
	Group, Version, Resource string
	Namespaced               bool
}

// GroupVersionResource returns the resource's GVR.
func (i ResourceInfo) GroupVersionResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: i.Group, Version: i.Version, Resource: i.Resource}
}

// Resource is a client for one resource whose objects decode into T.
type Resource[T api.Object] struct {
	c    *Client
	info ResourceInfo
	newT func() T
}

// For returns a client for info whose objects are made by newT.
func For[T api.Object](c *Client, info ResourceInfo, newT func() T) *Resource[T] {
	return &Resource[T]{c: c, info: info, newT: newT}
}

// Dynamic returns a client for any resource, with unstructured objects.
func Dynamic(c *Client, info ResourceInfo) *Resource[*unstructured.Unstructured] {
	return For(c, info, func() *unstructured.Unstructured { return &unstructured.Unstructured{} })
}

// Metadata returns a client for any resource that reads only the objects'
// type and metadata (client-go's metadata client, which the garbage
// collector's informers use). The real one asks the server for
// PartialObjectMetadata (Accept: ...;as=PartialObjectMetadata); this one
// decodes the metadata out of the full JSON, and in process a watch is
// handed the metadata of the watch cache's objects (package handoff).
// Writes through it would send only metadata: use it to read.
func Metadata(c *Client, info ResourceInfo) *Resource[*metav1.PartialObjectMetadata] {
	return For(c, info, func() *metav1.PartialObjectMetadata { return &metav1.PartialObjectMetadata{} })
}

// WithClient returns the same resource through another client (a shared
// informer lists and watches with its factory's client).
func (r *Resource[T]) WithClient(c *Client) *Resource[T] {
	return &Resource[T]{c: c, info: r.info, newT: r.newT}
}

// Info is the resource this client serves.
func (r *Resource[T]) Info() ResourceInfo { return r.info }

// path builds the URL path of the collection (name "") or an object.
func (r *Resource[T]) path(ns, name string, sub ...string) string {
	p := "/api/" + r.info.Version
	if r.info.Group != "" {
		p = "/apis/" + r.info.Group + "/" + r.info.Version
	}
	if r.info.Namespaced && ns != "" {
		p += "/namespaces/" + url.PathEscape(ns)
	}
	p += "/" + r.info.Resource
	if name != "" {
		p += "/" + url.PathEscape(name)
	}
	for _, s := range sub {
		p += "/" + s
	}
	return p
}

// ListOptions select what List and Watch return.
type ListOptions struct {
	LabelSelector       string
	FieldSelector       string
	Limit               int64
	Continue            string
	ResourceVersion     string
	TimeoutSeconds      int64
	AllowWatchBookmarks bool
	// SendInitialEvents makes a watch a watch-list: it starts with every
	// matching object as ADDED and, with AllowWatchBookmarks, a BOOKMARK
	// annotated k8s.io/initial-events-end at that state's revision (sent
	// as sendInitialEvents=true&resourceVersionMatch=NotOlderThan, as
	// client-go's reflector asks for it).
	SendInitialEvents bool
}

func (o ListOptions) query() url.Values {
	q := url.Values{}
	if o.LabelSelector != "" {
		q.Set("labelSelector", o.LabelSelector)
	}
	if o.FieldSelector != "" {
		q.Set("fieldSelector", o.FieldSelector)
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	if o.Continue != "" {
		q.Set("continue", o.Continue)
	}
	if o.ResourceVersion != "" {
		q.Set("resourceVersion", o.ResourceVersion)
	}
	if o.TimeoutSeconds > 0 {
		q.Set("timeoutSeconds", strconv.FormatInt(o.TimeoutSeconds, 10))
	}
	if o.AllowWatchBookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	if o.SendInitialEvents {
		q.Set("sendInitialEvents", "true")
		q.Set("resourceVersionMatch", "NotOlderThan")
	}
	return q
}

// Get reads ns/name.
func (r *Resource[T]) Get(ctx context.Context, ns, name string) (T, error) {
	out := r.newT()
	err := r.c.do(ctx, request{method: http.MethodGet, path: r.path(ns, name)}, out)
	return out, err
}

// List is one page of objects.
type List[T api.Object] struct {
	Items           []T
	ResourceVersion string
	Continue        string
}

// List reads the objects of ns ("" for all namespaces).
func (r *Resource[T]) List(ctx context.Context, ns string, opts ListOptions) (*List[T], error) {
	var raw struct {
		Metadata metav1.ListMeta   `json:"metadata"`
		Items    []json.RawMessage `json:"items"`
	}
	if err := r.c.do(ctx, request{method: http.MethodGet, path: r.path(ns, ""), query: opts.query()}, &raw); err != nil {
		return nil, err
	}
	out := &List[T]{ResourceVersion: raw.Metadata.ResourceVersion, Continue: raw.Metadata.Continue}
	for _, item := range raw.Items {
		obj := r.newT()
		if err := jsoncodec.Unmarshal(item, obj); err != nil {
			return nil, fmt.Errorf("decoding a %s: %w", r.info.Resource, err)
		}
		out.Items = append(out.Items, obj)
	}
	return out, nil
}

func (r *Resource[T]) write(ctx context.Context, method, path string, query url.Values, obj any, contentType string) (T, error) {
	body, err := jsoncodec.Marshal(obj)
	if err != nil {
		var zero T
		return zero, err
	}
	if contentType == "" {
		contentType = "application/json"
	}
	return r.answered(ctx, request{method: method, path: path, query: query, body: body, contentType: contentType})
}

// answered performs a write and returns the object of its answer. In
// process, the server may hand over the object it stored, decoded from
// the stored bytes — what the answer's JSON decodes to, and the caller's
// own — instead of that JSON (package handoff); over a socket the
// context stays here and the JSON is decoded.
func (r *Resource[T]) answered(ctx context.Context, req request) (T, error) {
	out := r.newT()
	a := handoff.NewAnswer(out)
	if err := r.c.do(handoff.WithAnswer(ctx, a), req, out); err != nil {
		return out, err
	}
	if obj, ok := a.Object().(T); ok {
		return obj, nil
	}
	return out, nil
}

// Create creates obj in its namespace.
func (r *Resource[T]) Create(ctx context.Context, obj T) (T, error) {
	return r.write(ctx, http.MethodPost, r.path(api.Meta(obj).Namespace, ""), nil, obj, "")
}

// Update replaces obj (its resourceVersion is the precondition).
func (r *Resource[T]) Update(ctx context.Context, obj T) (T, error) {
	m := api.Meta(obj)
	return r.write(ctx, http.MethodPut, r.path(m.Namespace, m.Name), nil, obj, "")
}

// UpdateStatus replaces obj's status through the status subresource.
func (r *Resource[T]) UpdateStatus(ctx context.Context, obj T) (T, error) {
	return r.UpdateSubresource(ctx, obj, "status")
}

// UpdateSubresource PUTs obj to a subresource of the object it names,
// which changes only the part the subresource owns (namespaces/finalize:
// spec.finalizers, client-go's Namespaces().Finalize; a CSR's approval,
// which `kubectl certificate approve` writes).
func (r *Resource[T]) UpdateSubresource(ctx context.Context, obj T, sub string) (T, error) {
	m := api.Meta(obj)
	return r.write(ctx, http.MethodPut, r.path(m.Namespace, m.Name, sub), nil, obj, "")
}

// The patch types, as Content-Types.
const (
	JSONPatch      = "application/json-patch+json"
	MergePatch     = "application/merge-patch+json"
	StrategicPatch = "application/strategic-merge-patch+json"
	ApplyPatch     = "application/apply-patch+yaml"
)

// Patch patches ns/name (or its subresource) with data of patchType.
func (r *Resource[T]) Patch(ctx context.Context, ns, name, patchType string, data []byte, subresource ...string) (T, error) {
	return r.answered(ctx, request{method: http.MethodPatch, path: r.path(ns, name, subresource...), body: data, contentType: patchType})
}

// Delete deletes ns/name.
func (r *Resource[T]) Delete(ctx context.Context, ns, name string, opts *metav1.DeleteOptions) error {
	var body []byte
	if opts != nil {
		var err error
		if body, err = json.Marshal(opts); err != nil {
			return err
		}
	}
	return r.c.do(ctx, request{method: http.MethodDelete, path: r.path(ns, name), body: body, contentType: "application/json"}, nil)
}

// CreateSubresource posts obj to a subresource of ns/name (pods/binding).
func (r *Resource[T]) CreateSubresource(ctx context.Context, ns, name, sub string, obj any) error {
	body, err := jsoncodec.Marshal(obj)
	if err != nil {
		return err
	}
	return r.c.do(ctx, request{method: http.MethodPost, path: r.path(ns, name, sub), body: body, contentType: "application/json"}, nil)
}

// Event is one watch event. For ERROR, Object is the zero T and Status
// says what happened.
type Event[T api.Object] struct {
	Type   api.WatchEventType
	Object T
	Status *metav1.Status
}

// Watch is an open watch.
type Watch[T api.Object] struct {
	events chan Event[T]
	stop   func()
	once   sync.Once
	mu     sync.Mutex
	err    error
}

// Events delivers the events; it is closed when the watch ends.
func (w *Watch[T]) Events() <-chan Event[T] { return w.events }

// Stop ends the watch.
func (w *Watch[T]) Stop() { w.once.Do(w.stop) }

// Err says why the watch ended (nil after Stop or a server timeout).
func (w *Watch[T]) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Watch opens a watch on ns ("" for all namespaces).
func (r *Resource[T]) Watch(ctx context.Context, ns string, opts ListOptions) (*Watch[T], error) {
	ctx, cancel := context.WithCancel(ctx)
	q := opts.query()
	q.Set("watch", "true")
	// In process, the server may hand over its decoded objects instead of
	// their JSON (package handoff); over a socket the context stays here.
	hw := handoff.NewWatch(r.newT())
	resp, err := r.c.send(handoff.WithWatch(ctx, hw), request{method: http.MethodGet, path: r.path(ns, ""), query: q})
	if err != nil {
		cancel()
		return nil, err
	}
	w := &Watch[T]{events: make(chan Event[T], 64), stop: func() { cancel(); resp.Body.Close() }}
	if hw.Claimed() {
		go r.receive(ctx, w, hw, resp.Body)
		return w, nil
	}
	go func() {
		defer close(w.events)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
		for sc.Scan() {
			var raw struct {
				Type   api.WatchEventType `json:"type"`
				Object json.RawMessage    `json:"object"`
			}
			if err := jsoncodec.Unmarshal(sc.Bytes(), &raw); err != nil {
				w.setErr(fmt.Errorf("decoding a watch event: %w", err))
				return
			}
			ev := Event[T]{Type: raw.Type}
			if raw.Type == api.WatchEventError {
				var st metav1.Status
				_ = json.Unmarshal(raw.Object, &st)
				ev.Status = &st
				w.setErr(api.FromObject(&st))
			} else {
				ev.Object = r.newT()
				if err := jsoncodec.Unmarshal(raw.Object, ev.Object); err != nil {
					w.setErr(fmt.Errorf("decoding a watched %s: %w", r.info.Resource, err))
					return
				}
			}
			select {
			case w.events <- ev:
			case <-ctx.Done():
				return
			}
		}
		if err := sc.Err(); err != nil && ctx.Err() == nil {
			w.setErr(err)
		}
	}()
	return w, nil
}

// receive delivers the events an in-process server hands over: objects
// of type T as they are (shared with the server's watch cache: never
// changed in place), anything else decoded from its JSON.
func (r *Resource[T]) receive(ctx context.Context, w *Watch[T], hw *handoff.Watch, body io.Closer) {
	defer close(w.events)
	defer body.Close()
	for {
		var hev handoff.Event
		var ok bool
		select {
		case hev, ok = <-hw.Events():
			if !ok {
				return
			}
		case <-ctx.Done():
			return
		}
		ev := Event[T]{Type: hev.Type}
		switch {
		case hev.Status != nil:
			ev.Status = hev.Status
			w.setErr(api.FromObject(hev.Status))
		case hev.Object != nil:
			obj, ok := hev.Object.(T)
			if !ok {
				w.setErr(fmt.Errorf("a watched %s handed over as %T", r.info.Resource, hev.Object))
				return
			}
			ev.Object = obj
		default:
			ev.Object = r.newT()
			if err := jsoncodec.Unmarshal(hev.Raw, ev.Object); err != nil {
				w.setErr(fmt.Errorf("decoding a watched %s: %w", r.info.Resource, err))
				return
			}
		}
		select {
		case w.events <- ev:
		case <-ctx.Done():
			return
		}
	}
}

func (w *Watch[T]) setErr(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}
