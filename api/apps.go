package api

import "github.com/kubesim/kubesim/api/intstr"

// This file holds the apps/v1 kinds (k8s.io/api/apps/v1/types.go).

// ReplicaSet keeps a number of identical pods running.
type ReplicaSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired state.
	Spec ReplicaSetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the controller observed.
	Status ReplicaSetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ReplicaSetSpec describes the pods to keep.
type ReplicaSetSpec struct {
	// Replicas is 1 by default.
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	// MinReadySeconds a pod must be ready to count as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,4,opt,name=minReadySeconds"`
	// Selector must match the template's labels.
	Selector *LabelSelector `json:"selector" protobuf:"bytes,2,opt,name=selector"`
	// Template of the pods.
	Template PodTemplateSpec `json:"template,omitempty" protobuf:"bytes,3,opt,name=template"`
}

// ReplicaSetStatus counts the pods.
type ReplicaSetStatus struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_                    struct{} `json:"-" protobuf:"varint,7,opt,name=terminatingReplicas"`
	Replicas             int32    `json:"replicas" protobuf:"varint,1,opt,name=replicas"`
	FullyLabeledReplicas int32    `json:"fullyLabeledReplicas,omitempty" protobuf:"varint,2,opt,name=fullyLabeledReplicas"`
	ReadyReplicas        int32    `json:"readyReplicas,omitempty" protobuf:"varint,4,opt,name=readyReplicas"`
	AvailableReplicas    int32    `json:"availableReplicas,omitempty" protobuf:"varint,5,opt,name=availableReplicas"`
	ObservedGeneration   int64    `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	// Conditions such as ReplicaFailure.
	Conditions []ReplicaSetCondition `json:"conditions,omitempty" protobuf:"bytes,6,rep,name=conditions" patchStrategy:"merge" patchMergeKey:"type"`
}

// ReplicaSetConditionType names a ReplicaSet condition.
type ReplicaSetConditionType string

// ReplicaSetReplicaFailure is set when pods cannot be created or deleted.
const ReplicaSetReplicaFailure ReplicaSetConditionType = "ReplicaFailure"

// ReplicaSetCondition is one condition of a ReplicaSet.
type ReplicaSetCondition struct {
	Type               ReplicaSetConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=ReplicaSetConditionType"`
	Status             ConditionStatus         `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string                  `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                  `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// ReplicaSetList is a list of ReplicaSets.
type ReplicaSetList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the ReplicaSets.
	Items []ReplicaSet `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// Deployment rolls out ReplicaSets.
type Deployment struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired state.
	Spec DeploymentSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the controller observed.
	Status DeploymentStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// DeploymentSpec describes the desired pods and how to roll them out.
type DeploymentSpec struct {
	// Replicas is 1 by default.
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	// Selector must match the template's labels.
	Selector *LabelSelector `json:"selector" protobuf:"bytes,2,opt,name=selector"`
	// Template of the pods.
	Template PodTemplateSpec `json:"template" protobuf:"bytes,3,opt,name=template"`
	// Strategy is RollingUpdate by default.
	Strategy DeploymentStrategy `json:"strategy,omitempty" protobuf:"bytes,4,opt,name=strategy" patchStrategy:"retainKeys"`
	// MinReadySeconds a pod must be ready to count as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,5,opt,name=minReadySeconds"`
	// RevisionHistoryLimit is how many old ReplicaSets to keep (10).
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty" protobuf:"varint,6,opt,name=revisionHistoryLimit"`
	// Paused stops rollouts.
	Paused bool `json:"paused,omitempty" protobuf:"varint,7,opt,name=paused"`
	// ProgressDeadlineSeconds before Progressing turns False (600).
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty" protobuf:"varint,9,opt,name=progressDeadlineSeconds"`
}

// DeploymentStrategyType is Recreate or RollingUpdate.
type DeploymentStrategyType string

// The deployment strategies.
const (
	RecreateDeploymentStrategyType      DeploymentStrategyType = "Recreate"
	RollingUpdateDeploymentStrategyType DeploymentStrategyType = "RollingUpdate"
)

