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
