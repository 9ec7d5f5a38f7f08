package garbagecollector

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/controllers"
)

// Reconcile implements controllers.Reconciler: key is
// "<action> <Kind> <namespace/name> <uid>".
func (gc *GarbageCollector) Reconcile(ctx context.Context, key string) (controllers.Result, error) {
	action, uid, ok := parseKey(key)
	if !ok {
		return controllers.Result{}, nil
	}
	gc.mu.Lock()
	item, found := gc.graph.snapshot(uid)
	gc.mu.Unlock()
	if !found {
		// Gone from the graph since it was queued: nothing to do.
		return controllers.Result{}, nil
	}
	switch action {
	case actionDelete:
		return controllers.Result{}, gc.attemptToDeleteItem(ctx, item)
	case actionOrphan:
		return controllers.Result{}, gc.attemptToOrphan(ctx, item)
	}
	return controllers.Result{}, nil
}

// resourceOf returns the resource and the namespace to address a node at:
// the monitor that saw it, or the mapping of its kind while it is virtual.
func (gc *GarbageCollector) resourceOf(ctx context.Context, id objectReference, observed client.ResourceInfo, isObserved bool) (client.ResourceInfo, string, error) {
	info := observed
	if !isObserved {
		var err error
		if info, err = gc.mapper.resourceFor(ctx, id.APIVersion, id.Kind); err != nil {
			return client.ResourceInfo{}, "", err
		}
	}
	ns := id.Namespace
	if !info.Namespaced {
		ns = ""
	}
	return info, ns, nil
}

// getObject reads the node's object from the API server (not the cache).
func (gc *GarbageCollector) getObject(ctx context.Context, id objectReference, info client.ResourceInfo, observed bool) (*unstructured.Unstructured, client.ResourceInfo, error) {
	info, ns, err := gc.resourceOf(ctx, id, info, observed)
	if err != nil {
		return nil, info, err
	}
	obj, err := client.Dynamic(gc.cfg.Client, info).Get(ctx, ns, id.Name)
	return obj, info, err
}

// virtualDelete removes a node the API server says does not exist, as if
// its delete event had been observed: its dependents are checked next.
func (gc *GarbageCollector) virtualDelete(id objectReference) {
	gc.mu.Lock()
	w := gc.graph.remove(id.UID, controllers.Cause{Event: "absent", Kind: id.Kind, Namespace: id.Namespace, Name: id.Name})
	gc.graph.markAbsent(id.UID)
	gc.mu.Unlock()
	gc.enqueue(w)
}

// attemptToDeleteItem decides whether the item must go (the real
// attemptToDeleteItem).
func (gc *GarbageCollector) attemptToDeleteItem(ctx context.Context, item snapshot) error {
	if item.beingDeleted && !item.deletingDependents {
		// Already on its way out; nothing for the collector to add.
		return nil
	}
	latest, info, err := gc.getObject(ctx, item.identity, item.resource, item.observed)
	switch {
	case api.IsNotFound(err):
		gc.virtualDelete(item.identity)
		return nil
	case err != nil:
		return err
	case latest.UID != item.identity.UID:
		gc.virtualDelete(item.identity)
		return nil
	}
	if !item.observed {
		// A virtual owner that exists: its monitor will observe it. (An
		// owner of an unwatched kind stays virtual; see doc.go.)
		return nil
	}
	if item.deletingDependents {
		return gc.processDeletingDependentsItem(ctx, item, latest, info)
	}
	refs := latest.OwnerReferences
	if len(refs) == 0 {
		return nil
	}
	c, err := gc.classifyReferences(ctx, latest.Namespace, refs)
	if err != nil {
		return err
	}
	depDeleting := false
	for _, d := range item.dependents {
		if d.deletingDependents {
			depDeleting = true
		}
	}
	p := decide(c, len(item.dependents) > 0, depDeleting, latest.Finalizers)
	switch p.Kind {
	case planRemoveReferences:
		gc.logger.Debug("removing references to absent or deleting owners", "item", item.identity.String(), "owners", p.RemoveUIDs)
		refs, changed := withoutOwners(refs, p.RemoveUIDs)
		if !changed {
			return nil
		}
		return gc.patchOwnerReferences(ctx, info, latest, refs)
	case planUnblockAndDelete:
		if refs, changed := unblocked(refs); changed {
			if err := gc.patchOwnerReferences(ctx, info, latest, refs); err != nil {
				return err
			}
		}
		return gc.deleteObject(ctx, info, latest, p.Policy)
	case planDelete:
		gc.logger.Debug("deleting an object whose owners are gone", "item", item.identity.String(), "propagationPolicy", p.Policy)
		return gc.deleteObject(ctx, info, latest, p.Policy)
	}
	return nil
}

