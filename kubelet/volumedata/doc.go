// Package volumedata is where kubesim's PersistentVolumes keep what is
// written to them: the storage a volume stands for — the directory on a
// node that kind's local-path-provisioner makes, or a share on a NAS — in
// a simulated cluster that has neither. Each PersistentVolume gets a
// directory of its own, named after the volume and its uid, under
// volumes/ in the cluster's data directory, so what a pod writes through
// `kubectl exec` or `kubectl cp` into a claim's mount is there for the next
// pod that mounts the claim, on any node, and after `kubesim serve` starts
// again on the same data directory. The PersistentVolume controller
// removes it with the volume. Without a data directory the store keeps the
// volumes in memory, for the cluster's life.
//
// The kubelet mounts a Store's volumes into containers (kubelet/shell's
// Volume); it is the one reader and writer. Real counterparts: the
// storage itself, reached through a volume plugin (hostPath, local, a CSI
// driver) — kubesim has no mounts, so the files are the shell's.
//
// Left out: capacity (a volume holds more than its claim asks), file
// modes, owners and links, and sharing between `kubesim kubelet` processes
// on other machines (each uses the directory it is given).
package volumedata
