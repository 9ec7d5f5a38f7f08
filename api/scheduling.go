package api

import (
	schedulingv1 "k8s.io/api/scheduling/v1"
)

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
type PriorityClass = schedulingv1.PriorityClass

// PriorityClassList is a list of priority classes.
type PriorityClassList = schedulingv1.PriorityClassList
