package api

import (
	appsv1 "k8s.io/api/apps/v1"
)

// This file holds the apps/v1 kinds (k8s.io/api/apps/v1/types.go).

// ReplicaSet keeps a number of identical pods running.
type ReplicaSet = appsv1.ReplicaSet

// ReplicaSetSpec describes the pods to keep.
type ReplicaSetSpec = appsv1.ReplicaSetSpec

// ReplicaSetStatus counts the pods.
type ReplicaSetStatus = appsv1.ReplicaSetStatus

// ReplicaSetConditionType names a ReplicaSet condition.
type ReplicaSetConditionType = appsv1.ReplicaSetConditionType

// ReplicaSetReplicaFailure is set when pods cannot be created or deleted.
const ReplicaSetReplicaFailure ReplicaSetConditionType = "ReplicaFailure"

// ReplicaSetCondition is one condition of a ReplicaSet.
type ReplicaSetCondition = appsv1.ReplicaSetCondition

// ReplicaSetList is a list of ReplicaSets.
type ReplicaSetList = appsv1.ReplicaSetList

// Deployment rolls out ReplicaSets.
type Deployment = appsv1.Deployment

// DeploymentSpec describes the desired pods and how to roll them out.
type DeploymentSpec = appsv1.DeploymentSpec

// DeploymentStrategyType is Recreate or RollingUpdate.
type DeploymentStrategyType = appsv1.DeploymentStrategyType

// The deployment strategies.
const (
	RecreateDeploymentStrategyType      DeploymentStrategyType = "Recreate"
	RollingUpdateDeploymentStrategyType DeploymentStrategyType = "RollingUpdate"
)

// DeploymentStrategy says how to replace old pods.
type DeploymentStrategy = appsv1.DeploymentStrategy

// RollingUpdateDeployment bounds a rolling update; both default to 25%.
type RollingUpdateDeployment = appsv1.RollingUpdateDeployment

// DeploymentStatus counts the pods of all the deployment's ReplicaSets.
type DeploymentStatus = appsv1.DeploymentStatus

// DeploymentConditionType names a deployment condition.
type DeploymentConditionType = appsv1.DeploymentConditionType

// The deployment conditions.
const (
	DeploymentAvailable      DeploymentConditionType = "Available"
	DeploymentProgressing    DeploymentConditionType = "Progressing"
	DeploymentReplicaFailure DeploymentConditionType = "ReplicaFailure"
)

// DeploymentCondition is one condition of a deployment.
type DeploymentCondition = appsv1.DeploymentCondition

// DeploymentList is a list of deployments.
type DeploymentList = appsv1.DeploymentList

// StatefulSet runs pods with stable names and ordinals.
type StatefulSet = appsv1.StatefulSet

// PodManagementPolicyType is OrderedReady or Parallel.
type PodManagementPolicyType = appsv1.PodManagementPolicyType

// The pod management policies.
const (
	OrderedReadyPodManagement PodManagementPolicyType = "OrderedReady"
	ParallelPodManagement     PodManagementPolicyType = "Parallel"
)

// StatefulSetUpdateStrategyType is RollingUpdate or OnDelete.
type StatefulSetUpdateStrategyType = appsv1.StatefulSetUpdateStrategyType

// The StatefulSet update strategies.
const (
	RollingUpdateStatefulSetStrategyType StatefulSetUpdateStrategyType = "RollingUpdate"
	OnDeleteStatefulSetStrategyType      StatefulSetUpdateStrategyType = "OnDelete"
)

// StatefulSetSpec describes the pods of a StatefulSet.
type StatefulSetSpec = appsv1.StatefulSetSpec

// StatefulSetUpdateStrategy says how to replace pods.
type StatefulSetUpdateStrategy = appsv1.StatefulSetUpdateStrategy

// RollingUpdateStatefulSetStrategy bounds a StatefulSet rolling update.
type RollingUpdateStatefulSetStrategy = appsv1.RollingUpdateStatefulSetStrategy

// StatefulSetStatus counts the pods of a StatefulSet.
type StatefulSetStatus = appsv1.StatefulSetStatus

// StatefulSetConditionType names a StatefulSet condition.
type StatefulSetConditionType = appsv1.StatefulSetConditionType

// StatefulSetCondition is one condition of a StatefulSet.
type StatefulSetCondition = appsv1.StatefulSetCondition

// StatefulSetList is a list of StatefulSets.
type StatefulSetList = appsv1.StatefulSetList

// ControllerRevision is an immutable snapshot of a controller's state: the
// StatefulSet controller keeps one per template, and `kubectl rollout
// history|undo statefulset` read them (k8s.io/api/apps/v1's
// ControllerRevision; the protobuf tags are that type's field numbers).
type ControllerRevision = appsv1.ControllerRevision

// ControllerRevisionList is a list of ControllerRevisions.
type ControllerRevisionList = appsv1.ControllerRevisionList
