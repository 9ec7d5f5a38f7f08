package apiserver

import (
	"context"
	"fmt"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/admission/policy"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// policySource is what the ValidatingAdmissionPolicy plugin reads, from
// the server's own stores (the real plugin's informers).
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
func (p policySource) Policies(ctx context.Context) ([]*api.ValidatingAdmissionPolicy, error) {
	items, err := p.s.listConfigs(ctx, "validatingadmissionpolicies")
	out := make([]*api.ValidatingAdmissionPolicy, 0, len(items))
	for _, o := range items {
		out = append(out, o.(*api.ValidatingAdmissionPolicy))
	}
	return out, err
}

// Bindings implements policy.Source.
func (p policySource) Bindings(ctx context.Context) ([]*api.ValidatingAdmissionPolicyBinding, error) {
	items, err := p.s.listConfigs(ctx, "validatingadmissionpolicybindings")
	out := make([]*api.ValidatingAdmissionPolicyBinding, 0, len(items))
	for _, o := range items {
		out = append(out, o.(*api.ValidatingAdmissionPolicyBinding))
	}
	return out, err
}

// Namespace implements policy.Source.
func (p policySource) Namespace(ctx context.Context, name string) (*api.Namespace, error) {
	st, ok := p.s.Store("", "v1", "namespaces")
	if !ok {
		return nil, api.NewNotFound(api.GroupResource{Resource: "namespaces"}, name)
	}
	obj, err := st.Get(ctx, "", name)
	if err != nil {
		return nil, err
	}
	ns, ok := obj.(*api.Namespace)
	if !ok {
		return nil, fmt.Errorf("namespace store returned %T", obj)
	}
	return ns, nil
}

// Params implements policy.Source: the served resource of that kind.
func (p policySource) Params(ctx context.Context, k api.ParamKind, ns string) ([]api.Object, bool, error) {
	gv, err := api.ParseGroupVersion(k.APIVersion)
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

// admissionPolicyPlugin is the ValidatingAdmissionPolicy plugin over the
// server's stores. The Warn action's messages join the admission chain's
// warnings, which the client gets as Warning headers.
func (s *Server) admissionPolicyPlugin() (*policy.Plugin, error) {
	return policy.NewPlugin(policySource{s}, admission.AddWarning)
}
