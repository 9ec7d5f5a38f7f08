package registry

import (
	"context"
	"fmt"
	"strconv"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/store"
)

// The finalizers the garbage collector acts on, named as in Kubernetes.
const (
	FinalizerOrphanDependents  = "orphan"
	FinalizerDeleteDependents  = "foregroundDeletion"
	FinalizerCustomResourceGC  = apiextensionsv1.CustomResourceCleanupFinalizer
	defaultDeleteRetryAttempts = 16
)

// DeleteResult says what a delete did.
type DeleteResult struct {
	// Object is the deleted object, or the object now marked for deletion.
	Object api.Object
	// Deleted is true when the object is gone; false when it waits for
	// finalizers or a grace period (deletionTimestamp set).
	Deleted bool
}

// Delete deletes ns/name as opts say: with preconditions, a propagation
// policy (the orphan and foregroundDeletion finalizers) and, for kinds with
// a GracePeriod, gracefully.
func (s *Store) Delete(ctx context.Context, ns, name string, opts *metav1.DeleteOptions, admit bool) (*DeleteResult, error) {
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	key := s.key(ns, name)
	for attempt := 0; ; attempt++ {
		kv, err := s.storage.Get(ctx, key)
		if err != nil {
			return nil, s.storeError(err, name)
		}
		obj, err := s.decodeKV(kv)
		if err != nil {
			if u := opts.IgnoreStoreReadErrorWithClusterBreakingPotential; u != nil && *u {
				return s.unsafeDelete(ctx, ns, name, kv)
			}
			return nil, err
		}
		meta := api.Meta(obj)
		if err := s.checkPreconditions(meta, opts.Preconditions); err != nil {
			return nil, err
		}
		// Delete admission sees the stored object as the old one; there is
		// no new object for a mutating plugin to change.
		attrs := s.attributes(ctx, admission.Delete, nil, obj, "", len(opts.DryRun) > 0, opts)
		if err := s.mutate(ctx, admit, attrs); err != nil {
			return nil, err
		}
		if err := s.validate(ctx, admit, attrs); err != nil {
			return nil, err
		}
		changed := s.addPropagationFinalizer(meta, opts)
		if s.res.PrepareForDelete != nil && meta.DeletionTimestamp == nil && s.res.PrepareForDelete(obj) {
			// Waits for a finalizer outside metadata (a namespace's
			// spec.finalizers): deletion begins now, without grace.
			changed = true
			ts := metav1.NewTime(s.clock.Now().UTC().Truncate(time.Second))
			meta.DeletionTimestamp = &ts
			zero := int64(0)
			meta.DeletionGracePeriodSeconds = &zero
			onDeletion(meta)
		}
		grace := int64(0)
		if s.res.GracePeriod != nil {
			grace = s.res.GracePeriod(obj, opts.GracePeriodSeconds)
		}
		now := s.clock.Now().UTC().Truncate(time.Second)
		switch {
		case meta.DeletionTimestamp == nil && (grace > 0 || len(meta.Finalizers) > 0):
			// Deletion begins: mark it; finalizers and the kubelet finish it.
			ts := metav1.NewTime(now.Add(time.Duration(grace) * time.Second))
			meta.DeletionTimestamp = &ts
			g := grace
			meta.DeletionGracePeriodSeconds = &g
			onDeletion(meta)
			changed = true
		case meta.DeletionTimestamp != nil && meta.DeletionGracePeriodSeconds != nil && grace < *meta.DeletionGracePeriodSeconds:
			// A second delete may only shorten the grace period.
			ts := metav1.NewTime(now.Add(time.Duration(grace) * time.Second))
			meta.DeletionTimestamp = &ts
			g := grace
			meta.DeletionGracePeriodSeconds = &g
			changed = true
		}
		if !changed && meta.DeletionTimestamp != nil && !s.finalizable(obj) {
			// Already being deleted and nothing to change.
			return &DeleteResult{Object: obj}, nil
		}
		if len(opts.DryRun) > 0 {
			return &DeleteResult{Object: obj, Deleted: s.finalizable(obj) || meta.DeletionTimestamp == nil}, nil
		}
		if meta.DeletionTimestamp != nil && !s.finalizable(obj) {
			data, err := s.encode(obj)
			if err != nil {
				return nil, err
			}
			res, err := s.storage.Update(ctx, key, data, store.Preconditions{ResourceVersion: kv.ModRevision})
			if store.IsConflict(err) && attempt < defaultDeleteRetryAttempts {
				continue
			}
			if err != nil {
				return nil, s.storeError(err, name)
			}
			meta.ResourceVersion = strconv.FormatInt(res.ModRevision, 10)
			return &DeleteResult{Object: obj}, nil
		}
		res, err := s.storage.Delete(ctx, key, store.Preconditions{ResourceVersion: kv.ModRevision})
		if store.IsConflict(err) && attempt < defaultDeleteRetryAttempts {
			continue
		}
		if err != nil {
			return nil, s.storeError(err, name)
		}
		meta.ResourceVersion = strconv.FormatInt(res.ModRevision, 10)
		return &DeleteResult{Object: obj, Deleted: true}, nil
	}
}