// DeploymentStrategy says how to replace old pods.
type DeploymentStrategy struct {
	Type DeploymentStrategyType `json:"type,omitempty" protobuf:"bytes,1,opt,name=type,casttype=DeploymentStrategyType"`
	// RollingUpdate parameters, when Type is RollingUpdate.
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// RollingUpdateDeployment bounds a rolling update; both default to 25%.
type RollingUpdateDeployment struct {
	// MaxUnavailable pods during the update (rounded down).
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,1,opt,name=maxUnavailable"`
	// MaxSurge pods above the desired count (rounded up).
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty" protobuf:"bytes,2,opt,name=maxSurge"`
}

// DeploymentStatus counts the pods of all the deployment's ReplicaSets.
type DeploymentStatus struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_                   struct{} `json:"-" protobuf:"varint,9,opt,name=terminatingReplicas"`
	ObservedGeneration  int64    `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	Replicas            int32    `json:"replicas,omitempty" protobuf:"varint,2,opt,name=replicas"`
	UpdatedReplicas     int32    `json:"updatedReplicas,omitempty" protobuf:"varint,3,opt,name=updatedReplicas"`
	ReadyReplicas       int32    `json:"readyReplicas,omitempty" protobuf:"varint,7,opt,name=readyReplicas"`
	AvailableReplicas   int32    `json:"availableReplicas,omitempty" protobuf:"varint,4,opt,name=availableReplicas"`
	UnavailableReplicas int32    `json:"unavailableReplicas,omitempty" protobuf:"varint,5,opt,name=unavailableReplicas"`
	// Conditions Available and Progressing.
	Conditions []DeploymentCondition `json:"conditions,omitempty" protobuf:"bytes,6,rep,name=conditions" patchStrategy:"merge" patchMergeKey:"type"`
	// CollisionCount disambiguates pod-template-hash collisions.
	CollisionCount *int32 `json:"collisionCount,omitempty" protobuf:"varint,8,opt,name=collisionCount"`
}

// DeploymentConditionType names a deployment condition.
type DeploymentConditionType string

// The deployment conditions.
const (
	DeploymentAvailable      DeploymentConditionType = "Available"
	DeploymentProgressing    DeploymentConditionType = "Progressing"
	DeploymentReplicaFailure DeploymentConditionType = "ReplicaFailure"
)

// DeploymentCondition is one condition of a deployment.
type DeploymentCondition struct {
	Type               DeploymentConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=DeploymentConditionType"`
	Status             ConditionStatus         `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	LastUpdateTime     Time                    `json:"lastUpdateTime,omitempty" protobuf:"bytes,6,opt,name=lastUpdateTime"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty" protobuf:"bytes,7,opt,name=lastTransitionTime"`
	Reason             string                  `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                  `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// DeploymentList is a list of deployments.
type DeploymentList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the deployments.
	Items []Deployment `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// StatefulSet runs pods with stable names and ordinals.
type StatefulSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired state.
	Spec StatefulSetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the controller observed.
	Status StatefulSetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PodManagementPolicyType is OrderedReady or Parallel.
type PodManagementPolicyType string

// The pod management policies.
const (
	OrderedReadyPodManagement PodManagementPolicyType = "OrderedReady"
	ParallelPodManagement     PodManagementPolicyType = "Parallel"
)

// StatefulSetUpdateStrategyType is RollingUpdate or OnDelete.
type StatefulSetUpdateStrategyType string

// The StatefulSet update strategies.
const (
	RollingUpdateStatefulSetStrategyType StatefulSetUpdateStrategyType = "RollingUpdate"
	OnDeleteStatefulSetStrategyType      StatefulSetUpdateStrategyType = "OnDelete"
)

// StatefulSetSpec describes the pods of a StatefulSet.
type StatefulSetSpec struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them, and writes the zero value
	// of the ones Kubernetes always writes (the non-struct{} ones).
	_ struct{} `json:"-" protobuf:"bytes,11,opt,name=ordinals"`
	// Replicas is 1 by default.
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	// Selector must match the template's labels.
	Selector *LabelSelector `json:"selector" protobuf:"bytes,2,opt,name=selector"`
	// Template of the pods.
	Template PodTemplateSpec `json:"template" protobuf:"bytes,3,opt,name=template"`
	// ServiceName is the headless service giving pods their DNS names.
	ServiceName string `json:"serviceName,omitempty" protobuf:"bytes,5,opt,name=serviceName"`
	// PodManagementPolicy is OrderedReady by default.
	PodManagementPolicy PodManagementPolicyType `json:"podManagementPolicy,omitempty" protobuf:"bytes,6,opt,name=podManagementPolicy,casttype=PodManagementPolicyType"`
	// UpdateStrategy is RollingUpdate by default.
	UpdateStrategy StatefulSetUpdateStrategy `json:"updateStrategy,omitempty" protobuf:"bytes,7,opt,name=updateStrategy"`
	// RevisionHistoryLimit is how many ControllerRevisions to keep.
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty" protobuf:"varint,8,opt,name=revisionHistoryLimit"`
	// MinReadySeconds a pod must be ready to count as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,9,opt,name=minReadySeconds"`
	// VolumeClaimTemplates are the claims each pod gets, named
	// <template>-<statefulset>-<ordinal>.
	VolumeClaimTemplates []PersistentVolumeClaim `json:"volumeClaimTemplates,omitempty" protobuf:"bytes,4,rep,name=volumeClaimTemplates"`
	// PersistentVolumeClaimRetentionPolicy says whether the claims go with
	// the StatefulSet or its scale-down; Retain for both by default.
	PersistentVolumeClaimRetentionPolicy *StatefulSetPersistentVolumeClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty" protobuf:"bytes,10,opt,name=persistentVolumeClaimRetentionPolicy"`
}

