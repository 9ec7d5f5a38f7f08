package api

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
type PersistentVolumeAccessMode string

// The access modes.
const (
	ReadWriteOnce    PersistentVolumeAccessMode = "ReadWriteOnce"
	ReadOnlyMany     PersistentVolumeAccessMode = "ReadOnlyMany"
	ReadWriteMany    PersistentVolumeAccessMode = "ReadWriteMany"
	ReadWriteOncePod PersistentVolumeAccessMode = "ReadWriteOncePod"
)

// PersistentVolumeMode is Filesystem or Block.
type PersistentVolumeMode string

// The volume modes.
const (
	PersistentVolumeBlock      PersistentVolumeMode = "Block"
	PersistentVolumeFilesystem PersistentVolumeMode = "Filesystem"
)

// PersistentVolumeReclaimPolicy says what happens to a released volume.
type PersistentVolumeReclaimPolicy string

// The reclaim policies.
const (
	PersistentVolumeReclaimRecycle PersistentVolumeReclaimPolicy = "Recycle"
	PersistentVolumeReclaimDelete  PersistentVolumeReclaimPolicy = "Delete"
	PersistentVolumeReclaimRetain  PersistentVolumeReclaimPolicy = "Retain"
)

// PersistentVolumePhase is the life stage of a volume.
type PersistentVolumePhase string

// The volume phases.
const (
	VolumePending   PersistentVolumePhase = "Pending"
	VolumeAvailable PersistentVolumePhase = "Available"
	VolumeBound     PersistentVolumePhase = "Bound"
	VolumeReleased  PersistentVolumePhase = "Released"
	VolumeFailed    PersistentVolumePhase = "Failed"
)

// PersistentVolumeClaimPhase is the life stage of a claim.
type PersistentVolumeClaimPhase string

// The claim phases.
const (
	ClaimPending PersistentVolumeClaimPhase = "Pending"
	ClaimBound   PersistentVolumeClaimPhase = "Bound"
	ClaimLost    PersistentVolumeClaimPhase = "Lost"
)

// PersistentVolume is a piece of storage of the cluster (cluster-scoped).
type PersistentVolume struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec describes the volume.
	Spec PersistentVolumeSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the PV controller's view of it.
	Status PersistentVolumeStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PersistentVolumeSpec is what a volume offers and to whom it is bound.
type PersistentVolumeSpec struct {
	// Capacity holds the storage size.
	Capacity ResourceList `json:"capacity,omitempty" protobuf:"bytes,1,rep,name=capacity,casttype=ResourceList,castkey=ResourceName"`
	// PersistentVolumeSource is where the data lives: exactly one field.
	PersistentVolumeSource `json:",inline" protobuf:"bytes,2,opt,name=persistentVolumeSource"`
	// AccessModes the volume supports.
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty" protobuf:"bytes,3,rep,name=accessModes,casttype=PersistentVolumeAccessMode"`
	// ClaimRef is the claim the volume is bound (or reserved) to.
	ClaimRef *ObjectReference `json:"claimRef,omitempty" protobuf:"bytes,4,opt,name=claimRef"`
	// PersistentVolumeReclaimPolicy is Retain by default (Delete for
	// dynamically provisioned volumes, from their class).
	PersistentVolumeReclaimPolicy PersistentVolumeReclaimPolicy `json:"persistentVolumeReclaimPolicy,omitempty" protobuf:"bytes,5,opt,name=persistentVolumeReclaimPolicy,casttype=PersistentVolumeReclaimPolicy"`
	// StorageClassName is the class the volume belongs to ("" for none).
	StorageClassName string `json:"storageClassName,omitempty" protobuf:"bytes,6,opt,name=storageClassName"`
	// MountOptions are not checked.
	MountOptions []string `json:"mountOptions,omitempty" protobuf:"bytes,7,opt,name=mountOptions"`
	// VolumeMode is Filesystem by default.
	VolumeMode *PersistentVolumeMode `json:"volumeMode,omitempty" protobuf:"bytes,8,opt,name=volumeMode,casttype=PersistentVolumeMode"`
	// NodeAffinity limits the nodes that can reach the volume.
	NodeAffinity *VolumeNodeAffinity `json:"nodeAffinity,omitempty" protobuf:"bytes,9,opt,name=nodeAffinity"`
	// VolumeAttributesClassName names a VolumeAttributesClass.
	VolumeAttributesClassName *string `json:"volumeAttributesClassName,omitempty" protobuf:"bytes,10,opt,name=volumeAttributesClassName"`
}

