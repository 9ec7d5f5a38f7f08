package api

// This file holds scheduling.k8s.io/v1 PriorityClass
// (k8s.io/api/scheduling/v1/types.go); the protobuf tags are its field
// numbers (value and globalDefault are "bytes" there too).

// SchedulingGroupName is the group of PriorityClass.
const SchedulingGroupName = "scheduling.k8s.io"

// The built-in priority classes and their values
// (pkg/apis/scheduling/types.go).
const (
	SystemClusterCritical        = "system-cluster-critical"
	SystemNodeCritical           = "system-node-critical"
	SystemCriticalPriority int32 = 2000000000
	// HighestUserDefinablePriority is the largest value a user's class may
	// have; above it only the system classes.
	HighestUserDefinablePriority int32 = 1000000000
	// SystemPriorityClassPrefix starts the names reserved for the system.
	SystemPriorityClassPrefix = "system-"
)

// PriorityClass maps a name to a pod priority.
type PriorityClass struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Value is the priority of the pods that name the class.
	Value int32 `json:"value" protobuf:"bytes,2,opt,name=value"`
	// GlobalDefault makes the class the one of pods naming none.
	GlobalDefault bool `json:"globalDefault,omitempty" protobuf:"bytes,3,opt,name=globalDefault"`
	// Description says when to use the class.
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	// PreemptionPolicy is PreemptLowerPriority (the default) or Never.
	PreemptionPolicy *PreemptionPolicy `json:"preemptionPolicy,omitempty" protobuf:"bytes,5,opt,name=preemptionPolicy"`
}

// PriorityClassList is a list of priority classes.
type PriorityClassList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the classes.
	Items []PriorityClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}
