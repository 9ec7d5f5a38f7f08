package client

import (
	appsv1 "k8s.io/api/apps/v1"
)

// DaemonSetsResource is apps/v1 daemonsets.
var DaemonSetsResource = ResourceInfo{Group: "apps", Version: "v1", Resource: "daemonsets", Namespaced: true}

// DaemonSets is the typed client of daemon sets.
func (c *Client) DaemonSets() *Resource[*appsv1.DaemonSet] {
	return For(c, DaemonSetsResource, func() *appsv1.DaemonSet { return &appsv1.DaemonSet{} })
}
