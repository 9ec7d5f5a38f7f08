package apiserver

import (
	"context"
	"fmt"
	"slices"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// withPolicyAdmission puts the issue 12 part 6 plugins where
// kube-apiserver's recommended order has them: LimitRanger right after
// NamespaceLifecycle (before ServiceAccount), Priority after
// ServiceAccount, ResourceQuota last.
func (s *Server) withPolicyAdmission(chain admission.Chain) admission.Chain {
	// LimitRanger and Priority only read what they list (every pod
	// create lists both): shared objects, decoded once per revision.
	limits := &admission.LimitRanger{List: listObjects[*api.LimitRange](s, (*registry.Store).ListShared, "", "limitranges")}
	classes := listObjects[*api.PriorityClass](s, (*registry.Store).ListShared, api.SchedulingGroupName, "priorityclasses")
	priority := &admission.Priority{List: func(ctx context.Context) ([]*api.PriorityClass, error) { return classes(ctx, "") }}
	quotas := &admission.ResourceQuota{List: listObjects[*api.ResourceQuota](s, (*registry.Store).List, "", "resourcequotas"), WriteStatus: s.writeQuotaStatus}
	out := slices.Clone(chain)
	at := 0
	if len(out) > 0 {
		if _, ok := out[0].(*admission.NamespaceLifecycle); ok {
			at = 1
		}
	}
	out = slices.Insert(out, at, any(limits))
	at++
	for i, p := range out {
		if _, ok := p.(*admission.ServiceAccount); ok {
			at = i + 1
		}
	}
	out = slices.Insert(out, at, any(priority))
	return append(out, quotas)
}

// listObjects lists one resource's objects of a namespace ("" for all, or
// a cluster-scoped resource) from the server's own storage with list:
// (*registry.Store).List for a plugin that changes what it lists,
// (*registry.Store).ListShared for one that only reads (the objects are
// then the store's cached ones, decoded again only when their revision
// changed).
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

// writeQuotaStatus writes the quota's status if the quota is still the one
// read (its resourceVersion), and a conflict otherwise.
func (s *Server) writeQuotaStatus(ctx context.Context, q *api.ResourceQuota) error {
	st, ok := s.Store("", "v1", "resourcequotas")
	if !ok {
		return nil
	}
	_, _, err := st.Update(ctx, q.Namespace, q.Name, func(cur api.Object) (api.Object, error) {
		if api.Meta(cur).ResourceVersion != q.ResourceVersion {
			return nil, api.NewOptimisticLockConflict(api.GroupResource{Resource: "resourcequotas"}, q.Name)
		}
		upd := cur.(*api.ResourceQuota)
		upd.Status = q.Status
		return upd, nil
	}, registry.UpdateOptions{Subresource: "status"})
	return err
}
