package api

import (
	policyv1 "k8s.io/api/policy/v1"
)

// This file holds the policy/v1 kinds (k8s.io/api/policy/v1/types.go); the
// protobuf tags are those types' field numbers.

// Eviction asks, through POST pods/NAME/eviction, for a pod to be deleted
// as a PodDisruptionBudget allows (what `kubectl drain` sends).
type Eviction = policyv1.Eviction