// PersistentVolumeSource is where a volume's data lives; kubesim models
// the node-local kinds its simulated provisioner makes, plus CSI.
type PersistentVolumeSource struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them.
	_ struct{} `json:"-" protobuf:"bytes,1,opt,name=gcePersistentDisk"`
	_ struct{} `json:"-" protobuf:"bytes,2,opt,name=awsElasticBlockStore"`
	_ struct{} `json:"-" protobuf:"bytes,4,opt,name=glusterfs"`
	_ struct{} `json:"-" protobuf:"bytes,5,opt,name=nfs"`
	_ struct{} `json:"-" protobuf:"bytes,6,opt,name=rbd"`
	_ struct{} `json:"-" protobuf:"bytes,7,opt,name=iscsi"`
	_ struct{} `json:"-" protobuf:"bytes,8,opt,name=cinder"`
	_ struct{} `json:"-" protobuf:"bytes,9,opt,name=cephfs"`
	_ struct{} `json:"-" protobuf:"bytes,10,opt,name=fc"`
	_ struct{} `json:"-" protobuf:"bytes,11,opt,name=flocker"`
	_ struct{} `json:"-" protobuf:"bytes,12,opt,name=flexVolume"`
	_ struct{} `json:"-" protobuf:"bytes,13,opt,name=azureFile"`
	_ struct{} `json:"-" protobuf:"bytes,14,opt,name=vsphereVolume"`
	_ struct{} `json:"-" protobuf:"bytes,15,opt,name=quobyte"`
	_ struct{} `json:"-" protobuf:"bytes,16,opt,name=azureDisk"`
	_ struct{} `json:"-" protobuf:"bytes,17,opt,name=photonPersistentDisk"`
	_ struct{} `json:"-" protobuf:"bytes,18,opt,name=portworxVolume"`
	_ struct{} `json:"-" protobuf:"bytes,19,opt,name=scaleIO"`
	_ struct{} `json:"-" protobuf:"bytes,21,opt,name=storageos"`
	_ struct{} `json:"-" protobuf:"bytes,22,opt,name=csi"`
	// HostPath is a directory of a node.
	HostPath *HostPathVolumeSource `json:"hostPath,omitempty" protobuf:"bytes,3,opt,name=hostPath"`
	// Local is a disk or directory of one node (needs node affinity).
	Local *LocalVolumeSource `json:"local,omitempty" protobuf:"bytes,20,opt,name=local"`
}

// LocalVolumeSource is storage attached to one node.
type LocalVolumeSource struct {
	Path   string  `json:"path" protobuf:"bytes,1,opt,name=path"`
	FSType *string `json:"fsType,omitempty" protobuf:"bytes,2,opt,name=fsType"`
}

// VolumeNodeAffinity limits the nodes a volume can be reached from.
type VolumeNodeAffinity struct {
	Required *NodeSelector `json:"required,omitempty" protobuf:"bytes,1,opt,name=required"`
}

// NodeSelector and its terms are in nodeselector.go, shared with pod node affinity.

// PersistentVolumeStatus is the phase of a volume.
type PersistentVolumeStatus struct {
	Phase   PersistentVolumePhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase,casttype=PersistentVolumePhase"`
	Message string                `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	Reason  string                `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// LastPhaseTransitionTime is when the phase last changed.
	LastPhaseTransitionTime *Time `json:"lastPhaseTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastPhaseTransitionTime"`
}

