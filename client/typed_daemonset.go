package client

import "github.com/kubesim/kubesim/api"

// DaemonSetsResource is apps/v1 daemonsets.
var DaemonSetsResource = ResourceInfo{Group: "apps", Version: "v1", Resource: "daemonsets", Namespaced: true}

// DaemonSets is the typed client of daemon sets.
func (c *Client) DaemonSets() *Resource[*api.DaemonSet] {
	return For(c, DaemonSetsResource, func() *api.DaemonSet { return &api.DaemonSet{} })
}
