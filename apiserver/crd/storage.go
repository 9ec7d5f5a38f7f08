package crd

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/store"
)

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// v1beta1Storage stores v1beta1 CRDs as v1: values are converted on the
// way in and back on the way out, so both versions share one object.
type v1beta1Storage struct {
	store.Interface
}

func toStored(value []byte) ([]byte, error) {
	var b api.CustomResourceDefinitionV1beta1
	if err := json.Unmarshal(value, &b); err != nil {
		return nil, err
	}
	return json.Marshal(ToV1(&b))
}

func fromStored(value []byte) []byte {
	if value == nil {
		return nil
	}
	var c api.CustomResourceDefinition
	if err := json.Unmarshal(value, &c); err != nil {
		// Not a CRD: leave it for the registry to report.
		return value
	}
	out, err := json.Marshal(ToV1beta1(&c))
	if err != nil {
		return value
	}
	return out
}

func kvFromStored(kv store.KeyValue) store.KeyValue {
	kv.Value = fromStored(kv.Value)
	return kv
}

// Create implements store.Interface.
func (s v1beta1Storage) Create(ctx context.Context, key string, value []byte, opts store.CreateOptions) (store.KeyValue, error) {
	v1, err := toStored(value)
	if err != nil {
		return store.KeyValue{}, err
	}
	kv, err := s.Interface.Create(ctx, key, v1, opts)
	return kvFromStored(kv), err
}

// Get implements store.Interface.
func (s v1beta1Storage) Get(ctx context.Context, key string) (store.KeyValue, error) {
	kv, err := s.Interface.Get(ctx, key)
	return kvFromStored(kv), err
}

// Update implements store.Interface.
func (s v1beta1Storage) Update(ctx context.Context, key string, value []byte, pre store.Preconditions) (store.KeyValue, error) {
	v1, err := toStored(value)
	if err != nil {
		return store.KeyValue{}, err
	}
	kv, err := s.Interface.Update(ctx, key, v1, pre)
	return kvFromStored(kv), err
}

// Delete implements store.Interface.
func (s v1beta1Storage) Delete(ctx context.Context, key string, pre store.Preconditions) (store.KeyValue, error) {
	kv, err := s.Interface.Delete(ctx, key, pre)
	return kvFromStored(kv), err
}

// List implements store.Interface.
func (s v1beta1Storage) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	res, err := s.Interface.List(ctx, prefix, opts)
	items := make([]store.KeyValue, len(res.Items))
	for i, kv := range res.Items {
		items[i] = kvFromStored(kv)
	}
	res.Items = items
	return res, err
}

// Watch implements store.Interface.
func (s v1beta1Storage) Watch(ctx context.Context, prefix string, from int64) (store.Watcher, error) {
	w, err := s.Interface.Watch(ctx, prefix, from)
	if err != nil {
		return nil, err
	}
	return newConvertingWatcher(ctx, w, func(_ context.Context, v []byte) []byte { return fromStored(v) }), nil
}

// convertingWatcher converts the values of a watch (to v1beta1 CRDs, or
// custom resources to the served version).
type convertingWatcher struct {
	store.Watcher
	convert func(context.Context, []byte) []byte
	out     chan store.Event
	done    chan struct{}
	once    sync.Once
}

func newConvertingWatcher(ctx context.Context, w store.Watcher, convert func(context.Context, []byte) []byte) *convertingWatcher {
	cw := &convertingWatcher{Watcher: w, convert: convert, out: make(chan store.Event), done: make(chan struct{})}
	go cw.run(ctx)
	return cw
}

// Stop implements store.Watcher.
func (w *convertingWatcher) Stop() {
	w.once.Do(func() { close(w.done) })
	w.Watcher.Stop()
}

func (w *convertingWatcher) run(ctx context.Context) {
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

// ResultChan implements store.Watcher.
func (w *convertingWatcher) ResultChan() <-chan store.Event { return w.out }
