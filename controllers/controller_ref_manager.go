package controllers

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
)

// ClaimConfig says how an owner claims its dependents.
type ClaimConfig[T api.Object] struct {
	// Owner is the controller that claims (a ReplicaSet, say); OwnerKind
	// its kind, for the controller reference.
	Owner     *metav1.ObjectMeta
	OwnerKind schema.GroupVersionKind
	// Dependents is the client of the dependents' resource: adoption and
	// release are strategic merge patches through it.
	Dependents *client.Resource[T]
	// DependentKind names a dependent in errors ("Pod").
	DependentKind string
	// Match reports whether the owner wants a dependent: its selector, and
	// for a StatefulSet also a name of one of its ordinals.
	Match func(T) bool
	// GetFresh reads the owner again from the API server, not the cache,
	// before the first adoption (Kubernetes' RecheckDeletionTimestamp): an
	// owner being deleted, or a new one under the same name, adopts
	// nothing.
	GetFresh func(ctx context.Context) (*metav1.ObjectMeta, error)
	// AbortIfCannotAdopt makes a failed GetFresh end the whole claim with
	// its error, instead of skipping each orphan with it. The Deployment
	// controller sets it on purpose: syncing a Deployment from ReplicaSets
	// it may not own would roll out from the wrong state, while a
	// ReplicaSet simply counts the pods it already has.
	AbortIfCannotAdopt bool
}

// ClaimObjects returns the candidates the owner controls and matches,
// after adopting the matching orphans and releasing the owned ones that
// no longer match (ControllerRefManager.ClaimObject, for every candidate).
// Objects owned by another controller are left alone. Errors are joined;
// a dependent gone meanwhile is no error.
func ClaimObjects[T api.Object](ctx context.Context, cfg ClaimConfig[T], candidates []T) ([]T, error) {
	var claimed []T
	var errs []error
	var canAdopt error
	checked := false
	for _, obj := range candidates {
		m := api.Meta(obj)
		ref := api.GetControllerOf(m)
		match := cfg.Match(obj)
		switch {
		case ref != nil && ref.UID != cfg.Owner.UID:
			// Owned by another controller.
		case ref != nil && match:
			claimed = append(claimed, obj)
		case ref != nil:
			// Ours but no longer wanted: release it, unless the owner is
			// going away (the garbage collector then decides).
			if cfg.Owner.DeletionTimestamp != nil {
				continue
			}
			if err := release(ctx, cfg, m); err != nil && !api.IsNotFound(err) {
				errs = append(errs, err)
			}
		default:
			if cfg.Owner.DeletionTimestamp != nil || !match || m.DeletionTimestamp != nil || m.Namespace != cfg.Owner.Namespace {
				continue
			}
			if !checked {
				canAdopt, checked = recheck(ctx, cfg), true
			}
			if canAdopt != nil {
				err := fmt.Errorf("can't adopt %s %s/%s (%s): %w", cfg.DependentKind, m.Namespace, m.Name, m.UID, canAdopt)
				if cfg.AbortIfCannotAdopt {
					return nil, err
				}
				errs = append(errs, err)
				continue
			}
			adopted, err := adopt(ctx, cfg, m)
			if err != nil {
				if !api.IsNotFound(err) {
					errs = append(errs, err)
				}
				continue
			}
			claimed = append(claimed, adopted)
		}
	}
	return claimed, errors.Join(errs...)
}

// recheck is the quorum read before adopting, worded as Kubernetes'.
func recheck[T api.Object](ctx context.Context, cfg ClaimConfig[T]) error {
	fresh, err := cfg.GetFresh(ctx)
	if err != nil {
		return err
	}
	o := cfg.Owner
	if fresh.UID != o.UID {
		return fmt.Errorf("original %s %s/%s is gone: got uid %s, wanted %s", cfg.OwnerKind.Kind, o.Namespace, o.Name, fresh.UID, o.UID)
	}
	if fresh.DeletionTimestamp != nil {
		return fmt.Errorf("%s/%s has just been deleted at %v", o.Namespace, o.Name, fresh.DeletionTimestamp.Time)
	}
	return nil
}

// adopt makes the owner the dependent's controller (AdoptPatch).
func adopt[T api.Object](ctx context.Context, cfg ClaimConfig[T], m *metav1.ObjectMeta) (T, error) {
	patch, err := AdoptPatch(cfg.Owner, cfg.OwnerKind, m.UID)
	if err != nil {
		var zero T
		return zero, err
	}
	return cfg.Dependents.Patch(ctx, m.Namespace, m.Name, client.StrategicPatch, patch)
}

// release removes the owner's reference from the dependent (ReleasePatch).
func release[T api.Object](ctx context.Context, cfg ClaimConfig[T], m *metav1.ObjectMeta) error {
	patch, err := ReleasePatch(cfg.Owner.UID, m.UID)
	if err != nil {
		return err
	}
	_, err = cfg.Dependents.Patch(ctx, m.Namespace, m.Name, client.StrategicPatch, patch)
	return err
}
