package apiserver

import (
	"context"
	"sync/atomic"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/store"
)

// The webhook configurations and the admission policies (and their
// bindings) are read by every write of every resource, so the chain reads
// them from a cache, listed again from storage only after one of them was
// written: kube-apiserver's webhook and policy plugins read them from
// informers. Server.webhookConfigs holds one cache per resource.

// newConfigCaches makes the caches, one per resource the chain reads on
// every write.
func newConfigCaches() map[string]*configCache {
	return map[string]*configCache{
		"mutatingwebhookconfigurations": {}, "validatingwebhookconfigurations": {},
		"validatingadmissionpolicies": {}, "validatingadmissionpolicybindings": {},
	}
}

// listConfigs lists the webhook configurations (or the policies, or the
// bindings), sorted by name as kube-apiserver sorts them; none when the
// resource is not served.
func (s *Server) listConfigs(ctx context.Context, resource string) ([]api.Object, error) {
	st, ok := s.Store(api.AdmissionRegistrationGroupName, "v1", resource)
	if !ok {
		return nil, nil
	}
	c := s.webhookConfigs[resource]
	if c == nil {
		return s.readConfigs(ctx, st)
	}
	gen := c.generation.Load()
	if cached := c.items.Load(); cached != nil && cached.generation == gen {
		return cached.items, nil
	}
	items, err := s.readConfigs(ctx, st)
	if err != nil {
		return nil, err
	}
	c.items.Store(&configSnapshot{generation: gen, items: items})
	return items, nil
}

func (s *Server) readConfigs(ctx context.Context, st *registry.Store) ([]api.Object, error) {
	res, err := st.List(ctx, "", registry.ListOptions{})
	if err != nil {
		return nil, err
	}
	return res.Items, nil
}

// configCache remembers one resource's configurations until a write to
// them bumps generation (the registry's store hook, webhookStorage).
type configCache struct {
	generation atomic.Int64
	items      atomic.Pointer[configSnapshot]
}

type configSnapshot struct {
	generation int64
	items      []api.Object
}

// webhookStorage bumps its cache's generation after every committed
// write of a webhook configuration (or an admission policy or binding),
// so the next admission reads the new configurations.
type webhookStorage struct {
	store.Interface
	cache *configCache
}

func (w webhookStorage) Create(ctx context.Context, key string, value []byte, opts store.CreateOptions) (store.KeyValue, error) {
	defer w.cache.generation.Add(1)
	return w.Interface.Create(ctx, key, value, opts)
}

func (w webhookStorage) Update(ctx context.Context, key string, value []byte, pre store.Preconditions) (store.KeyValue, error) {
	defer w.cache.generation.Add(1)
	return w.Interface.Update(ctx, key, value, pre)
}

func (w webhookStorage) Delete(ctx context.Context, key string, pre store.Preconditions) (store.KeyValue, error) {
	defer w.cache.generation.Add(1)
	return w.Interface.Delete(ctx, key, pre)
}

// decorateWebhookStorage wraps the storage of the webhook configurations.
func (s *Server) decorateWebhookStorage(res *registry.Resource, storage store.Interface) store.Interface {
	if res.Group != api.AdmissionRegistrationGroupName {
		return storage
	}
	if c := s.webhookConfigs[res.Name]; c != nil {
		return webhookStorage{Interface: storage, cache: c}
	}
	return storage
}
