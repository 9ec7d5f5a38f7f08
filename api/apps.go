package api

import (
	"encoding/json"

	"github.com/kubesim/kubesim/api/intstr"
)

// This file holds the apps/v1 kinds (k8s.io/api/apps/v1/types.go).

// ReplicaSet keeps a number of identical pods running.
type ReplicaSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	// Spec is the desired state.
	Spec ReplicaSetSpec `json:"spec,omitempty"`
	// Status is what the controller observed.
	Status ReplicaSetStatus `json:"status,omitempty"`
}

// ReplicaSetSpec describes the pods to keep.
type ReplicaSetSpec struct {
	// Replicas is 1 by default.
	Replicas *int32 `json:"replicas,omitempty"`
	// MinReadySeconds a pod must be ready to count as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// Selector must match the template's labels.
	Selector *LabelSelector `json:"selector"`
	// Template of the pods.
	Template PodTemplateSpec `json:"template,omitempty"`
}

// ReplicaSetStatus counts the pods.
type ReplicaSetStatus struct {
	Replicas             int32 `json:"replicas"`
	FullyLabeledReplicas int32 `json:"fullyLabeledReplicas,omitempty"`
	ReadyReplicas        int32 `json:"readyReplicas,omitempty"`
	AvailableReplicas    int32 `json:"availableReplicas,omitempty"`
	ObservedGeneration   int64 `json:"observedGeneration,omitempty"`
	// Conditions such as ReplicaFailure.
	Conditions []ReplicaSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// ReplicaSetConditionType names a ReplicaSet condition.
type ReplicaSetConditionType string

// ReplicaSetReplicaFailure is set when pods cannot be created or deleted.
const ReplicaSetReplicaFailure ReplicaSetConditionType = "ReplicaFailure"

// ReplicaSetCondition is one condition of a ReplicaSet.
type ReplicaSetCondition struct {
	Type               ReplicaSetConditionType `json:"type"`
	Status             ConditionStatus         `json:"status"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty"`
	Reason             string                  `json:"reason,omitempty"`
	Message            string                  `json:"message,omitempty"`
}

// ReplicaSetList is a list of ReplicaSets.
type ReplicaSetList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the ReplicaSets.
	Items []ReplicaSet `json:"items"`
}

// Deployment rolls out ReplicaSets.
type Deployment struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	// Spec is the desired state.
	Spec DeploymentSpec `json:"spec,omitempty"`
	// Status is what the controller observed.
	Status DeploymentStatus `json:"status,omitempty"`
}

// DeploymentSpec describes the desired pods and how to roll them out.
type DeploymentSpec struct {
	// Replicas is 1 by default.
	Replicas *int32 `json:"replicas,omitempty"`
	// Selector must match the template's labels.
	Selector *LabelSelector `json:"selector"`
	// Template of the pods.
	Template PodTemplateSpec `json:"template"`
	// Strategy is RollingUpdate by default.
	Strategy DeploymentStrategy `json:"strategy,omitempty" patchStrategy:"retainKeys"`
	// MinReadySeconds a pod must be ready to count as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// RevisionHistoryLimit is how many old ReplicaSets to keep (10).
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
	// Paused stops rollouts.
	Paused bool `json:"paused,omitempty"`
	// ProgressDeadlineSeconds before Progressing turns False (600).
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`
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
	Type DeploymentStrategyType `json:"type,omitempty"`
	// RollingUpdate parameters, when Type is RollingUpdate.
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDeployment bounds a rolling update; both default to 25%.
type RollingUpdateDeployment struct {
	// MaxUnavailable pods during the update (rounded down).
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// MaxSurge pods above the desired count (rounded up).
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`
}

// DeploymentStatus counts the pods of all the deployment's ReplicaSets.
type DeploymentStatus struct {
	ObservedGeneration  int64 `json:"observedGeneration,omitempty"`
	Replicas            int32 `json:"replicas,omitempty"`
	UpdatedReplicas     int32 `json:"updatedReplicas,omitempty"`
	ReadyReplicas       int32 `json:"readyReplicas,omitempty"`
	AvailableReplicas   int32 `json:"availableReplicas,omitempty"`
	UnavailableReplicas int32 `json:"unavailableReplicas,omitempty"`
	// Conditions Available and Progressing.
	Conditions []DeploymentCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	// CollisionCount disambiguates pod-template-hash collisions.
	CollisionCount *int32 `json:"collisionCount,omitempty"`
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
	Type               DeploymentConditionType `json:"type"`
	Status             ConditionStatus         `json:"status"`
	LastUpdateTime     Time                    `json:"lastUpdateTime,omitempty"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty"`
	Reason             string                  `json:"reason,omitempty"`
	Message            string                  `json:"message,omitempty"`
}

