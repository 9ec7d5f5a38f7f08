package client

import "github.com/kubesim/kubesim/api"

// The storage resources.
var (
	PersistentVolumeClaimsResource = ResourceInfo{Version: "v1", Resource: "persistentvolumeclaims", Namespaced: true}
	PersistentVolumesResource      = ResourceInfo{Version: "v1", Resource: "persistentvolumes"}
	StorageClassesResource         = ResourceInfo{Group: api.StorageGroupName, Version: "v1", Resource: "storageclasses"}
)

// PersistentVolumeClaims is the typed client of claims.
func (c *Client) PersistentVolumeClaims() *Resource[*api.PersistentVolumeClaim] {
	return For(c, PersistentVolumeClaimsResource, func() *api.PersistentVolumeClaim { return &api.PersistentVolumeClaim{} })
}

// PersistentVolumes is the typed client of volumes.
func (c *Client) PersistentVolumes() *Resource[*api.PersistentVolume] {
	return For(c, PersistentVolumesResource, func() *api.PersistentVolume { return &api.PersistentVolume{} })
}

// StorageClasses is the typed client of StorageClasses.
func (c *Client) StorageClasses() *Resource[*api.StorageClass] {
	return For(c, StorageClassesResource, func() *api.StorageClass { return &api.StorageClass{} })
}
