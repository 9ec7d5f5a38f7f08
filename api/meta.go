package api

import "encoding/json"

// TypeMeta says what an object is: its apiVersion and kind. Every object
// and list sent over the wire starts with it.
type TypeMeta struct {
	// Kind is the CamelCase type name, such as Pod.
	Kind string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	// APIVersion is the group/version, such as apps/v1 or v1.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,2,opt,name=apiVersion"`
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
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_ string `json:"-" protobuf:"bytes,4,opt,name=selfLink"`
	// Name is unique within a namespace and a resource.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// GenerateName is a prefix the server completes to a unique name when
	// Name is empty.
	GenerateName string `json:"generateName,omitempty" protobuf:"bytes,2,opt,name=generateName"`
	// Namespace is empty for cluster-scoped objects.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`
	// UID is set by the server at creation and never reused.
	UID string `json:"uid,omitempty" protobuf:"bytes,5,opt,name=uid,casttype=k8s.io/kubernetes/pkg/types.UID"`
	// ResourceVersion is the opaque store revision of the last write; an
	// update carrying an old one fails with a Conflict.
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
	// Generation counts changes to the desired state (spec).
	Generation int64 `json:"generation,omitempty" protobuf:"varint,7,opt,name=generation"`
	// CreationTimestamp is set by the server; it marshals as null when
	// unset, as in Kubernetes, because a struct is never omitted.
	CreationTimestamp Time `json:"creationTimestamp,omitempty" protobuf:"bytes,8,opt,name=creationTimestamp"`
	// DeletionTimestamp is set when a graceful delete begins; the object
	// lingers until its finalizers are gone.
	DeletionTimestamp *Time `json:"deletionTimestamp,omitempty" protobuf:"bytes,9,opt,name=deletionTimestamp"`
	// DeletionGracePeriodSeconds is the grace period of the pending delete.
	DeletionGracePeriodSeconds *int64 `json:"deletionGracePeriodSeconds,omitempty" protobuf:"varint,10,opt,name=deletionGracePeriodSeconds"`
	// Labels are selectable key/value pairs.
	Labels map[string]string `json:"labels,omitempty" protobuf:"bytes,11,rep,name=labels"`
	// Annotations are non-selectable key/value pairs for tools.
	Annotations map[string]string `json:"annotations,omitempty" protobuf:"bytes,12,rep,name=annotations"`
	// OwnerReferences name the objects this one depends on; the garbage
	// collector deletes it when they are gone.
	OwnerReferences []OwnerReference `json:"ownerReferences,omitempty" protobuf:"bytes,13,rep,name=ownerReferences" patchStrategy:"merge" patchMergeKey:"uid"`
	// Finalizers must all be removed before a deleted object goes away.
	Finalizers []string `json:"finalizers,omitempty" protobuf:"bytes,14,rep,name=finalizers" patchStrategy:"merge"`
	// ManagedFields records which manager set which fields (server-side
	// apply); kubesim only carries it through.
	ManagedFields []ManagedFieldsEntry `json:"managedFields,omitempty" protobuf:"bytes,17,rep,name=managedFields"`
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
	Manager string `json:"manager,omitempty" protobuf:"bytes,1,opt,name=manager"`
	// Operation is Apply or Update.
	Operation ManagedFieldsOperationType `json:"operation,omitempty" protobuf:"bytes,2,opt,name=operation,casttype=ManagedFieldsOperationType"`
	// APIVersion is the version the fields are expressed in.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
	// Time is when the entry last changed.
	Time *Time `json:"time,omitempty" protobuf:"bytes,4,opt,name=time"`
	// FieldsType is the format of FieldsV1, always "FieldsV1".
	FieldsType string `json:"fieldsType,omitempty" protobuf:"bytes,6,opt,name=fieldsType"`
	// FieldsV1 is the field set as raw JSON, kept as received.
	FieldsV1 json.RawMessage `json:"fieldsV1,omitempty" protobuf:"bytes,7,opt,name=fieldsV1"`
	// Subresource is the subresource written through, if any.
	Subresource string `json:"subresource,omitempty" protobuf:"bytes,8,opt,name=subresource"`
}

// ListMeta is the metadata of a list (metav1.ListMeta).
type ListMeta struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_ string   `json:"-" protobuf:"bytes,1,opt,name=selfLink"`
	_ struct{} `json:"-" protobuf:"bytes,5,opt,name=shardInfo"`
	// ResourceVersion is the store revision the list was read at; a watch
	// started from it misses nothing.
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
	// Continue is the token for the next page of a chunked list.
	Continue string `json:"continue,omitempty" protobuf:"bytes,3,opt,name=continue"`
	// RemainingItemCount is how many items later pages hold.
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty" protobuf:"bytes,4,opt,name=remainingItemCount"`
}

