// Package catalog lists the controllers that can run outside the controller
// manager, by name: as their own process (`kubesim run-controller NAME`), as
// the pod image kubesim/controller:NAME, or beside the control plane in a
// scenario (`cluster: {operators: [NAME]}`). One list serves all three, so
// a name means the same controller everywhere.
package catalog

import (
	"sort"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/controllers/statefulset"
	"github.com/kubesim/kubesim/examples/operators/foo"
	"github.com/kubesim/kubesim/examples/operators/redis"
)

// Controllers returns the runnable controllers by name. A function, not a
// package variable: no global state.
func Controllers() map[string]cluster.InitFunc {
	return map[string]cluster.InitFunc{
		statefulset.ControllerName: func(x cluster.ControllerContext) (cluster.Component, error) {
			return statefulset.New(statefulset.Config{Client: x.Client, Clock: x.Clock, Mode: x.Mode, Namespace: x.Namespace, Logger: x.Logger})
		},
		foo.Name: func(x cluster.ControllerContext) (cluster.Component, error) {
			return foo.New(foo.Config{Client: x.Client, Clock: x.Clock, Mode: x.Mode, Namespace: x.Namespace, Logger: x.Logger})
		},
		redis.Name: func(x cluster.ControllerContext) (cluster.Component, error) {
			return redis.New(redis.Config{Client: x.Client, Clock: x.Clock, Mode: x.Mode, Namespace: x.Namespace, Logger: x.Logger})
		},
	}
}

// Names lists the runnable controllers, sorted.
func Names() []string {
	var out []string
	for n := range Controllers() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Extra turns names into the cluster's extra controllers (all namespaces).
func Extra(names []string) []cluster.ExtraController {
	all := Controllers()
	var out []cluster.ExtraController
	for _, n := range names {
		out = append(out, cluster.ExtraController{Name: n, New: all[n]})
	}
	return out
}
