package api

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TypeMeta says what an object is: its apiVersion and kind. Every object
// and list sent over the wire starts with it.
type TypeMeta = metav1.TypeMeta

// ObjectMeta is the metadata every persisted object has (metav1.ObjectMeta).
type ObjectMeta = metav1.ObjectMeta

// ManagedFieldsOperationType is the kind of write that set some fields.
type ManagedFieldsOperationType = metav1.ManagedFieldsOperationType

// The operations of managedFields.
const (
	ManagedFieldsOperationApply  ManagedFieldsOperationType = "Apply"
	ManagedFieldsOperationUpdate ManagedFieldsOperationType = "Update"
)

// ManagedFieldsEntry is one manager's set of fields.
type ManagedFieldsEntry = metav1.ManagedFieldsEntry

// ListMeta is the metadata of a list (metav1.ListMeta).
type ListMeta = metav1.ListMeta

// OwnerReference names an object that owns this one.
type OwnerReference = metav1.OwnerReference

// NewControllerRef builds the controller reference an owner sets on the
// objects it creates (metav1.NewControllerRef): Controller and
// BlockOwnerDeletion are true.
func NewControllerRef(owner *ObjectMeta, gvk GroupVersionKind) *OwnerReference {
	yes, block := true, true
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return &OwnerReference{
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
func GetControllerOf(meta *ObjectMeta) *OwnerReference {
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
func IsControlledBy(meta *ObjectMeta, owner *ObjectMeta) bool {
	ref := GetControllerOf(meta)
	return ref != nil && ref.UID == owner.UID
}

// ConditionStatus is the status of a condition: True, False or Unknown. It
// is shared by metav1.Condition and the core/v1 and apps/v1 conditions.
type ConditionStatus = corev1.ConditionStatus

// The three condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// Condition is the standard condition of newer APIs (metav1.Condition).
type Condition = metav1.Condition

// LabelSelector selects objects by labels: all matchLabels and all
// matchExpressions must hold. An empty selector matches everything, a nil
// one nothing.
type LabelSelector = metav1.LabelSelector

// LabelSelectorOperator relates a key to values.
type LabelSelectorOperator = metav1.LabelSelectorOperator

// The label selector operators.
const (
	LabelSelectorOpIn           LabelSelectorOperator = "In"
	LabelSelectorOpNotIn        LabelSelectorOperator = "NotIn"
	LabelSelectorOpExists       LabelSelectorOperator = "Exists"
	LabelSelectorOpDoesNotExist LabelSelectorOperator = "DoesNotExist"
)

// LabelSelectorRequirement is one set-based requirement.
type LabelSelectorRequirement = metav1.LabelSelectorRequirement

// DeletionPropagation says what happens to dependents when an owner is
// deleted.
type DeletionPropagation = metav1.DeletionPropagation

// The propagation policies.
const (
	// DeletePropagationOrphan leaves dependents, removing their reference.
	DeletePropagationOrphan DeletionPropagation = "Orphan"
	// DeletePropagationBackground deletes the owner now and dependents later.
	DeletePropagationBackground DeletionPropagation = "Background"
	// DeletePropagationForeground deletes dependents first.
	DeletePropagationForeground DeletionPropagation = "Foreground"
)

// The finalizers the garbage collector uses to implement propagation.
const (
	FinalizerOrphanDependents = "orphan"
	FinalizerDeleteDependents = "foregroundDeletion"
)

// DeleteOptions is the optional body of a DELETE.
type DeleteOptions = metav1.DeleteOptions

// Preconditions are checked before a delete.
type Preconditions = metav1.Preconditions

// DryRunAll is the only value of dryRun.
const DryRunAll = "All"

// PartialObjectMetadata is an object reduced to its metadata, served when
// a client asks for as=PartialObjectMetadata.
type PartialObjectMetadata = metav1.PartialObjectMetadata

// PartialObjectMetadataList is a list of PartialObjectMetadata.
type PartialObjectMetadataList = metav1.PartialObjectMetadataList

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

// WatchEvent is one line of a watch stream (metav1.WatchEvent).
type WatchEvent = metav1.WatchEvent

// FieldsV1 is a managedFields entry's set of fields, as JSON.
type FieldsV1 = metav1.FieldsV1
