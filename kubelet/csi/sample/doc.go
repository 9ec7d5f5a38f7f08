// Package sample is a small CSI driver that keeps each volume as a
// directory: what `kubesim csi-driver` runs, and what the tests register
// with the kubelets. It serves the three services of the Container
// Storage Interface (github.com/container-storage-interface/spec) on a
// unix socket — Identity, Controller (CreateVolume, DeleteVolume,
// ControllerPublishVolume, ControllerUnpublishVolume, GetCapacity) and
// Node (NodeStageVolume, NodePublishVolume and their reverses,
// NodeGetInfo) — and registers itself with the kubelet through a socket
// in the node's plugins_registry directory, as node-driver-registrar
// does for a real driver.
//
// Real counterparts: kubernetes-csi/csi-driver-host-path (a driver whose
// volumes are directories of the host) and node-driver-registrar.
//
// Left out: mounts. Staging makes the staging path a symbolic link to
// the volume's directory, publishing makes the pod's target path a link
// to the staging path, and the kubelet hands containers that directory;
// a real driver formats and mounts a device at both. Also left out:
// snapshots, expansion, topology, block volumes, and ControllerPublish
// doing more than remembering the node.
package sample
