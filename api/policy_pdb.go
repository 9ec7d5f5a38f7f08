package api

import (
	policyv1 "k8s.io/api/policy/v1"
)

// This file holds policy/v1 PodDisruptionBudget
// (k8s.io/api/policy/v1/types.go); the protobuf tags are its field numbers.

// DisruptionBudgetCause is the cause type of a 429 refusing an eviction.
const DisruptionBudgetCause CauseType = "DisruptionBudget"

// PodDisruptionBudget bounds how many of a set of pods may be down at once
// by voluntary disruptions (evictions: kubectl drain, preemption).
type PodDisruptionBudget = policyv1.PodDisruptionBudget

// PodDisruptionBudgetSpec says which pods the budget covers and how many
// must stay (minAvailable) or may go (maxUnavailable): one of the two.
type PodDisruptionBudgetSpec = policyv1.PodDisruptionBudgetSpec

// UnhealthyPodEvictionPolicyType is IfHealthyBudget or AlwaysAllow.
type UnhealthyPodEvictionPolicyType = policyv1.UnhealthyPodEvictionPolicyType

// The unhealthy pod eviction policies.
const (
	IfHealthyBudget UnhealthyPodEvictionPolicyType = "IfHealthyBudget"
	AlwaysAllow     UnhealthyPodEvictionPolicyType = "AlwaysAllow"
)

// PodDisruptionBudgetStatus is the disruption controller's view.
type PodDisruptionBudgetStatus = policyv1.PodDisruptionBudgetStatus

// The DisruptionAllowed condition and its reasons.
const (
	DisruptionAllowedCondition = "DisruptionAllowed"
	SyncFailedReason           = "SyncFailed"
	SufficientPodsReason       = "SufficientPods"
	InsufficientPodsReason     = "InsufficientPods"
)

// PodDisruptionBudgetList is a list of budgets.
type PodDisruptionBudgetList = policyv1.PodDisruptionBudgetList
