// Package protection holds the pvc-protection and pv-protection controllers
// of kube-controller-manager (pkg/controller/volume/pvcprotection and
// pvprotection). The StorageObjectInUseProtection admission plugin puts
// kubernetes.io/pvc-protection on every claim and kubernetes.io/pv-protection
// on every volume; these loops take the finalizer off an object being
// deleted once nothing uses it: a claim once no scheduled, unfinished pod
// mounts it, a volume once it is no longer Bound. So a claim in use is not
// removed under its pod.
//
// Left out: the live API check the real pvc-protection makes when its pod
// cache might be stale, and ephemeral (generic inline) volumes.
package protection