// classifyReferences looks up every owner with a live GET (the real
// classifyReferences and isDangling).
func (gc *GarbageCollector) classifyReferences(ctx context.Context, namespace string, refs []metav1.OwnerReference) (classified, error) {
	var c classified
	for _, ref := range refs {
		state, err := gc.ownerStateOf(ctx, namespace, ref)
		if err != nil {
			return c, err
		}
		switch state {
		case ownerSolid:
			c.solid = append(c.solid, ref)
		case ownerDangling:
			c.dangling = append(c.dangling, ref)
		case ownerWaiting:
			c.waiting = append(c.waiting, ref)
		}
	}
	return c, nil
}

func (gc *GarbageCollector) ownerStateOf(ctx context.Context, namespace string, ref metav1.OwnerReference) (ownerState, error) {
	gc.mu.Lock()
	absent := gc.graph.absent[ref.UID]
	gc.mu.Unlock()
	if absent {
		return ownerDangling, nil
	}
	info, err := gc.mapper.resourceFor(ctx, ref.APIVersion, ref.Kind)
	if err != nil {
		return 0, err
	}
	ns := ""
	if info.Namespaced {
		if namespace == "" {
			// A cluster-scoped dependent cannot have a namespaced
			// owner: the reference cannot resolve.
			return ownerDangling, nil
		}
		ns = namespace
	}
	owner, err := client.Dynamic(gc.cfg.Client, info).Get(ctx, ns, ref.Name)
	switch {
	case api.IsNotFound(err):
		gc.noteAbsent(ref.UID)
		return ownerDangling, nil
	case err != nil:
		return 0, err
	case owner.UID != ref.UID:
		gc.noteAbsent(ref.UID)
		return ownerDangling, nil
	case owner.DeletionTimestamp != nil && slices.Contains(owner.Finalizers, metav1.FinalizerDeleteDependents):
		return ownerWaiting, nil
	}
	return ownerSolid, nil
}

func (gc *GarbageCollector) noteAbsent(uid types.UID) {
	gc.mu.Lock()
	gc.graph.markAbsent(uid)
	gc.mu.Unlock()
}

// processDeletingDependentsItem finishes a foreground delete once no
// blocking dependent is left, and otherwise makes sure they are on their
// way.
func (gc *GarbageCollector) processDeletingDependentsItem(ctx context.Context, item snapshot, latest *unstructured.Unstructured, info client.ResourceInfo) error {
	blocking := blockingDependents(item)
	if len(blocking) == 0 {
		gc.logger.Debug("no blocking dependents left; removing the foregroundDeletion finalizer", "item", item.identity.String())
		return gc.removeFinalizer(ctx, info, latest, metav1.FinalizerDeleteDependents)
	}
	for _, d := range blocking {
		if d.beingDeleted {
			// Its delete event will bring the owner back here.
			continue
		}
		gc.mu.Lock()
		n, ok := gc.graph.uidToNode[d.identity.UID]
		var key string
		if ok {
			key = itemKey(actionDelete, n)
		}
		gc.mu.Unlock()
		if ok {
			gc.ctrl.Enqueue(key, controllers.Cause{Event: "owner waits", Kind: item.identity.Kind,
				Namespace: item.identity.Namespace, Name: item.identity.Name})
		}
	}
	return nil
}

