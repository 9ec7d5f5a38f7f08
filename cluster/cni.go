package cluster

import (
	"errors"
	"path/filepath"

	"github.com/kubesim/kubesim/kubelet/cni"
)

// CNIConfig is where the kubelets find their network plugins: the
// runtimes' conf_dir and bin_dir.
type CNIConfig struct {
	// ConfDir holds the network configurations (/etc/cni/net.d).
	ConfDir string
	// BinDirs are searched for the plugins (/opt/cni/bin).
	BinDirs []string
	// RootDir holds each node's directory of sandbox records, as a
	// kubelet's --root-dir (default: DATA-DIR/kubelet). A kubelet started
	// again over it adopts the sandboxes it finds there.
	RootDir string
}

// kubeletCNI is the CNI configuration of node's kubelet, nil without
// Config.CNI. Its plugin calls go into the step trace.
func (c *Cluster) kubeletCNI(node string, x ControllerContext) (*cni.Config, error) {
	if c.cfg.CNI == nil {
		return nil, nil
	}
	root := c.cfg.CNI.RootDir
	if root == "" {
		if c.dataDir == "" {
			return nil, errors.New("CNI needs a directory for the nodes' sandboxes: give CNIConfig.RootDir")
		}
		root = filepath.Join(c.dataDir, "kubelet")
	}
	cfg := &cni.Config{ConfDir: c.cfg.CNI.ConfDir, BinDirs: c.cfg.CNI.BinDirs, StateDir: filepath.Join(root, node, "cni")}
	if x.RecordCall != nil {
		cfg.OnCall = func(call string) { x.RecordCall("cni " + call) }
	}
	return cfg, nil
}
