package api

import "encoding/json"

// TypeMeta says what an object is: its apiVersion and kind. Every object
// and list sent over the wire starts with it.
type TypeMeta struct {
	// Kind is the CamelCase type name, such as Pod.
	Kind string `json:"kind,omitempty"`
	// APIVersion is the group/version, such as apps/v1 or v1.
	APIVersion string `json:"apiVersion,omitempty"`
}

// GetObjectKind gives access to the type fields; it is promoted to every
// type that embeds TypeMeta, as in Kubernetes.
func (t *TypeMeta) GetObjectKind() *TypeMeta { return t }

// GroupVersionKind parses apiVersion and kind.
func (t *TypeMeta) GroupVersionKind() GroupVersionKind {
	return FromAPIVersionAndKind(t.APIVersion, t.Kind)
}

// SetGroupVersionKind sets apiVersion and kind.
func (t *TypeMeta) SetGroupVersionKind(gvk GroupVersionKind) {
	t.APIVersion, t.Kind = gvk.ToAPIVersionAndKind()
}

// ObjectMeta is the metadata every persisted object has (metav1.ObjectMeta).
type ObjectMeta struct {
	// Name is unique within a namespace and a resource.
	Name string `json:"name,omitempty"`
	// GenerateName is a prefix the server completes to a unique name when
	// Name is empty.
	GenerateName string `json:"generateName,omitempty"`
	// Namespace is empty for cluster-scoped objects.
	Namespace string `json:"namespace,omitempty"`
	// UID is set by the server at creation and never reused.
	UID string `json:"uid,omitempty"`
	// ResourceVersion is the opaque store revision of the last write; an
	// update carrying an old one fails with a Conflict.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Generation counts changes to the desired state (spec).
	Generation int64 `json:"generation,omitempty"`
	// CreationTimestamp is set by the server; it marshals as null when
	// unset, as in Kubernetes, because a struct is never omitted.
	CreationTimestamp Time `json:"creationTimestamp,omitempty"`
	// DeletionTimestamp is set when a graceful delete begins; the object
	// lingers until its finalizers are gone.
	DeletionTimestamp *Time `json:"deletionTimestamp,omitempty"`
	// DeletionGracePeriodSeconds is the grace period of the pending delete.
	DeletionGracePeriodSeconds *int64 `json:"deletionGracePeriodSeconds,omitempty"`
	// Labels are selectable key/value pairs.
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are non-selectable key/value pairs for tools.
	Annotations map[string]string `json:"annotations,omitempty"`
	// OwnerReferences name the objects this one depends on; the garbage
	// collector deletes it when they are gone.
	OwnerReferences []OwnerReference `json:"ownerReferences,omitempty" patchStrategy:"merge" patchMergeKey:"uid"`
	// Finalizers must all be removed before a deleted object goes away.
	Finalizers []string `json:"finalizers,omitempty" patchStrategy:"merge"`
	// ManagedFields records which manager set which fields (server-side
	// apply); kubesim only carries it through.
	ManagedFields []ManagedFieldsEntry `json:"managedFields,omitempty"`
}

// GetObjectMeta gives access to the metadata; it is promoted to every type
// that embeds ObjectMeta.
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// ManagedFieldsOperationType is the kind of write that set some fields.
type ManagedFieldsOperationType string

// The operations of managedFields.
const (
	ManagedFieldsOperationApply  ManagedFieldsOperationType = "Apply"
	ManagedFieldsOperationUpdate ManagedFieldsOperationType = "Update"
)

// ManagedFieldsEntry is one manager's set of fields.
type ManagedFieldsEntry struct {
	// Manager identifies the writer (kubectl, kube-controller-manager...).
	Manager string `json:"manager,omitempty"`
	// Operation is Apply or Update.
	Operation ManagedFieldsOperationType `json:"operation,omitempty"`
	// APIVersion is the version the fields are expressed in.
	APIVersion string `json:"apiVersion,omitempty"`
	// Time is when the entry last changed.
	Time *Time `json:"time,omitempty"`
	// FieldsType is the format of FieldsV1, always "FieldsV1".
	FieldsType string `json:"fieldsType,omitempty"`
	// FieldsV1 is the field set as raw JSON, kept as received.
	FieldsV1 json.RawMessage `json:"fieldsV1,omitempty"`
	// Subresource is the subresource written through, if any.
	Subresource string `json:"subresource,omitempty"`
}