// PersistentVolumeList is a list of volumes.
type PersistentVolumeList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the volumes.
	Items []PersistentVolume `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PersistentVolumeClaim is a user's request for storage (namespaced).
type PersistentVolumeClaim struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is what is asked for.
	Spec PersistentVolumeClaimSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the claim got.
	Status PersistentVolumeClaimStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PersistentVolumeClaimSpec is the storage a claim asks for.
type PersistentVolumeClaimSpec struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them.
	_ struct{} `json:"-" protobuf:"bytes,7,opt,name=dataSource"`
	_ struct{} `json:"-" protobuf:"bytes,8,opt,name=dataSourceRef"`
	// AccessModes the volume must support.
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty" protobuf:"bytes,1,rep,name=accessModes,casttype=PersistentVolumeAccessMode"`
	// Selector over volume labels.
	Selector *LabelSelector `json:"selector,omitempty" protobuf:"bytes,4,opt,name=selector"`
	// Resources: requests.storage is the minimum size.
	Resources VolumeResourceRequirements `json:"resources,omitempty" protobuf:"bytes,2,opt,name=resources"`
	// VolumeName is the volume bound to the claim.
	VolumeName string `json:"volumeName,omitempty" protobuf:"bytes,3,opt,name=volumeName"`
	// StorageClassName is the class; nil gets the default class at
	// admission, "" asks for a volume without class.
	StorageClassName *string `json:"storageClassName,omitempty" protobuf:"bytes,5,opt,name=storageClassName"`
	// VolumeMode is Filesystem by default.
	VolumeMode *PersistentVolumeMode `json:"volumeMode,omitempty" protobuf:"bytes,6,opt,name=volumeMode,casttype=PersistentVolumeMode"`
	// VolumeAttributesClassName names a VolumeAttributesClass.
	VolumeAttributesClassName *string `json:"volumeAttributesClassName,omitempty" protobuf:"bytes,9,opt,name=volumeAttributesClassName"`
}

// VolumeResourceRequirements are a claim's storage requests and limits.
type VolumeResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty" protobuf:"bytes,1,rep,name=limits,casttype=ResourceList,castkey=ResourceName"`
	Requests ResourceList `json:"requests,omitempty" protobuf:"bytes,2,rep,name=requests,casttype=ResourceList,castkey=ResourceName"`
}

// PersistentVolumeClaimConditionType names a claim condition.
type PersistentVolumeClaimConditionType string

