package handlers

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// Two kinds of write never reach the store's Create or Update, so the
// handler runs the admission chain for them itself, as kube-apiserver's
// handlers do:
//   - a subresource create (pods/binding, pods/eviction): CREATE with the
//     posted object (a Binding, an Eviction) as the object, the parent's
//     resource and the subresource, no old object (createHandler);
//   - a CONNECT (pods/exec, pods/attach, pods/portforward): the options
//     decoded from the query (PodExecOptions, ...) as the object, no old
//     object, no options, never a dry run (ConnectResource).
//
// Mutating plugins run first, then validating ones; a refusal ends the
// request before anything happens.

// admitSubresource runs the parent store's chain on a.
func admitSubresource(ctx context.Context, st *registry.Store, a *admission.Attributes) error {
	chain := st.Admission()
	if len(chain) == 0 {
		return nil
	}
	if u, ok := authn.UserFrom(ctx); ok {
		a.User = u
	}
	if err := chain.Mutate(ctx, a); err != nil {
		return err
	}
	return chain.Validate(ctx, a)
}

// parentResource is the resource a subresource belongs to.
func parentResource(res *registry.Resource) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: res.Group, Version: res.Version, Resource: res.Name}
}

// admitConnect admits a CONNECT to res/sub of ns/name with opts.
func admitConnect(ctx context.Context, st *registry.Store, res *registry.Resource, sub, ns, name string, opts api.Object) error {
	tm := api.TypeMetaOf(opts)
	gv, _ := schema.ParseGroupVersion(tm.APIVersion)
	return admitSubresource(ctx, st, &admission.Attributes{
		Operation:   admission.Connect,
		Resource:    parentResource(res),
		Subresource: sub,
		Kind:        schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: tm.Kind},
		Namespace:   ns,
		Name:        name,
		Object:      opts,
	})
}

// admitCreateSubresource admits obj posted to res/sub of ns/name.
func admitCreateSubresource(ctx context.Context, st *registry.Store, res *registry.Resource, sub registry.CreateSubresource, subName, ns, name string, obj api.Object, dryRun bool) error {
	return admitSubresource(ctx, st, &admission.Attributes{
		Operation:   admission.Create,
		Resource:    parentResource(res),
		Subresource: subName,
		Kind:        sub.Resource.GroupVersionKind(),
		Namespace:   ns,
		Name:        name,
		Object:      obj,
		DryRun:      dryRun,
	})
}
