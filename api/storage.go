package api

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// This file holds storage: core/v1 PersistentVolume and
// PersistentVolumeClaim, storage.k8s.io/v1 StorageClass, and the node
// selector a PersistentVolume's node affinity is written in. The JSON names
// and protobuf tags are k8s.io/api v0.37.2's.

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

// ResourceStorage is the storage resource of a claim or volume.
const ResourceStorage ResourceName = "storage"

// PersistentVolumeAccessMode says how a volume may be mounted.
type PersistentVolumeAccessMode = corev1.PersistentVolumeAccessMode

// The access modes.
const (
	ReadWriteOnce    PersistentVolumeAccessMode = "ReadWriteOnce"
	ReadOnlyMany     PersistentVolumeAccessMode = "ReadOnlyMany"
	ReadWriteMany    PersistentVolumeAccessMode = "ReadWriteMany"
	ReadWriteOncePod PersistentVolumeAccessMode = "ReadWriteOncePod"
)

// PersistentVolumeMode is Filesystem or Block.
type PersistentVolumeMode = corev1.PersistentVolumeMode

// The volume modes.
const (
	PersistentVolumeBlock      PersistentVolumeMode = "Block"
	PersistentVolumeFilesystem PersistentVolumeMode = "Filesystem"
)

// PersistentVolumeReclaimPolicy says what happens to a released volume.
type PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimPolicy

// The reclaim policies.
const (
	PersistentVolumeReclaimRecycle PersistentVolumeReclaimPolicy = "Recycle"
	PersistentVolumeReclaimDelete  PersistentVolumeReclaimPolicy = "Delete"
	PersistentVolumeReclaimRetain  PersistentVolumeReclaimPolicy = "Retain"
)

// PersistentVolumePhase is the life stage of a volume.
type PersistentVolumePhase = corev1.PersistentVolumePhase

// The volume phases.
const (
	VolumePending   PersistentVolumePhase = "Pending"
	VolumeAvailable PersistentVolumePhase = "Available"
	VolumeBound     PersistentVolumePhase = "Bound"
	VolumeReleased  PersistentVolumePhase = "Released"
	VolumeFailed    PersistentVolumePhase = "Failed"
)

// PersistentVolumeClaimPhase is the life stage of a claim.
type PersistentVolumeClaimPhase = corev1.PersistentVolumeClaimPhase

// The claim phases.
const (
	ClaimPending PersistentVolumeClaimPhase = "Pending"
	ClaimBound   PersistentVolumeClaimPhase = "Bound"
	ClaimLost    PersistentVolumeClaimPhase = "Lost"
)

// PersistentVolume is a piece of storage of the cluster (cluster-scoped).
type PersistentVolume = corev1.PersistentVolume

// PersistentVolumeSpec is what a volume offers and to whom it is bound.
type PersistentVolumeSpec = corev1.PersistentVolumeSpec

// PersistentVolumeSource is where a volume's data lives; kubesim models
// the node-local kinds its simulated provisioner makes, plus CSI.
type PersistentVolumeSource = corev1.PersistentVolumeSource

// LocalVolumeSource is storage attached to one node.
type LocalVolumeSource = corev1.LocalVolumeSource

// VolumeNodeAffinity limits the nodes a volume can be reached from.
type VolumeNodeAffinity = corev1.VolumeNodeAffinity

// NodeSelector and its terms are in nodeselector.go, shared with pod node affinity.

// PersistentVolumeStatus is the phase of a volume.
type PersistentVolumeStatus = corev1.PersistentVolumeStatus

// PersistentVolumeList is a list of volumes.
type PersistentVolumeList = corev1.PersistentVolumeList

// PersistentVolumeClaim is a user's request for storage (namespaced).
type PersistentVolumeClaim = corev1.PersistentVolumeClaim

// PersistentVolumeClaimSpec is the storage a claim asks for.
type PersistentVolumeClaimSpec = corev1.PersistentVolumeClaimSpec

// VolumeResourceRequirements are a claim's storage requests and limits.
type VolumeResourceRequirements = corev1.VolumeResourceRequirements

// PersistentVolumeClaimConditionType names a claim condition.
type PersistentVolumeClaimConditionType = corev1.PersistentVolumeClaimConditionType

// PersistentVolumeClaimCondition is one condition of a claim (resizing).
type PersistentVolumeClaimCondition = corev1.PersistentVolumeClaimCondition

// PersistentVolumeClaimStatus is the phase and size of a claim.
type PersistentVolumeClaimStatus = corev1.PersistentVolumeClaimStatus

// PersistentVolumeClaimList is a list of claims.
type PersistentVolumeClaimList = corev1.PersistentVolumeClaimList

// VolumeBindingMode says when a class's claims are provisioned and bound.
type VolumeBindingMode = storagev1.VolumeBindingMode

// The volume binding modes.
const (
	VolumeBindingImmediate            VolumeBindingMode = "Immediate"
	VolumeBindingWaitForFirstConsumer VolumeBindingMode = "WaitForFirstConsumer"
)

// StorageClass is a kind of storage a provisioner makes on demand
// (storage.k8s.io/v1, cluster-scoped).
type StorageClass = storagev1.StorageClass

// StorageClassList is a list of StorageClasses.
type StorageClassList = storagev1.StorageClassList

// PersistentVolumeClaimRetentionPolicyType is Retain or Delete.
type PersistentVolumeClaimRetentionPolicyType = appsv1.PersistentVolumeClaimRetentionPolicyType

// The claim retention policies of a StatefulSet.
const (
	RetainPersistentVolumeClaimRetentionPolicyType PersistentVolumeClaimRetentionPolicyType = "Retain"
	DeletePersistentVolumeClaimRetentionPolicyType PersistentVolumeClaimRetentionPolicyType = "Delete"
)

// StatefulSetPersistentVolumeClaimRetentionPolicy says what becomes of a
// StatefulSet's claims when it is deleted or scaled down.
type StatefulSetPersistentVolumeClaimRetentionPolicy = appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy
