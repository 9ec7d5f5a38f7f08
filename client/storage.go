package client

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kubesim/kubesim/api"
)

// The storage resources.
var (
	PersistentVolumeClaimsResource = ResourceInfo{Version: "v1", Resource: "persistentvolumeclaims", Namespaced: true}
	PersistentVolumesResource      = ResourceInfo{Version: "v1", Resource: "persistentvolumes"}
	StorageClassesResource         = ResourceInfo{Group: api.StorageGroupName, Version: "v1", Resource: "storageclasses"}
)

// PersistentVolumeClaims is the typed client of claims.
func (c *Client) PersistentVolumeClaims() *Resource[*corev1.PersistentVolumeClaim] {
	return For(c, PersistentVolumeClaimsResource, func() *corev1.PersistentVolumeClaim { return &corev1.PersistentVolumeClaim{} })
}

// PersistentVolumes is the typed client of volumes.
func (c *Client) PersistentVolumes() *Resource[*corev1.PersistentVolume] {
	return For(c, PersistentVolumesResource, func() *corev1.PersistentVolume { return &corev1.PersistentVolume{} })
}

// StorageClasses is the typed client of StorageClasses.
func (c *Client) StorageClasses() *Resource[*storagev1.StorageClass] {
	return For(c, StorageClassesResource, func() *storagev1.StorageClass { return &storagev1.StorageClass{} })
}

// The CSI resources (storage.k8s.io/v1).
var (
	CSIDriversResource        = ResourceInfo{Group: api.StorageGroupName, Version: "v1", Resource: "csidrivers"}
	CSINodesResource          = ResourceInfo{Group: api.StorageGroupName, Version: "v1", Resource: "csinodes"}
	VolumeAttachmentsResource = ResourceInfo{Group: api.StorageGroupName, Version: "v1", Resource: "volumeattachments"}
)

// CSIDrivers is the typed client of CSIDrivers.
func (c *Client) CSIDrivers() *Resource[*storagev1.CSIDriver] {
	return For(c, CSIDriversResource, func() *storagev1.CSIDriver { return &storagev1.CSIDriver{} })
}

// CSINodes is the typed client of CSINodes.
func (c *Client) CSINodes() *Resource[*storagev1.CSINode] {
	return For(c, CSINodesResource, func() *storagev1.CSINode { return &storagev1.CSINode{} })
}

// VolumeAttachments is the typed client of VolumeAttachments.
func (c *Client) VolumeAttachments() *Resource[*storagev1.VolumeAttachment] {
	return For(c, VolumeAttachmentsResource, func() *storagev1.VolumeAttachment { return &storagev1.VolumeAttachment{} })
}
