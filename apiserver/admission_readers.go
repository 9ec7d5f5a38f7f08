package apiserver

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission/policy"
	"github.com/kubesim/kubesim/apiserver/proxy"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// What the admission plugins read, from the server's own storage and
// without authorization: kube-apiserver's plugins read the same objects
// from informers (listers) or through the loopback client. Which plugin
// reads what is listed where the chain is built (admission_chain.go).

// getObject reads one object of a core/v1 resource. The ServiceAccount
// plugin reads accounts with it, NodeRestriction pods, and the service
// account token issuer (serviceaccount_tokens.go) accounts, pods,
// Secrets and nodes.
func getObject[T api.Object](s *Server, resource string) func(ctx context.Context, ns, name string) (T, error) {
	return func(ctx context.Context, ns, name string) (T, error) {
		var zero T
		st, ok := s.Store("", "v1", resource)
		if !ok {
			return zero, api.NewNotFound(schema.GroupResource{Resource: resource}, name)
		}
		obj, err := st.Get(ctx, ns, name)
		if err != nil {
			return zero, err
		}
		t, ok := obj.(T)
		if !ok {
			return zero, api.NewInternalError(fmt.Errorf("%s store returned %T", resource, obj))
		}
		return t, nil
	}
}

// namespace reads a namespace for the plugins that only read it
// (NamespaceLifecycle, the webhooks' namespaceSelector): it is shared,
// decoded again only when its stored revision changed.
func (s *Server) namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	st, ok := s.Store("", "v1", "namespaces")
	if !ok {
		return nil, api.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	obj, err := st.GetShared(ctx, "", name)
	if err != nil {
		return nil, err
	}
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return nil, api.NewInternalError(fmt.Errorf("namespace store returned %T", obj))
	}
	return ns, nil
}

// listObjects lists one resource's objects of a namespace ("" for all, or
// a cluster-scoped resource) with list: (*registry.Store).List for a
// plugin that changes what it lists, (*registry.Store).ListShared for one
// that only reads (the objects are then the store's cached ones, decoded
// again only when their revision changed).
func listObjects[T api.Object](s *Server, list func(*registry.Store, context.Context, string, registry.ListOptions) (*registry.ListResult, error),
	group, resource string) func(ctx context.Context, ns string) ([]T, error) {
	return func(ctx context.Context, ns string) ([]T, error) {
		st, ok := s.Store(group, "v1", resource)
		if !ok {
			return nil, nil
		}
		out, err := list(st, ctx, ns, registry.ListOptions{})
		if err != nil {
			return nil, err
		}
		return typedItems[T](resource, out.Items)
	}
}

func typedItems[T api.Object](resource string, items []api.Object) ([]T, error) {
	out := make([]T, 0, len(items))
	for _, o := range items {
		t, ok := o.(T)
		if !ok {
			return nil, api.NewInternalError(fmt.Errorf("%s store returned %T", resource, o))
		}
		out = append(out, t)
	}
	return out, nil
}

// writeQuotaStatus is how ResourceQuota charges a quota: it writes the
// quota's status if the quota is still the one read (its
// resourceVersion), and a conflict otherwise.
func (s *Server) writeQuotaStatus(ctx context.Context, q *corev1.ResourceQuota) error {
	st, ok := s.Store("", "v1", "resourcequotas")
	if !ok {
		return nil
	}
	_, _, err := st.Update(ctx, q.Namespace, q.Name, func(cur api.Object) (api.Object, error) {
		if api.Meta(cur).ResourceVersion != q.ResourceVersion {
			return nil, api.NewOptimisticLockConflict(schema.GroupResource{Resource: "resourcequotas"}, q.Name)
		}
		upd := cur.(*corev1.ResourceQuota)
		upd.Status = q.Status
		return upd, nil
	}, registry.UpdateOptions{Subresource: "status"})
	return err
}

// mutatingWebhooks and validatingWebhooks are the webhook plugins' webhook
// configurations (cached, admission_config_cache.go).
func (s *Server) mutatingWebhooks(ctx context.Context) ([]admissionregistrationv1.MutatingWebhookConfiguration, error) {
	items, err := s.listConfigs(ctx, "mutatingwebhookconfigurations")
	out := make([]admissionregistrationv1.MutatingWebhookConfiguration, 0, len(items))
	for _, o := range items {
		out = append(out, *o.(*admissionregistrationv1.MutatingWebhookConfiguration))
	}
	return out, err
}