// GetListMeta gives access to the list metadata; it is promoted to every
// type that embeds ListMeta.
func (m *ListMeta) GetListMeta() *ListMeta { return m }

// OwnerReference names an object that owns this one.
type OwnerReference struct {
	// APIVersion of the owner.
	APIVersion string `json:"apiVersion" protobuf:"bytes,5,opt,name=apiVersion"`
	// Kind of the owner.
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// Name of the owner, in the same namespace as the dependent.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// UID of the owner; a new object with the same name is not the owner.
	UID string `json:"uid" protobuf:"bytes,4,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	// Controller is true on the one reference that manages this object.
	Controller *bool `json:"controller,omitempty" protobuf:"varint,6,opt,name=controller"`
	// BlockOwnerDeletion makes a foreground delete of the owner wait for
	// this dependent.
	BlockOwnerDeletion *bool `json:"blockOwnerDeletion,omitempty" protobuf:"varint,7,opt,name=blockOwnerDeletion"`
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
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// ObservedGeneration is the generation the condition was computed for.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a CamelCase word for programs.
	Reason string `json:"reason" protobuf:"bytes,5,opt,name=reason"`
	// Message is for humans.
	Message string `json:"message" protobuf:"bytes,6,opt,name=message"`
}

// LabelSelector selects objects by labels: all matchLabels and all
// matchExpressions must hold. An empty selector matches everything, a nil
// one nothing.
type LabelSelector struct {
	// MatchLabels are key=value requirements.
	MatchLabels map[string]string `json:"matchLabels,omitempty" protobuf:"bytes,1,rep,name=matchLabels"`
	// MatchExpressions are set-based requirements.
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,2,rep,name=matchExpressions"`
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
	Key string `json:"key" protobuf:"bytes,1,opt,name=key" patchStrategy:"merge" patchMergeKey:"key"`
	// Operator is In, NotIn, Exists or DoesNotExist.
	Operator LabelSelectorOperator `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=LabelSelectorOperator"`
	// Values must be non-empty for In and NotIn and empty otherwise.
	Values []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
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
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty" protobuf:"varint,1,opt,name=gracePeriodSeconds"`
	// Preconditions must hold or the delete fails with a Conflict.
	Preconditions *Preconditions `json:"preconditions,omitempty" protobuf:"bytes,2,opt,name=preconditions"`
	// OrphanDependents is the deprecated form of PropagationPolicy=Orphan.
	OrphanDependents *bool `json:"orphanDependents,omitempty" protobuf:"varint,3,opt,name=orphanDependents"`
	// PropagationPolicy is Orphan, Background or Foreground.
	PropagationPolicy *DeletionPropagation `json:"propagationPolicy,omitempty" protobuf:"varint,4,opt,name=propagationPolicy"`
	// DryRun with "All" validates without persisting.
	DryRun []string `json:"dryRun,omitempty" protobuf:"bytes,5,rep,name=dryRun"`
	// IgnoreStoreReadErrorWithClusterBreakingPotential deletes an object
	// whose stored value cannot be read (a corrupt object) by removing its
	// key, skipping finalizers, preconditions and admission: the way out
	// for an admin, with the risk its name says.
	IgnoreStoreReadErrorWithClusterBreakingPotential *bool `json:"ignoreStoreReadErrorWithClusterBreakingPotential,omitempty" protobuf:"varint,6,opt,name=ignoreStoreReadErrorWithClusterBreakingPotential"`
}

// Preconditions are checked before a delete.
type Preconditions struct {
	// UID must match the stored object's.
	UID *string `json:"uid,omitempty" protobuf:"bytes,1,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	// ResourceVersion must match the stored object's.
	ResourceVersion *string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
}

// DryRunAll is the only value of dryRun.
const DryRunAll = "All"

// PartialObjectMetadata is an object reduced to its metadata, served when
// a client asks for as=PartialObjectMetadata.
type PartialObjectMetadata struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
}

// PartialObjectMetadataList is a list of PartialObjectMetadata.
type PartialObjectMetadataList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the objects' metadata.
	Items []PartialObjectMetadata `json:"items" protobuf:"bytes,2,rep,name=items"`
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
	Type WatchEventType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Object is the object as JSON; a Status for ERROR.
	Object json.RawMessage `json:"object" protobuf:"bytes,2,opt,name=object"`
}
