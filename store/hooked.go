package store

import "context"

// WriteHook is told of every successful write through a store made by
// WithWriteHook: the value written (for a delete, the last value), its
// revision, and whether it was a delete.
type WriteHook func(value []byte, rev int64, deleted bool)

// WithWriteHook returns st, calling hook after each successful Create,
// Update and Delete, in the writer's goroutine, before the write returns.
// The API server's parts that must follow a kind as it is written, not
// one handler (the CRD server registering custom resources, the
// aggregator's routing table), decorate that kind's storage with it.
func WithWriteHook(st Interface, hook WriteHook) Interface {
	return hooked{Interface: st, hook: hook}
}

type hooked struct {
	Interface
	hook WriteHook
}

func (h hooked) Create(ctx context.Context, key string, value []byte, opts CreateOptions) (KeyValue, error) {
	kv, err := h.Interface.Create(ctx, key, value, opts)
	if err == nil {
		h.hook(value, kv.ModRevision, false)
	}
	return kv, err
}

func (h hooked) Update(ctx context.Context, key string, value []byte, pre Preconditions) (KeyValue, error) {
	kv, err := h.Interface.Update(ctx, key, value, pre)
	if err == nil {
		h.hook(value, kv.ModRevision, false)
	}
	return kv, err
}

func (h hooked) Delete(ctx context.Context, key string, pre Preconditions) (KeyValue, error) {
	kv, err := h.Interface.Delete(ctx, key, pre)
	if err == nil {
		h.hook(kv.Value, kv.ModRevision, true)
	}
	return kv, err
}