// ListMeta is the metadata of a list (metav1.ListMeta).
type ListMeta struct {
	// ResourceVersion is the store revision the list was read at; a watch
	// started from it misses nothing.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Continue is the token for the next page of a chunked list.
	Continue string `json:"continue,omitempty"`
	// RemainingItemCount is how many items later pages hold.
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// GetListMeta gives access to the list metadata; it is promoted to every
// type that embeds ListMeta.
func (m *ListMeta) GetListMeta() *ListMeta { return m }

// OwnerReference names an object that owns this one.
type OwnerReference struct {
	// APIVersion of the owner.
	APIVersion string `json:"apiVersion"`
	// Kind of the owner.
	Kind string `json:"kind"`
	// Name of the owner, in the same namespace as the dependent.
	Name string `json:"name"`
	// UID of the owner; a new object with the same name is not the owner.
	UID string `json:"uid"`
	// Controller is true on the one reference that manages this object.
	Controller *bool `json:"controller,omitempty"`
	// BlockOwnerDeletion makes a foreground delete of the owner wait for
	// this dependent.
	BlockOwnerDeletion *bool `json:"blockOwnerDeletion,omitempty"`
}

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
type ConditionStatus string

// The three condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// Condition is the standard condition of newer APIs (metav1.Condition).
type Condition struct {
	// Type names the condition in CamelCase, such as Available.
	Type string `json:"type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status"`
	// ObservedGeneration is the generation the condition was computed for.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime"`
	// Reason is a CamelCase word for programs.
	Reason string `json:"reason"`
	// Message is for humans.
	Message string `json:"message"`
}

// LabelSelector selects objects by labels: all matchLabels and all
// matchExpressions must hold. An empty selector matches everything, a nil
// one nothing.
type LabelSelector struct {
	// MatchLabels are key=value requirements.
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
	// MatchExpressions are set-based requirements.
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorOperator relates a key to values.
type LabelSelectorOperator string

// The label selector operators.
const (
	LabelSelectorOpIn           LabelSelectorOperator = "In"
	LabelSelectorOpNotIn        LabelSelectorOperator = "NotIn"
	LabelSelectorOpExists       LabelSelectorOperator = "Exists"
	LabelSelectorOpDoesNotExist LabelSelectorOperator = "DoesNotExist"
)

// LabelSelectorRequirement is one set-based requirement.
type LabelSelectorRequirement struct {
	// Key is the label key.
	Key string `json:"key" patchStrategy:"merge" patchMergeKey:"key"`
	// Operator is In, NotIn, Exists or DoesNotExist.
	Operator LabelSelectorOperator `json:"operator"`
	// Values must be non-empty for In and NotIn and empty otherwise.
	Values []string `json:"values,omitempty"`
}

// DeletionPropagation says what happens to dependents when an owner is
// deleted.
type DeletionPropagation string

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
type DeleteOptions struct {
	TypeMeta `json:",inline"`
	// GracePeriodSeconds overrides the object's grace period; 0 deletes now.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	// Preconditions must hold or the delete fails with a Conflict.
	Preconditions *Preconditions `json:"preconditions,omitempty"`
	// OrphanDependents is the deprecated form of PropagationPolicy=Orphan.
	OrphanDependents *bool `json:"orphanDependents,omitempty"`
	// PropagationPolicy is Orphan, Background or Foreground.
	PropagationPolicy *DeletionPropagation `json:"propagationPolicy,omitempty"`
	// DryRun with "All" validates without persisting.
	DryRun []string `json:"dryRun,omitempty"`
	// IgnoreStoreReadErrorWithClusterBreakingPotential deletes an object
	// whose stored value cannot be read (a corrupt object) by removing its
	// key, skipping finalizers, preconditions and admission: the way out
	// for an admin, with the risk its name says.
	IgnoreStoreReadErrorWithClusterBreakingPotential *bool `json:"ignoreStoreReadErrorWithClusterBreakingPotential,omitempty"`
}

// Preconditions are checked before a delete.
type Preconditions struct {
	// UID must match the stored object's.
	UID *string `json:"uid,omitempty"`
	// ResourceVersion must match the stored object's.
	ResourceVersion *string `json:"resourceVersion,omitempty"`
}

// DryRunAll is the only value of dryRun.
const DryRunAll = "All"

// PartialObjectMetadata is an object reduced to its metadata, served when
// a client asks for as=PartialObjectMetadata.
type PartialObjectMetadata struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
}

// PartialObjectMetadataList is a list of PartialObjectMetadata.
type PartialObjectMetadataList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the objects' metadata.
	Items []PartialObjectMetadata `json:"items"`
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

// WatchEvent is one line of a watch stream (metav1.WatchEvent).
type WatchEvent struct {
	// Type is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.
	Type WatchEventType `json:"type"`
	// Object is the object as JSON; a Status for ERROR.
	Object json.RawMessage `json:"object"`
}