// StatefulSetUpdateStrategy says how to replace pods.
type StatefulSetUpdateStrategy struct {
	Type          StatefulSetUpdateStrategyType     `json:"type,omitempty" protobuf:"bytes,1,opt,name=type,casttype=StatefulSetStrategyType"`
	RollingUpdate *RollingUpdateStatefulSetStrategy `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// RollingUpdateStatefulSetStrategy bounds a StatefulSet rolling update.
type RollingUpdateStatefulSetStrategy struct {
	// Partition: ordinals below it keep the old revision.
	Partition *int32 `json:"partition,omitempty" protobuf:"varint,1,opt,name=partition"`
	// MaxUnavailable pods during the update.
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty" protobuf:"varint,2,opt,name=maxUnavailable"`
}

// StatefulSetStatus counts the pods of a StatefulSet.
type StatefulSetStatus struct {
	ObservedGeneration int64  `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	Replicas           int32  `json:"replicas" protobuf:"varint,2,opt,name=replicas"`
	ReadyReplicas      int32  `json:"readyReplicas,omitempty" protobuf:"varint,3,opt,name=readyReplicas"`
	CurrentReplicas    int32  `json:"currentReplicas,omitempty" protobuf:"varint,4,opt,name=currentReplicas"`
	UpdatedReplicas    int32  `json:"updatedReplicas,omitempty" protobuf:"varint,5,opt,name=updatedReplicas"`
	CurrentRevision    string `json:"currentRevision,omitempty" protobuf:"bytes,6,opt,name=currentRevision"`
	UpdateRevision     string `json:"updateRevision,omitempty" protobuf:"bytes,7,opt,name=updateRevision"`
	CollisionCount     *int32 `json:"collisionCount,omitempty" protobuf:"varint,9,opt,name=collisionCount"`
	// Conditions of the StatefulSet.
	Conditions        []StatefulSetCondition `json:"conditions,omitempty" protobuf:"bytes,10,rep,name=conditions" patchStrategy:"merge" patchMergeKey:"type"`
	AvailableReplicas int32                  `json:"availableReplicas" protobuf:"varint,11,opt,name=availableReplicas"`
}

// StatefulSetConditionType names a StatefulSet condition.
type StatefulSetConditionType string

// StatefulSetCondition is one condition of a StatefulSet.
type StatefulSetCondition struct {
	Type               StatefulSetConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=StatefulSetConditionType"`
	Status             ConditionStatus          `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	LastTransitionTime Time                     `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string                   `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                   `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// StatefulSetList is a list of StatefulSets.
type StatefulSetList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the StatefulSets.
	Items []StatefulSet `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ControllerRevision is an immutable snapshot of a controller's state: the
// StatefulSet controller keeps one per template, and `kubectl rollout
// history|undo statefulset` read them (k8s.io/api/apps/v1's
// ControllerRevision; the protobuf tags are that type's field numbers).
type ControllerRevision struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Data is the state, for a StatefulSet a strategic merge patch that
	// replaces spec.template.
	Data RawExtension `json:"data,omitempty" protobuf:"bytes,2,opt,name=data"`
	// Revision orders the revisions of one owner.
	Revision int64 `json:"revision" protobuf:"varint,3,opt,name=revision"`
}

// ControllerRevisionList is a list of ControllerRevisions.
type ControllerRevisionList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the ControllerRevisions.
	Items []ControllerRevision `json:"items" protobuf:"bytes,2,rep,name=items"`
}
