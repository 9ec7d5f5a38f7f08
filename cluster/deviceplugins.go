package cluster

import (
	"errors"
	"path/filepath"

	"github.com/kubesim/kubesim/kubelet/deviceplugin"
)

// DevicePluginsConfig has every kubelet serve the device plugin
// Registration service (`kubesim serve --device-plugins`,
// kubelet/deviceplugin).
type DevicePluginsConfig struct {
	// RootDir holds each node's directory, as a kubelet's --root-dir
	// (default: DATA-DIR/kubelet); a node's socket is
	// RootDir/NODE/device-plugins/kubelet.sock.
	RootDir string
}

// kubeletDevicePlugins is the device manager configuration of node's
// kubelet, nil without Config.DevicePlugins. Its calls to the plugins go
// into the step trace.
func (c *Cluster) kubeletDevicePlugins(node string, x ControllerContext) (*deviceplugin.Config, error) {
	if c.cfg.DevicePlugins == nil {
		return nil, nil
	}
	root := c.cfg.DevicePlugins.RootDir
	if root == "" {
		if c.dataDir == "" {
			return nil, errors.New("device plugins need a directory for the nodes' sockets: give DevicePluginsConfig.RootDir")
		}
		root = filepath.Join(c.dataDir, "kubelet")
	}
	cfg := &deviceplugin.Config{Dir: DevicePluginDir(root, node)}
	if x.RecordCall != nil {
		cfg.OnCall = func(call string) { x.RecordCall("deviceplugin " + call) }
	}
	return cfg, nil
}

// DevicePluginDir is node's device plugin directory under a kubelet root
// directory: where its kubelet.sock is, and where a plugin makes its
// socket (/var/lib/kubelet/device-plugins on a real node).
func DevicePluginDir(root, node string) string {
	return filepath.Join(root, node, "device-plugins")
}