// attemptToOrphan removes the owner's reference from every dependent, then
// the orphan finalizer from the owner (the real attemptToOrphanWorker).
func (gc *GarbageCollector) attemptToOrphan(ctx context.Context, owner snapshot) error {
	for _, d := range owner.dependents {
		dep, info, err := gc.getObject(ctx, d.identity, d.resource, true)
		if api.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if dep.UID != d.identity.UID {
			continue
		}
		refs, changed := withoutOwners(dep.OwnerReferences, []types.UID{owner.identity.UID})
		if !changed {
			continue
		}
		if err := gc.patchOwnerReferences(ctx, info, dep, refs); err != nil && !api.IsNotFound(err) {
			return err
		}
	}
	latest, info, err := gc.getObject(ctx, owner.identity, owner.resource, owner.observed)
	if api.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if latest.UID != owner.identity.UID {
		return nil
	}
	return gc.removeFinalizer(ctx, info, latest, metav1.FinalizerOrphanDependents)
}

// deleteObject deletes obj with policy, on the condition that it is still
// the same object (uid precondition).
func (gc *GarbageCollector) deleteObject(ctx context.Context, info client.ResourceInfo, obj *unstructured.Unstructured, policy metav1.DeletionPropagation) error {
	uid := obj.UID
	err := client.Dynamic(gc.cfg.Client, info).Delete(ctx, obj.Namespace, obj.Name,
		&metav1.DeleteOptions{PropagationPolicy: &policy, Preconditions: &metav1.Preconditions{UID: &uid}})
	if api.IsNotFound(err) {
		return nil
	}
	return err
}

// metadataPatch is a JSON merge patch of metadata fields, always carrying
// uid and resourceVersion so that it applies only to the object read.
func metadataPatch(obj *unstructured.Unstructured, fields map[string]any) ([]byte, error) {
	md := map[string]any{"uid": obj.UID, "resourceVersion": obj.ResourceVersion}
	for k, v := range fields {
		md[k] = v
	}
	return json.Marshal(map[string]any{"metadata": md})
}

// patchOwnerReferences sets obj's ownerReferences to refs.
func (gc *GarbageCollector) patchOwnerReferences(ctx context.Context, info client.ResourceInfo, obj *unstructured.Unstructured, refs []metav1.OwnerReference) error {
	var v any = refs
	if len(refs) == 0 {
		v = nil // null removes the field in a merge patch
	}
	data, err := metadataPatch(obj, map[string]any{"ownerReferences": v})
	if err != nil {
		return err
	}
	_, err = client.Dynamic(gc.cfg.Client, info).Patch(ctx, obj.Namespace, obj.Name, client.MergePatch, data)
	if err != nil {
		return fmt.Errorf("removing owner references of %s %s/%s: %w", obj.Kind, obj.Namespace, obj.Name, err)
	}
	return nil
}

// removeFinalizer removes finalizer from obj, which lets the API server
// finish deleting it when it was the last one.
func (gc *GarbageCollector) removeFinalizer(ctx context.Context, info client.ResourceInfo, obj *unstructured.Unstructured, finalizer string) error {
	if !slices.Contains(obj.Finalizers, finalizer) {
		return nil
	}
	var v any = without(obj.Finalizers, finalizer)
	if len(obj.Finalizers) == 1 {
		v = nil
	}
	data, err := metadataPatch(obj, map[string]any{"finalizers": v})
	if err != nil {
		return err
	}
	_, err = client.Dynamic(gc.cfg.Client, info).Patch(ctx, obj.Namespace, obj.Name, client.MergePatch, data)
	if api.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("removing the %s finalizer of %s %s/%s: %w", finalizer, obj.Kind, obj.Namespace, obj.Name, err)
	}
	return nil
}
