package api

// This file holds the policy/v1 kinds (k8s.io/api/policy/v1/types.go); the
// protobuf tags are those types' field numbers.

// Eviction asks, through POST pods/NAME/eviction, for a pod to be deleted
// as a PodDisruptionBudget allows (what `kubectl drain` sends).
type Eviction struct {
	TypeMeta `json:",inline"`
	// ObjectMeta names the pod to evict.
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// DeleteOptions for the pod's deletion (grace period, preconditions,
	// dry run).
	DeleteOptions *DeleteOptions `json:"deleteOptions,omitempty" protobuf:"bytes,2,opt,name=deleteOptions"`
}
