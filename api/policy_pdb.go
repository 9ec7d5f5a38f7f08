package api

import "github.com/kubesim/kubesim/api/intstr"

// This file holds policy/v1 PodDisruptionBudget
// (k8s.io/api/policy/v1/types.go); the protobuf tags are its field numbers.

// DisruptionBudgetCause is the cause type of a 429 refusing an eviction.
const DisruptionBudgetCause CauseType = "DisruptionBudget"

// PodDisruptionBudget bounds how many of a set of pods may be down at once
// by voluntary disruptions (evictions: kubectl drain, preemption).
type PodDisruptionBudget struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the budget.
	Spec PodDisruptionBudgetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the disruption controller computed.
	Status PodDisruptionBudgetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PodDisruptionBudgetSpec says which pods the budget covers and how many
// must stay (minAvailable) or may go (maxUnavailable): one of the two.
type PodDisruptionBudgetSpec struct {
	// MinAvailable is a number or a percentage of the expected pods.
	MinAvailable *intstr.IntOrString `json:"minAvailable,omitempty" protobuf:"bytes,1,opt,name=minAvailable"`
	// Selector picks the pods; an empty one picks every pod of the namespace.
	Selector *LabelSelector `json:"selector,omitempty" patchStrategy:"replace" protobuf:"bytes,2,opt,name=selector"`
	// MaxUnavailable is a number or a percentage of the expected pods.
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,3,opt,name=maxUnavailable"`
	// UnhealthyPodEvictionPolicy says whether a running but not ready pod
	// may be evicted whatever the budget (AlwaysAllow) or only while the
	// budget is met (IfHealthyBudget, the default behaviour).
	UnhealthyPodEvictionPolicy *UnhealthyPodEvictionPolicyType `json:"unhealthyPodEvictionPolicy,omitempty" protobuf:"bytes,4,opt,name=unhealthyPodEvictionPolicy"`
}

// UnhealthyPodEvictionPolicyType is IfHealthyBudget or AlwaysAllow.
type UnhealthyPodEvictionPolicyType string

// The unhealthy pod eviction policies.
const (
	IfHealthyBudget UnhealthyPodEvictionPolicyType = "IfHealthyBudget"
	AlwaysAllow     UnhealthyPodEvictionPolicyType = "AlwaysAllow"
)

// PodDisruptionBudgetStatus is the disruption controller's view.
type PodDisruptionBudgetStatus struct {
	// ObservedGeneration is the generation the status was computed for.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// DisruptedPods are pods evicted but not yet gone, with the eviction's
	// time: the API server counts them out before the controller sees them.
	DisruptedPods map[string]Time `json:"disruptedPods,omitempty" protobuf:"bytes,2,rep,name=disruptedPods"`
	// DisruptionsAllowed is how many pods may be evicted now.
	DisruptionsAllowed int32 `json:"disruptionsAllowed" protobuf:"varint,3,opt,name=disruptionsAllowed"`
	// CurrentHealthy counts the ready pods.
	CurrentHealthy int32 `json:"currentHealthy" protobuf:"varint,4,opt,name=currentHealthy"`
	// DesiredHealthy is the fewest ready pods the budget allows.
	DesiredHealthy int32 `json:"desiredHealthy" protobuf:"varint,5,opt,name=desiredHealthy"`
	// ExpectedPods is the pods' controllers' scale (or the pods' count).
	ExpectedPods int32 `json:"expectedPods" protobuf:"varint,6,opt,name=expectedPods"`
	// Conditions hold DisruptionAllowed.
	Conditions []Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,7,rep,name=conditions"`
}

// The DisruptionAllowed condition and its reasons.
const (
	DisruptionAllowedCondition = "DisruptionAllowed"
	SyncFailedReason           = "SyncFailed"
	SufficientPodsReason       = "SufficientPods"
	InsufficientPodsReason     = "InsufficientPods"
)

// PodDisruptionBudgetList is a list of budgets.
type PodDisruptionBudgetList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the budgets.
	Items []PodDisruptionBudget `json:"items" protobuf:"bytes,2,rep,name=items"`
}
