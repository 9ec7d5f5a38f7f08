package api

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Well-known labels, annotations and taint keys the controllers, the
// scheduler and kubectl use.
const (
	// RevisionAnnotation holds the rollout revision of a deployment and its
	// ReplicaSets.
	RevisionAnnotation = "deployment.kubernetes.io/revision"
	// RevisionHistoryAnnotation lists revisions a ReplicaSet had before.
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	// DesiredReplicasAnnotation is the deployment's replicas, on its
	// ReplicaSets.
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	// MaxReplicasAnnotation is replicas+maxSurge, on a deployment's
	// ReplicaSets.
	MaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas"
)

// AdmissionGroupName is the group of AdmissionReview.
const AdmissionGroupName = "admission.k8s.io"

// AdmissionRegistrationGroupName is the group of the webhook configurations
// and the admission policies.
const AdmissionRegistrationGroupName = "admissionregistration.k8s.io"

// The operations of a rule.
const (
	OperationCreate  admissionregistrationv1.OperationType = "CREATE"
	OperationUpdate  admissionregistrationv1.OperationType = "UPDATE"
	OperationDelete  admissionregistrationv1.OperationType = "DELETE"
	OperationConnect admissionregistrationv1.OperationType = "CONNECT"
)

// AutoscalingGroupName is the autoscaling API group.
const AutoscalingGroupName = "autoscaling"

// DiscoveryGroupName is the group of EndpointSlice.
const DiscoveryGroupName = "discovery.k8s.io"

// MetricsGroupName is the resource metrics API group.
const MetricsGroupName = "metrics.k8s.io"

// Verbs and resources that match everything in a PolicyRule.
const (
	RBACGroupName        = "rbac.authorization.k8s.io"
	AutoUpdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate"
)

// The kinds a Subject names.
const (
	GroupSubjectKind = "Group"
)

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

// StorageGroupName is the API group of StorageClasses.
const StorageGroupName = "storage.k8s.io"

// Annotations and finalizers of the storage objects, as Kubernetes names
// them (pkg/controller/volume/persistentvolume/util, pkg/volume/util).
const (
	// AnnBindCompleted marks a claim whose binding the PV controller
	// finished.
	AnnBindCompleted = "pv.kubernetes.io/bind-completed"
	// AnnBoundByController marks a claim or volume the controller bound
	// (rather than a user pre-binding it).
	AnnBoundByController = "pv.kubernetes.io/bound-by-controller"
	// AnnDynamicallyProvisioned names the provisioner that made a volume.
	AnnDynamicallyProvisioned = "pv.kubernetes.io/provisioned-by"
	// AnnStorageProvisioner (and its beta twin) on a claim names the
	// provisioner asked to make its volume.
	AnnStorageProvisioner     = "volume.kubernetes.io/storage-provisioner"
	AnnBetaStorageProvisioner = "volume.beta.kubernetes.io/storage-provisioner"
	// AnnSelectedNode is set by the scheduler on a WaitForFirstConsumer
	// claim: the node the volume must be reachable from.
	AnnSelectedNode = "volume.kubernetes.io/selected-node"
	// AnnDefaultStorageClass marks the default StorageClass.
	AnnDefaultStorageClass = "storageclass.kubernetes.io/is-default-class"
	// PVCProtectionFinalizer keeps a claim while a pod uses it.
	PVCProtectionFinalizer = "kubernetes.io/pvc-protection"
	// PVProtectionFinalizer keeps a volume while a claim is bound to it.
	PVProtectionFinalizer = "kubernetes.io/pv-protection"
)

// The labels and annotations of Jobs and their pods.
const (
	// JobCompletionIndexLabel holds the completion index of a pod of an
	// Indexed Job as a label, under the key of the annotation that holds
	// it too (batchv1.JobCompletionIndexAnnotation), as the job controller
	// sets it.
	JobCompletionIndexLabel = "batch.kubernetes.io/job-completion-index"
	// ControllerUIDLabel labels a Job's pods with its uid: the generated
	// selector selects it.
	ControllerUIDLabel = "batch.kubernetes.io/controller-uid"
	// LegacyJobNameLabel and LegacyControllerUIDLabel are the unprefixed
	// labels Kubernetes still sets beside the prefixed ones.
	LegacyJobNameLabel       = "job-name"
	LegacyControllerUIDLabel = "controller-uid"
)

// The reasons of the Job conditions (k8s.io/api/batch/v1).
const (
	JobReasonMaxFailedIndexesExceed = "MaxFailedIndexesExceeded"
)

// The secret types.
const (
	SecretTypeDockerConfigJSON corev1.SecretType = "kubernetes.io/dockerconfigjson"
)

// DisruptionBudgetCause is the cause type of a 429 refusing an eviction.
const DisruptionBudgetCause metav1.CauseType = "DisruptionBudget"
