package registry

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/authn"
)

// The registry calls the admission chain at the two points
// kube-apiserver does: mutating admission once the object is decoded and
// defaulted, validating admission once the kind's own validation passed
// (rest.BeforeCreate / BeforeUpdate, then the createValidation and
// updateValidation functions). Nothing is stored when either refuses.

// attributes describes a write for the chain.
func (s *Store) attributes(ctx context.Context, op admission.Operation, obj, old api.Object, subresource string, dryRun bool, options any) *admission.Attributes {
	a := &admission.Attributes{
		Operation:   op,
		Resource:    schema.GroupVersionResource{Group: s.res.Group, Version: s.res.Version, Resource: s.res.Name},
		Subresource: subresource,
		Kind:        s.res.GroupVersionKind(),
		Object:      obj,
		OldObject:   old,
		DryRun:      dryRun,
		Options:     options,
	}
	for _, o := range []api.Object{obj, old} {
		if o != nil {
			a.Name, a.Namespace = api.Meta(o).Name, api.Meta(o).Namespace
			break
		}
	}
	if u, ok := authn.UserFrom(ctx); ok {
		a.User = u
	}
	return a
}

// mutate runs the chain's mutating plugins on a client's write.
func (s *Store) mutate(ctx context.Context, admit bool, a *admission.Attributes) error {
	if !admit || len(s.admit) == 0 {
		return nil
	}
	return s.admit.Mutate(ctx, a)
}

// validate runs the chain's validating plugins on a client's write.
func (s *Store) validate(ctx context.Context, admit bool, a *admission.Attributes) error {
	if !admit || len(s.admit) == 0 {
		return nil
	}
	return s.admit.Validate(ctx, a)
}

// Admission is the store's chain, for the writes that do not go through
// Create, Update or Delete: a CONNECT (pods/exec, pods/attach,
// pods/portforward) or a subresource create (pods/eviction,
// pods/binding) runs Mutate then Validate on its own Attributes.
func (s *Store) Admission() admission.Chain { return s.admit }
