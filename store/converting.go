package store

import (
	"context"
	"sync"
)

// Converting serves one stored object at a second API version: values
// are converted to the stored form on the way in (ToStored) and back on
// the way out (FromStored), in every result and watch event, so both
// versions share one object and one resourceVersion. kube-apiserver does
// this with its codecs around the storage; kubesim's CRD server (v1beta1
// CRDs stored as v1) and autoscaling/v1 (HPAs stored as v2) both use it.
type Converting struct {
	Interface
	ToStored   func([]byte) ([]byte, error)
	FromStored func([]byte) []byte
}

func (s Converting) out(kv KeyValue) KeyValue {
	kv.Value = s.FromStored(kv.Value)
	return kv
}

// Create implements Interface.
func (s Converting) Create(ctx context.Context, key string, value []byte, opts CreateOptions) (KeyValue, error) {
	stored, err := s.ToStored(value)
	if err != nil {
		return KeyValue{}, err
	}
	kv, err := s.Interface.Create(ctx, key, stored, opts)
	return s.out(kv), err
}

// Get implements Interface.
func (s Converting) Get(ctx context.Context, key string) (KeyValue, error) {
	kv, err := s.Interface.Get(ctx, key)
	return s.out(kv), err
}

// Update implements Interface.
func (s Converting) Update(ctx context.Context, key string, value []byte, pre Preconditions) (KeyValue, error) {
	stored, err := s.ToStored(value)
	if err != nil {
		return KeyValue{}, err
	}
	kv, err := s.Interface.Update(ctx, key, stored, pre)
	return s.out(kv), err
}

// Delete implements Interface.
func (s Converting) Delete(ctx context.Context, key string, pre Preconditions) (KeyValue, error) {
	kv, err := s.Interface.Delete(ctx, key, pre)
	return s.out(kv), err
}

// List implements Interface.
func (s Converting) List(ctx context.Context, prefix string, opts ListOptions) (ListResult, error) {
	res, err := s.Interface.List(ctx, prefix, opts)
	items := make([]KeyValue, len(res.Items))
	for i, kv := range res.Items {
		items[i] = s.out(kv)
	}
	res.Items = items
	return res, err
}

// Watch implements Interface.
func (s Converting) Watch(ctx context.Context, prefix string, from int64) (Watcher, error) {
	w, err := s.Interface.Watch(ctx, prefix, from)
	if err != nil {
		return nil, err
	}
	return NewConvertingWatcher(ctx, w, func(_ context.Context, v []byte) []byte { return s.FromStored(v) }), nil
}

// ConvertingWatcher passes on a watch's events with their values
// converted.
type ConvertingWatcher struct {
	Watcher
	convert func(context.Context, []byte) []byte
	out     chan Event
	done    chan struct{}
	once    sync.Once
}

// NewConvertingWatcher converts the values of w's events with convert.
func NewConvertingWatcher(ctx context.Context, w Watcher, convert func(context.Context, []byte) []byte) *ConvertingWatcher {
	cw := &ConvertingWatcher{Watcher: w, convert: convert, out: make(chan Event), done: make(chan struct{})}
	go cw.run(ctx)
	return cw
}

// Stop implements Watcher.
func (w *ConvertingWatcher) Stop() {
	w.once.Do(func() { close(w.done) })
	w.Watcher.Stop()
}

func (w *ConvertingWatcher) run(ctx context.Context) {
	defer close(w.out)
	for ev := range w.Watcher.ResultChan() {
		ev.Value = w.convert(ctx, ev.Value)
		ev.PrevValue = w.convert(ctx, ev.PrevValue)
		select {
		case w.out <- ev:
		case <-ctx.Done():
			w.Watcher.Stop()
			return
		case <-w.done:
			return
		}
	}
}

// ResultChan implements Watcher.
func (w *ConvertingWatcher) ResultChan() <-chan Event { return w.out }
