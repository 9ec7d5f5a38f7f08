package api

import "github.com/kubesim/kubesim/api/intstr"

// DaemonSet runs one pod on every node that suits its template
// (k8s.io/api/apps/v1's DaemonSet; the protobuf tags are that type's field
// numbers).
type DaemonSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired behaviour.
	Spec DaemonSetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the DaemonSet controller last observed.
	Status DaemonSetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// DaemonSetSpec is the specification of a DaemonSet.
type DaemonSetSpec struct {
	// Selector selects the set's pods; it must match the template's labels.
	Selector *LabelSelector `json:"selector" protobuf:"bytes,1,opt,name=selector"`
	// Template is the pod made on every eligible node.
	Template PodTemplateSpec `json:"template" protobuf:"bytes,2,opt,name=template"`
	// UpdateStrategy replaces old pods by new ones.
	UpdateStrategy DaemonSetUpdateStrategy `json:"updateStrategy,omitempty" protobuf:"bytes,3,opt,name=updateStrategy"`
	// MinReadySeconds is how long a pod is Ready before it counts as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,4,opt,name=minReadySeconds"`
	// RevisionHistoryLimit is how many old ControllerRevisions to keep.
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty" protobuf:"varint,6,opt,name=revisionHistoryLimit"`
}

// DaemonSetUpdateStrategyType is RollingUpdate or OnDelete.
type DaemonSetUpdateStrategyType string

// The DaemonSet update strategies.
const (
	RollingUpdateDaemonSetStrategyType DaemonSetUpdateStrategyType = "RollingUpdate"
	OnDeleteDaemonSetStrategyType      DaemonSetUpdateStrategyType = "OnDelete"
)

// DaemonSetUpdateStrategy is how a DaemonSet replaces its pods.
type DaemonSetUpdateStrategy struct {
	Type DaemonSetUpdateStrategyType `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// RollingUpdate parameters, when Type is RollingUpdate.
	RollingUpdate *RollingUpdateDaemonSet `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// RollingUpdateDaemonSet bounds a rolling update: how many nodes may lack
// an available pod, and how many may run an old and a new pod at once.
type RollingUpdateDaemonSet struct {
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,1,opt,name=maxUnavailable"`
	MaxSurge       *intstr.IntOrString `json:"maxSurge,omitempty" protobuf:"bytes,2,opt,name=maxSurge"`
}

// DaemonSetStatus counts nodes, not pods: each number is of nodes that run
// (or should run) the daemon pod.
type DaemonSetStatus struct {
	CurrentNumberScheduled int32 `json:"currentNumberScheduled" protobuf:"varint,1,opt,name=currentNumberScheduled"`
	NumberMisscheduled     int32 `json:"numberMisscheduled" protobuf:"varint,2,opt,name=numberMisscheduled"`
	DesiredNumberScheduled int32 `json:"desiredNumberScheduled" protobuf:"varint,3,opt,name=desiredNumberScheduled"`
	NumberReady            int32 `json:"numberReady" protobuf:"varint,4,opt,name=numberReady"`
	ObservedGeneration     int64 `json:"observedGeneration,omitempty" protobuf:"varint,5,opt,name=observedGeneration"`
	UpdatedNumberScheduled int32 `json:"updatedNumberScheduled,omitempty" protobuf:"varint,6,opt,name=updatedNumberScheduled"`
	NumberAvailable        int32 `json:"numberAvailable,omitempty" protobuf:"varint,7,opt,name=numberAvailable"`
	NumberUnavailable      int32 `json:"numberUnavailable,omitempty" protobuf:"varint,8,opt,name=numberUnavailable"`
	// CollisionCount makes revision names unique when hashes collide.
	CollisionCount *int32 `json:"collisionCount,omitempty" protobuf:"varint,9,opt,name=collisionCount"`
	// Conditions of the DaemonSet.
	Conditions []DaemonSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,10,rep,name=conditions"`
}

// DaemonSetConditionType names a DaemonSet condition.
type DaemonSetConditionType string

// DaemonSetCondition is one condition of a DaemonSet.
type DaemonSetCondition struct {
	Type               DaemonSetConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=DaemonSetConditionType"`
	Status             ConditionStatus        `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	LastTransitionTime Time                   `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string                 `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                 `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// DaemonSetList is a list of DaemonSets.
type DaemonSetList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the DaemonSets.
	Items []DaemonSet `json:"items" protobuf:"bytes,2,rep,name=items"`
}