func (s *Store) checkPreconditions(meta *metav1.ObjectMeta, pre *metav1.Preconditions) error {
	if pre == nil {
		return nil
	}
	gr := s.res.GroupResource()
	if pre.UID != nil && *pre.UID != meta.UID {
		return api.NewConflict(gr, meta.Name, fmt.Errorf(
			"Precondition failed: UID in precondition: %v, UID in object meta: %v", *pre.UID, meta.UID))
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != meta.ResourceVersion {
		return api.NewConflict(gr, meta.Name, fmt.Errorf(
			"Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *pre.ResourceVersion, meta.ResourceVersion))
	}
	return nil
}

// addPropagationFinalizer adds the finalizer that tells the garbage
// collector what to do with dependents (orphan them, or delete them first).
// Background needs none: the collector deletes orphans it finds.
func (s *Store) addPropagationFinalizer(meta *metav1.ObjectMeta, opts *metav1.DeleteOptions) bool {
	policy := metav1.DeletePropagationBackground
	if opts.PropagationPolicy != nil {
		policy = *opts.PropagationPolicy
	} else if opts.OrphanDependents != nil && *opts.OrphanDependents {
		policy = metav1.DeletePropagationOrphan
	}
	var want string
	switch policy {
	case metav1.DeletePropagationOrphan:
		want = FinalizerOrphanDependents
	case metav1.DeletePropagationForeground:
		want = FinalizerDeleteDependents
	default:
		return false
	}
	if contains(meta.Finalizers, want) {
		return false
	}
	meta.Finalizers = append(meta.Finalizers, want)
	return true
}

// DeleteCollection deletes every object of ns that matches opts, one by one,
// and returns what it deleted or marked.
func (s *Store) DeleteCollection(ctx context.Context, ns string, list ListOptions, opts *metav1.DeleteOptions, admit bool) ([]api.Object, error) {
	res, err := s.List(ctx, ns, ListOptions{Labels: list.Labels, Fields: list.Fields})
	if err != nil {
		return nil, err
	}
	var out []api.Object
	for _, obj := range res.Items {
		m := api.Meta(obj)
		r, err := s.Delete(ctx, m.Namespace, m.Name, opts, admit)
		if api.IsNotFound(err) {
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, r.Object)
	}
	return out, nil
}

// unsafeDelete removes the key of an object that cannot be decoded, as
// kube-apiserver's unsafe deletion of a corrupt object: no finalizers, no
// preconditions, no admission (there is no object to show them). Watchers
// see a DELETED event for a name-only object.
func (s *Store) unsafeDelete(ctx context.Context, ns, name string, kv store.KeyValue) (*DeleteResult, error) {
	res, err := s.storage.Delete(ctx, kv.Key, store.Preconditions{ResourceVersion: kv.ModRevision})
	if err != nil {
		return nil, s.storeError(err, name)
	}
	obj := s.res.New()
	s.setTypeMeta(obj)
	meta := api.Meta(obj)
	meta.Name, meta.Namespace = name, ns
	meta.ResourceVersion = strconv.FormatInt(res.ModRevision, 10)
	return &DeleteResult{Object: obj, Deleted: true}, nil
}