// DeploymentList is a list of deployments.
type DeploymentList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the deployments.
	Items []Deployment `json:"items"`
}

// StatefulSet runs pods with stable names and ordinals.
type StatefulSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	// Spec is the desired state.
	Spec StatefulSetSpec `json:"spec,omitempty"`
	// Status is what the controller observed.
	Status StatefulSetStatus `json:"status,omitempty"`
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
	// Replicas is 1 by default.
	Replicas *int32 `json:"replicas,omitempty"`
	// Selector must match the template's labels.
	Selector *LabelSelector `json:"selector"`
	// Template of the pods.
	Template PodTemplateSpec `json:"template"`
	// ServiceName is the headless service giving pods their DNS names.
	ServiceName string `json:"serviceName,omitempty"`
	// PodManagementPolicy is OrderedReady by default.
	PodManagementPolicy PodManagementPolicyType `json:"podManagementPolicy,omitempty"`
	// UpdateStrategy is RollingUpdate by default.
	UpdateStrategy StatefulSetUpdateStrategy `json:"updateStrategy,omitempty"`
	// RevisionHistoryLimit is how many ControllerRevisions to keep.
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
	// MinReadySeconds a pod must be ready to count as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
}

// StatefulSetUpdateStrategy says how to replace pods.
type StatefulSetUpdateStrategy struct {
	Type          StatefulSetUpdateStrategyType     `json:"type,omitempty"`
	RollingUpdate *RollingUpdateStatefulSetStrategy `json:"rollingUpdate,omitempty"`
}

// RollingUpdateStatefulSetStrategy bounds a StatefulSet rolling update.
type RollingUpdateStatefulSetStrategy struct {
	// Partition: ordinals below it keep the old revision.
	Partition *int32 `json:"partition,omitempty"`
	// MaxUnavailable pods during the update.
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}

// StatefulSetStatus counts the pods of a StatefulSet.
type StatefulSetStatus struct {
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	Replicas           int32  `json:"replicas"`
	ReadyReplicas      int32  `json:"readyReplicas,omitempty"`
	CurrentReplicas    int32  `json:"currentReplicas,omitempty"`
	UpdatedReplicas    int32  `json:"updatedReplicas,omitempty"`
	CurrentRevision    string `json:"currentRevision,omitempty"`
	UpdateRevision     string `json:"updateRevision,omitempty"`
	CollisionCount     *int32 `json:"collisionCount,omitempty"`
	// Conditions of the StatefulSet.
	Conditions        []StatefulSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	AvailableReplicas int32                  `json:"availableReplicas"`
}

// StatefulSetConditionType names a StatefulSet condition.
type StatefulSetConditionType string

// StatefulSetCondition is one condition of a StatefulSet.
type StatefulSetCondition struct {
	Type               StatefulSetConditionType `json:"type"`
	Status             ConditionStatus          `json:"status"`
	LastTransitionTime Time                     `json:"lastTransitionTime,omitempty"`
	Reason             string                   `json:"reason,omitempty"`
	Message            string                   `json:"message,omitempty"`
}

// StatefulSetList is a list of StatefulSets.
type StatefulSetList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Items are the StatefulSets.
	Items []StatefulSet `json:"items"`
}

// ControllerRevision is an immutable snapshot of a controller's state: the
// StatefulSet controller keeps one per template, and `kubectl rollout
// history|undo statefulset` read them (k8s.io/api/apps/v1's
// ControllerRevision; the protobuf tags are that type's field numbers).
type ControllerRevision struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Data is the state, for a StatefulSet a strategic merge patch that
	// replaces spec.template: a runtime.RawExtension, which kubesim's
	// types spell json.RawMessage (the embedded document in JSON, a
	// message {bytes raw = 1} in protobuf).
	Data json.RawMessage `json:"data,omitempty" protobuf:"bytes,2,opt,name=data"`
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