func (s *Server) validatingWebhooks(ctx context.Context) ([]admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	items, err := s.listConfigs(ctx, "validatingwebhookconfigurations")
	out := make([]admissionregistrationv1.ValidatingWebhookConfiguration, 0, len(items))
	for _, o := range items {
		out = append(out, *o.(*admissionregistrationv1.ValidatingWebhookConfiguration))
	}
	return out, err
}

// equivalents lists the other versions gvr's group-resource is served
// at, for a webhook's matchPolicy Equivalent.
func (s *Server) equivalents(gvr schema.GroupVersionResource) []schema.GroupVersionResource {
	var out []schema.GroupVersionResource
	for _, r := range s.Resources() {
		if r.Group == gvr.Group && r.Name == gvr.Resource && r.Version != gvr.Version {
			out = append(out, schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Name})
		}
	}
	return out
}

// convertVersion turns an object of one served version into another's
// (for a webhook that asked for another version) through the stored
// version, with the versions' converters (where their shapes differ). A
// version without converters shares the stored shape.
func (s *Server) convertVersion(data []byte, from, to schema.GroupVersionResource) ([]byte, error) {
	for _, step := range []struct {
		gvr     schema.GroupVersionResource
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
// the cluster's pod network can dial it. Admission webhooks and the CRDs'
// conversion webhooks are reached through it.
func (s *Server) resolveService(ctx context.Context, namespace, name string, port int32) (string, error) {
	addrs, err := proxy.ResolveEndpoints(ctx, s.Store, namespace, name, port)
	if err != nil {
		return "", err
	}
	return addrs[0], nil
}

// policySource is what the ValidatingAdmissionPolicy plugin reads: the
// policies and their bindings (cached, admission_config_cache.go), the
// namespaces and the params.
type policySource struct{ s *Server }

var _ policy.Source = policySource{}

func (p policySource) list(ctx context.Context, group, version, resource, ns string) ([]api.Object, error) {
	st, ok := p.s.Store(group, version, resource)
	if !ok {
		return nil, nil
	}
	res, err := st.List(ctx, ns, registry.ListOptions{})
	if err != nil {
		return nil, err
	}
	return res.Items, nil
}

// Policies implements policy.Source. Policies and bindings are read on
// every write of every resource, so they are cached as the webhook
// configurations are (listConfigs): listed again only after one of them
// was written (kube-apiserver's plugin reads them from an informer).
// Every write of a Lease renewal listed both from storage before.
func (p policySource) Policies(ctx context.Context) ([]*admissionregistrationv1.ValidatingAdmissionPolicy, error) {
	items, err := p.s.listConfigs(ctx, "validatingadmissionpolicies")
	out := make([]*admissionregistrationv1.ValidatingAdmissionPolicy, 0, len(items))
	for _, o := range items {
		out = append(out, o.(*admissionregistrationv1.ValidatingAdmissionPolicy))
	}
	return out, err
}

// Bindings implements policy.Source.
func (p policySource) Bindings(ctx context.Context) ([]*admissionregistrationv1.ValidatingAdmissionPolicyBinding, error) {
	items, err := p.s.listConfigs(ctx, "validatingadmissionpolicybindings")
	out := make([]*admissionregistrationv1.ValidatingAdmissionPolicyBinding, 0, len(items))
	for _, o := range items {
		out = append(out, o.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding))
	}
	return out, err
}

// Namespace implements policy.Source.
func (p policySource) Namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	st, ok := p.s.Store("", "v1", "namespaces")
	if !ok {
		return nil, api.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	obj, err := st.Get(ctx, "", name)
	if err != nil {
		return nil, err
	}
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return nil, fmt.Errorf("namespace store returned %T", obj)
	}
	return ns, nil
}

// Params implements policy.Source: the served resource of that kind.
func (p policySource) Params(ctx context.Context, k admissionregistrationv1.ParamKind, ns string) ([]api.Object, bool, error) {
	gv, err := schema.ParseGroupVersion(k.APIVersion)
	if err != nil {
		return nil, false, err
	}
	for _, r := range p.s.Resources() {
		if r.Group == gv.Group && r.Version == gv.Version && r.Kind == k.Kind {
			items, err := p.list(ctx, r.Group, r.Version, r.Name, ns)
			return items, r.Namespaced, err
		}
	}
	return nil, false, fmt.Errorf("no resource of kind %s/%s is served", k.APIVersion, k.Kind)
}
