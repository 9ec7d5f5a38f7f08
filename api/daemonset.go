package api

import (
	appsv1 "k8s.io/api/apps/v1"
)

// DaemonSet runs one pod on every node that suits its template
// (k8s.io/api/apps/v1's DaemonSet; the protobuf tags are that type's field
// numbers).
type DaemonSet = appsv1.DaemonSet

// DaemonSetSpec is the specification of a DaemonSet.
type DaemonSetSpec = appsv1.DaemonSetSpec

// DaemonSetUpdateStrategyType is RollingUpdate or OnDelete.
type DaemonSetUpdateStrategyType = appsv1.DaemonSetUpdateStrategyType

// The DaemonSet update strategies.
const (
	RollingUpdateDaemonSetStrategyType DaemonSetUpdateStrategyType = "RollingUpdate"
	OnDeleteDaemonSetStrategyType      DaemonSetUpdateStrategyType = "OnDelete"
)

// DaemonSetUpdateStrategy is how a DaemonSet replaces its pods.
type DaemonSetUpdateStrategy = appsv1.DaemonSetUpdateStrategy

// RollingUpdateDaemonSet bounds a rolling update: how many nodes may lack
// an available pod, and how many may run an old and a new pod at once.
type RollingUpdateDaemonSet = appsv1.RollingUpdateDaemonSet

// DaemonSetStatus counts nodes, not pods: each number is of nodes that run
// (or should run) the daemon pod.
type DaemonSetStatus = appsv1.DaemonSetStatus

// DaemonSetConditionType names a DaemonSet condition.
type DaemonSetConditionType = appsv1.DaemonSetConditionType

// DaemonSetCondition is one condition of a DaemonSet.
type DaemonSetCondition = appsv1.DaemonSetCondition

// DaemonSetList is a list of DaemonSets.
type DaemonSetList = appsv1.DaemonSetList
