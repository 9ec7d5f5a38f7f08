package cluster

import (
	"errors"
	"path/filepath"

	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/controllers/volume/csiattacher"
	"github.com/kubesim/kubesim/controllers/volume/csiprovisioner"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/kubelet/csi"
)

// CSIConfig turns on the CSI side of the cluster: every kubelet watches
// its node's plugins_registry for drivers, and the sidecars kubesim plays
// for them run beside the controller manager.
type CSIConfig struct {
	// RootDir holds each node's kubelet directory, RootDir/<node> (as
	// /var/lib/kubelet; default: DATA-DIR/kubelet, where CNI keeps its
	// sandboxes too). A driver is started with --kubelet-dir on it.
	RootDir string
}

// csiRootDir is the directory of node's kubelet.
func (c *Cluster) csiRootDir(node string) (string, error) {
	root := c.cfg.CSI.RootDir
	if root == "" {
		if c.dataDir == "" {
			return "", errors.New("CSI needs a directory for the nodes' kubelets: give CSIConfig.RootDir")
		}
		root = filepath.Join(c.dataDir, "kubelet")
	}
	return filepath.Join(root, node), nil
}

// kubeletCSI is the CSI configuration of node's kubelet, nil without
// Config.CSI. Its gRPC calls go into the step trace.
func (c *Cluster) kubeletCSI(node string, x ControllerContext) (*kubelet.CSIConfig, error) {
	if c.cfg.CSI == nil {
		return nil, nil
	}
	dir, err := c.csiRootDir(node)
	if err != nil {
		return nil, err
	}
	return &kubelet.CSIConfig{RootDir: dir, Drivers: c.csiDrivers, OnCall: csiTrace(x)}, nil
}

// csiTrace puts a component's gRPC calls into its step's trace, as
// "csi CreateVolume example.csi.kubesim.io pvc-…" (nil in live mode).
func csiTrace(x ControllerContext) func(string) {
	if x.RecordCall == nil {
		return nil
	}
	return func(call string) { x.RecordCall("csi " + call) }
}

// csiSidecars are the sidecars of the CSI drivers: the external
// provisioner and attacher (the latter with the attach/detach
// controller's part), one each for every driver registered (found
// by name in the cluster's csi.Drivers). They are the drivers'
// deployments, not kube-controller-manager's, so they have informers of
// their own; they act as the API server's privileged loopback, where a
// real install binds each its own ClusterRole.
func (c *Cluster) csiSidecars() []wiring {
	if c.cfg.CSI == nil {
		return nil
	}
	return []wiring{
		{csiprovisioner.ControllerName, csiprovisioner.ControllerName, func(x ControllerContext) (Component, error) {
			return csiprovisioner.New(csiprovisioner.Config{BaseConfig: controllers.BaseConfig{Client: x.Client, Clock: x.Clock, Mode: x.Mode,
				Logger: x.Logger, Informers: c.privateInformers()}, SidecarConfig: csi.SidecarConfig{Drivers: c.csiDrivers, OnCall: csiTrace(x)}})
		}},
		{csiattacher.ControllerName, csiattacher.ControllerName, func(x ControllerContext) (Component, error) {
			return csiattacher.New(csiattacher.Config{BaseConfig: controllers.BaseConfig{Client: x.Client, Clock: x.Clock, Mode: x.Mode,
				Logger: x.Logger, Informers: c.privateInformers()}, SidecarConfig: csi.SidecarConfig{Drivers: c.csiDrivers, OnCall: csiTrace(x)}})
		}},
	}
}

// newCSIDrivers is the registry the kubelets and sidecars share (nil
// without Config.CSI).
func newCSIDrivers(cfg *CSIConfig) *csi.Drivers {
	if cfg == nil {
		return nil
	}
	return csi.NewDrivers()
}
