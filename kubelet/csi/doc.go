// Package csi is the node's side of the Container Storage Interface as
// the kubelet speaks it, and the shared piece the controller-side
// sidecars use: the plugin watcher's registration protocol
// (k8s.io/kubelet pkg/apis/pluginregistration/v1 over the sockets a
// driver puts in the node's plugins_registry directory), a client of a
// driver's CSI services (github.com/container-storage-interface/spec)
// whose calls time out on the injected clock and are named for the step
// trace, and Drivers, the registry of which driver listens where.
//
// Real counterparts: the kubelet's pkg/kubelet/pluginmanager (the
// watcher, reconciler and operation executor) and pkg/volume/csi's
// csi_client.go and csi_plugin.go (RegistrationHandler); the sidecars'
// connection code in kubernetes-csi/csi-lib-utils.
//
// Left out: fsnotify (the directory is read again every scan; a socket
// whose modification time changes is registered anew, as the watcher's
// timestamps do), the DRA and device plugin handlers (a socket of another
// type is told it has no handler), and csi-lib-utils' reconnecting
// connection: each call dials the socket, so a driver that restarts is
// found again at the next call.
//
// Drivers exists because kubesim is one process. In a cluster the
// external-provisioner and external-attacher run beside the driver's
// controller plugin and reach it through a socket in a shared emptyDir;
// here the driver registers on a node's kubelet only, and the kubelet
// notes its endpoint in the Drivers the cluster gives both it and the
// sidecars, which look the socket up by driver name.
package csi
