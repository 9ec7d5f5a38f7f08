// Package volume holds the claim-to-volume matching the PersistentVolume
// controller and the scheduler share, as both share
// k8s.io/component-helpers/storage/volume in Kubernetes (FindMatchingVolume,
// GetPersistentVolumeClaimClass): pure functions over API objects.
//
// Left out: the volume attributes class and the beta storage-class
// annotation on volumes (the one on claims is honoured).
package volume
