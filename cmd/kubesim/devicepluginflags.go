package main

import (
	"github.com/spf13/pflag"

	"github.com/kubesim/kubesim/cluster"
)

// devicePluginFlag is --device-plugins of serve and kubelet: each node's
// kubelet serves the device plugin Registration service on
// ROOT/NODE/device-plugins/kubelet.sock (a real node's
// /var/lib/kubelet/device-plugins/kubelet.sock). Off, no socket is made.
type devicePluginFlag struct{ on *bool }

func addDevicePluginFlag(fs *pflag.FlagSet) devicePluginFlag {
	return devicePluginFlag{on: fs.Bool("device-plugins", false, "each node's kubelet serves the device plugin Registration service on DIR/NODE/device-plugins/kubelet.sock (DIR: serve's DATA-DIR/kubelet, kubelet's --root-dir), where plugins such as `kubesim device-plugin` register their devices (docs/plugins.md)")}
}

// config is the cluster's device plugin configuration, nil when the flag
// is off.
func (f devicePluginFlag) config() *cluster.DevicePluginsConfig {
	if !*f.on {
		return nil
	}
	return &cluster.DevicePluginsConfig{}
}
