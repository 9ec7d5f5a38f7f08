package apiserver

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/admission/policy"
	"github.com/kubesim/kubesim/apiserver/admission/webhook"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/nodeauthz"
	"github.com/kubesim/kubesim/apiserver/proxy"
	"github.com/kubesim/kubesim/apiserver/rbacregistry"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/store"
)

// admissionChain builds the chain every client write passes, in
// kube-apiserver's order: the built-in plugins (NamespaceLifecycle,
// ServiceAccount, DefaultStorageClass, StorageObjectInUseProtection, then Config.Admission's, ValidatingAdmissionPolicy and
// the RBAC escalation check), then MutatingAdmissionWebhook and
// ValidatingAdmissionWebhook. The chain runs every mutating plugin in
// this order, then every validating one.
//
// A new built-in plugin is one more entry in Config.Admission (or in the
// list below); a plugin is any value with Admit (mutating) and/or Validate
// (validating), see package admission.
func (s *Server) admissionChain() (admission.Chain, error) {
	lifecycle := &admission.NamespaceLifecycle{
		Get:      s.namespace,
		Immortal: map[string]bool{"default": true, "kube-system": true, "kube-public": true},
	}
	// ServiceAccount (issue 14), then DefaultStorageClass and
	// StorageObjectInUseProtection (issue 12 part 4), as kube-apiserver orders them.
	chain := append(append(append(admission.Chain{lifecycle}, s.serviceAccountAdmission()...), s.storageAdmission()...), s.cfg.Admission...)
	vap, err := s.admissionPolicyPlugin() // issue 13: ValidatingAdmissionPolicy
	if err != nil {
		return nil, err
	}
	chain = append(chain, vap)
	if slices.Contains(s.modes, authz.ModeNode) { // issue 14: NodeRestriction
		chain = append(chain, nodeauthz.NodeRestriction{Pods: s.pod})
	}
	if slices.Contains(s.modes, authz.ModeRBAC) { // issue 14
		chain = append(chain, &rbacregistry.Escalation{Authorizer: s.authorizer, Rules: s.ruleLister, Source: s.rbac})
	}
	conditions, err := policy.NewConditions() // webhooks' matchConditions
	if err != nil {
		return nil, err
	}
	mutating, validating := webhook.New(webhook.Config{
		Conditions:  conditions,
		Mutating:    s.mutatingWebhooks,
		Validating:  s.validatingWebhooks,
		Namespace:   s.namespace,
		Equivalents: s.equivalents,
		Convert:     s.convertVersion,
		Resolve:     s.resolveService,
		Dial:        s.cfg.WebhookDial,
		UID:         s.ids.UID,
	})
	// LimitRanger, Priority and ResourceQuota (issue 12 part 6) take
	// their places in that order (policyadmission.go).
	return s.withPolicyAdmission(append(chain, mutating, validating)), nil
}

// pod reads a pod for the admission plugins.
func (s *Server) pod(ctx context.Context, ns, name string) (*api.Pod, error) {
	st, ok := s.Store("", "v1", "pods")
	if !ok {
		return nil, api.NewNotFound(api.GroupResource{Resource: "pods"}, name)
	}
	obj, err := st.Get(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	pod, ok := obj.(*api.Pod)
	if !ok {
		return nil, fmt.Errorf("pod store returned %T", obj)
	}
	return pod, nil
}

// namespace reads a namespace for the admission plugins
// (NamespaceLifecycle, the webhooks' namespaceSelector), which only read
// it: it is shared, decoded again only when its stored revision changed.
func (s *Server) namespace(ctx context.Context, name string) (*api.Namespace, error) {
	st, ok := s.Store("", "v1", "namespaces")
	if !ok {
		return nil, api.NewNotFound(api.GroupResource{Resource: "namespaces"}, name)
	}
	obj, err := st.GetShared(ctx, "", name)
	if err != nil {
		return nil, err
	}
	ns, ok := obj.(*api.Namespace)
	if !ok {
		return nil, api.NewInternalError(fmt.Errorf("namespace store returned %T", obj))
	}
	return ns, nil
}

func (s *Server) mutatingWebhooks(ctx context.Context) ([]api.MutatingWebhookConfiguration, error) {
	items, err := s.listConfigs(ctx, "mutatingwebhookconfigurations")
	out := make([]api.MutatingWebhookConfiguration, 0, len(items))
	for _, o := range items {
		out = append(out, *o.(*api.MutatingWebhookConfiguration))
	}
	return out, err
}

func (s *Server) validatingWebhooks(ctx context.Context) ([]api.ValidatingWebhookConfiguration, error) {
	items, err := s.listConfigs(ctx, "validatingwebhookconfigurations")
	out := make([]api.ValidatingWebhookConfiguration, 0, len(items))
	for _, o := range items {
		out = append(out, *o.(*api.ValidatingWebhookConfiguration))
	}
	return out, err
}

// listConfigs lists the webhook configurations, sorted by name as
// kube-apiserver sorts them; none when the resource is not served. The
// list is read from storage only when a configuration changed since the
// last one (the webhooks' own informer in Kubernetes).
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

// equivalents lists the other versions gvr's group-resource is served
// at, for matchPolicy Equivalent.
func (s *Server) equivalents(gvr api.GroupVersionResource) []api.GroupVersionResource {
	var out []api.GroupVersionResource
	for _, r := range s.Resources() {
		if r.Group == gvr.Group && r.Name == gvr.Resource && r.Version != gvr.Version {
			out = append(out, api.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Name})
		}
	}
	return out
}

// convertVersion turns an object of one served version into another's
// through the stored version, with the versions' converters (where their
// shapes differ). A version without converters shares the stored shape.
func (s *Server) convertVersion(data []byte, from, to api.GroupVersionResource) ([]byte, error) {
	for _, step := range []struct {
		gvr     api.GroupVersionResource
		toStore bool
	}{{from, true}, {to, false}} {
		st, ok := s.Store(step.gvr.Group, step.gvr.Version, step.gvr.Resource)
		if !ok {
			return nil, fmt.Errorf("no storage for %s", step.gvr)
		}
		res := st.Resource()
		switch {
		case step.toStore && res.ToStored != nil:
			var err error
			if data, err = res.ToStored(data); err != nil {
				return nil, err
			}
		case !step.toStore && res.FromStored != nil:
			data = res.FromStored(data)
		}
	}
	return data, nil
}

// resolveService finds a ready endpoint of a Service's port, as the
// aggregator reaches an APIService's backend: through the Endpoints, so
// the cluster's pod network can dial it.
func (s *Server) resolveService(ctx context.Context, namespace, name string, port int32) (string, error) {
	addrs, err := proxy.ResolveEndpoints(ctx, s.Store, namespace, name, port)
	if err != nil {
		return "", err
	}
	return addrs[0], nil
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