// PersistentVolumeClaimCondition is one condition of a claim (resizing).
type PersistentVolumeClaimCondition struct {
	Type               PersistentVolumeClaimConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=PersistentVolumeClaimConditionType"`
	Status             ConditionStatus                    `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	LastProbeTime      Time                               `json:"lastProbeTime,omitempty" protobuf:"bytes,3,opt,name=lastProbeTime"`
	LastTransitionTime Time                               `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	Reason             string                             `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	Message            string                             `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// PersistentVolumeClaimStatus is the phase and size of a claim.
type PersistentVolumeClaimStatus struct {
	// Fields of the Kubernetes type that kubesim does not model, by their
	// protobuf numbers: the codec reads past them.
	_ struct{} `json:"-" protobuf:"bytes,5,rep,name=allocatedResources,casttype=ResourceList,castkey=ResourceName"`
	_ struct{} `json:"-" protobuf:"bytes,7,rep,name=allocatedResourceStatuses"`
	_ struct{} `json:"-" protobuf:"bytes,8,opt,name=currentVolumeAttributesClassName"`
	_ struct{} `json:"-" protobuf:"bytes,9,opt,name=modifyVolumeStatus"`
	_ struct{} `json:"-" protobuf:"bytes,10,opt,name=healthStatus"`
	// Phase is Pending, Bound or Lost.
	Phase PersistentVolumeClaimPhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase,casttype=PersistentVolumeClaimPhase"`
	// AccessModes of the bound volume.
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty" protobuf:"bytes,2,rep,name=accessModes,casttype=PersistentVolumeAccessMode"`
	// Capacity of the bound volume.
	Capacity ResourceList `json:"capacity,omitempty" protobuf:"bytes,3,rep,name=capacity,casttype=ResourceList,castkey=ResourceName"`
	// Conditions of the claim.
	Conditions []PersistentVolumeClaimCondition `json:"conditions,omitempty" protobuf:"bytes,4,rep,name=conditions" patchStrategy:"merge" patchMergeKey:"type"`
}

// PersistentVolumeClaimList is a list of claims.
type PersistentVolumeClaimList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the claims.
	Items []PersistentVolumeClaim `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// VolumeBindingMode says when a class's claims are provisioned and bound.
type VolumeBindingMode string

// The volume binding modes.
const (
	VolumeBindingImmediate            VolumeBindingMode = "Immediate"
	VolumeBindingWaitForFirstConsumer VolumeBindingMode = "WaitForFirstConsumer"
)

// StorageClass is a kind of storage a provisioner makes on demand
// (storage.k8s.io/v1, cluster-scoped).
type StorageClass struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// allowedTopologies is not modelled: the codec reads past it.
	_ struct{} `json:"-" protobuf:"bytes,8,rep,name=allowedTopologies"`
	// Provisioner makes the volumes (immutable).
	Provisioner string `json:"provisioner" protobuf:"bytes,2,opt,name=provisioner"`
	// Parameters for the provisioner (immutable).
	Parameters map[string]string `json:"parameters,omitempty" protobuf:"bytes,3,rep,name=parameters"`
	// ReclaimPolicy of the volumes made; Delete by default (immutable).
	ReclaimPolicy *PersistentVolumeReclaimPolicy `json:"reclaimPolicy,omitempty" protobuf:"bytes,4,opt,name=reclaimPolicy,casttype=k8s.io/api/core/v1.PersistentVolumeReclaimPolicy"`
	// MountOptions of the volumes made.
	MountOptions []string `json:"mountOptions,omitempty" protobuf:"bytes,5,opt,name=mountOptions"`
	// AllowVolumeExpansion lets claims grow.
	AllowVolumeExpansion *bool `json:"allowVolumeExpansion,omitempty" protobuf:"varint,6,opt,name=allowVolumeExpansion"`
	// VolumeBindingMode is Immediate by default (immutable).
	VolumeBindingMode *VolumeBindingMode `json:"volumeBindingMode,omitempty" protobuf:"bytes,7,opt,name=volumeBindingMode"`
}

// StorageClassList is a list of StorageClasses.
type StorageClassList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the classes.
	Items []StorageClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PersistentVolumeClaimRetentionPolicyType is Retain or Delete.
type PersistentVolumeClaimRetentionPolicyType string

// The claim retention policies of a StatefulSet.
const (
	RetainPersistentVolumeClaimRetentionPolicyType PersistentVolumeClaimRetentionPolicyType = "Retain"
	DeletePersistentVolumeClaimRetentionPolicyType PersistentVolumeClaimRetentionPolicyType = "Delete"
)

// StatefulSetPersistentVolumeClaimRetentionPolicy says what becomes of a
// StatefulSet's claims when it is deleted or scaled down.
type StatefulSetPersistentVolumeClaimRetentionPolicy struct {
	WhenDeleted PersistentVolumeClaimRetentionPolicyType `json:"whenDeleted,omitempty" protobuf:"bytes,1,opt,name=whenDeleted,casttype=PersistentVolumeClaimRetentionPolicyType"`
	WhenScaled  PersistentVolumeClaimRetentionPolicyType `json:"whenScaled,omitempty" protobuf:"bytes,2,opt,name=whenScaled,casttype=PersistentVolumeClaimRetentionPolicyType"`
}
