// Package persistentvolume is the PersistentVolume controller of
// kube-controller-manager (pkg/controller/volume/persistentvolume,
// "persistentvolume-binder"), with a simulated dynamic provisioner.
//
// It binds each claim to the smallest free volume that matches its class,
// access modes, size, volume mode and selector (a volume reserved for the
// claim first), writing both halves of the binding — the volume's claimRef
// and phase Bound, the claim's volumeName, the pv.kubernetes.io/bind-completed
// and bound-by-controller annotations and phase Bound. A claim whose volume
// disappears is Lost. A volume whose claim went away is Released, then
// reclaimed by its policy: Delete removes it, Retain leaves it Released.
// Once a volume is gone, its data (kubelet/volumedata: what pods wrote to
// it) is removed — for Delete, as the provisioner deletes the storage; for
// a volume an administrator deleted, because nothing can reach it.
//
// Provisioning: a claim of a class whose provisioner is kubesim.io/hostpath
// (the default class "standard") gets a volume pvc-<claim uid>, a hostPath
// under /var/local-path-provisioner as kind's local-path-provisioner makes.
// For a WaitForFirstConsumer class the claim waits until the scheduler
// writes volume.kubernetes.io/selected-node, and the volume gets a node
// affinity for that node. A class that does not exist leaves the claim
// Pending with ProvisioningFailed; another provisioner's class with
// ExternalProvisioning, as in Kubernetes.
//
// Left out: the external-provisioner protocol (kubesim's provisioner runs in
// this loop, as the in-tree ones did), Recycle (a volume asking for it
// fails), volume expansion, the periodic resync, and the scheduler's own
// binding (PreBind) — here the scheduler only chooses the node.
package persistentvolume
