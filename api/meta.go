package api

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// NewControllerRef builds the controller reference an owner sets on the
// objects it creates (metav1.NewControllerRef): Controller and
// BlockOwnerDeletion are true.
func NewControllerRef(owner *metav1.ObjectMeta, gvk schema.GroupVersionKind) *metav1.OwnerReference {
	yes, block := true, true
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return &metav1.OwnerReference{
		APIVersion:         apiVersion,
		Kind:               kind,
		Name:               owner.Name,
		UID:                owner.UID,
		Controller:         &yes,
		BlockOwnerDeletion: &block,
	}
}

// GetControllerOf returns the reference marked as controller, or nil
// (metav1.GetControllerOf). The result points into meta; copy it before
// changing it.
func GetControllerOf(meta *metav1.ObjectMeta) *metav1.OwnerReference {
	for i := range meta.OwnerReferences {
		r := &meta.OwnerReferences[i]
		if r.Controller != nil && *r.Controller {
			return r
		}
	}
	return nil
}

// IsControlledBy reports whether owner is the controller of meta, matching
// by UID.
func IsControlledBy(meta *metav1.ObjectMeta, owner *metav1.ObjectMeta) bool {
	ref := GetControllerOf(meta)
	return ref != nil && ref.UID == owner.UID
}

// WatchEventType is the type of a watch event.
type WatchEventType string

// The watch event types (watch.EventType in Kubernetes).
const (
	WatchEventAdded    WatchEventType = "ADDED"
	WatchEventModified WatchEventType = "MODIFIED"
	WatchEventDeleted  WatchEventType = "DELETED"
	WatchEventBookmark WatchEventType = "BOOKMARK"
	WatchEventError    WatchEventType = "ERROR"
)
