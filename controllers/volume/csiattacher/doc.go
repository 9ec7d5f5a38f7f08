// Package csiattacher plays the two halves of attaching a CSI volume to a
// node: the attach/detach controller's (kube-controller-manager's
// pkg/controller/volume/attachdetach, whose CSI attacher creates a
// VolumeAttachment for each volume a scheduled pod needs on its node and
// deletes it once no pod there needs it) and kubernetes-csi's
// external-attacher (which answers a VolumeAttachment with
// ControllerPublishVolume and marks it attached, or records the
// attachError; and a deleted one with ControllerUnpublishVolume, holding
// it with its finalizer until then). Only drivers whose CSIDriver does not
// set attachRequired to false are attached; the kubelet waits for the
// attachment before it stages the volume.
//
// Left out: the attach/detach controller's other plugins, its node
// status volumesAttached and its wait for the kubelet's volumesInUse (a
// pod's volumes are unmounted before its deletion completes here, so the
// detach follows the unmount), inline volumes, and the attacher's
// ListVolumes reconciliation. Like csiprovisioner it serves every
// registered driver and finds its socket in the cluster's csi.Drivers.
package csiattacher
