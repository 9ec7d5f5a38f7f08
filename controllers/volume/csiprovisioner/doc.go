// Package csiprovisioner plays kubernetes-csi's external-provisioner, the
// sidecar that makes volumes for a CSI driver: a claim whose
// StorageClass names a registered driver as its provisioner gets
// CreateVolume (named pvc-<claim uid>, so that a retry asks for the same
// volume, with the claim's size, the class's parameters and the claim's
// access modes) and a PersistentVolume pre-bound to it, whose spec.csi
// names the driver and the volume's handle; the persistentvolume
// controller then binds the claim. A released volume of a Delete class
// gets DeleteVolume, then the PersistentVolume is deleted.
//
// Real counterpart: kubernetes-csi/external-provisioner (pkg/controller)
// over sig-storage-lib-external-provisioner's ProvisionController.
//
// Left out: leader election, topology (AccessibilityRequirements),
// secrets, cloning and snapshots as data sources, capacity tracking
// (CSIStorageCapacity), volume expansion, and the PV's deletion-protection
// finalizer. One controller serves every registered driver, where a real
// cluster runs one provisioner beside each driver's controller plugin;
// it finds the driver's socket by name in the cluster's csi.Drivers.
package csiprovisioner
