// Package cluster assembles a whole kubesim control plane from one Config:
// the store, the API server with the aggregator composed in front of it
// (kube-apiserver's server chain: aggregator.NewServer wraps
// apiserver.Server), the API server's own loops (the CRD finalizer, API
// Priority and Fairness's config controller), the controller manager's
// controllers (replicaset, replicationcontroller, deployment,
// garbagecollector, namespace, nodelifecycle, statefulset, csrsigning,
// endpoints, APIService availability, and Config.Extra), the scheduler and
// one fake
// kubelet per node. Every component is an API client talking to the API
// server through the in-process transport; none touches the store or
// another component.
//
// The wiring is a table (cluster.go): one row per component with its
// switch name, the user agent of its client and an InitFunc that builds it
// from a ControllerContext — its own client, the cluster's clock and run
// mode, a logger — as kube-controller-manager builds its controllers. The
// order of the table is the stepper's order.
//
// It runs two ways over the same code, as Config.Mode says; the mode is
// handed to every component, none guesses it:
//
//   - runmode.Live (Start): every loop in its own goroutines on the real
//     clock, with watches — what `kubesim serve` runs.
//   - runmode.Step (Step, RunUntilStable, Advance): package stepper drives
//     the loops in the table's order on its fake clock, one unit of work a
//     step, and records the trace. The same Config and inputs give a
//     byte-identical trace.
//
// A few images run for real inside the process when a kubelet starts a
// pod of them: kubesim/extension-apiserver (the sample extension API
// server) and, in live mode, kubesim/controller:NAME for every controller
// of Config.ControllerImages, which then runs as that pod — a client of the
// API server like any other, stopped when the pod stops.
//
// Each cluster has its own Prometheus registry (instrumentation.go):
// the API server's metrics, every controller's work queue by its name,
// the scheduler's, the Go runtime's and the process's, served at the API
// server's /metrics (Metrics returns it, for `kubesim serve`'s in-flight
// gauge); each kubelet keeps a registry of its own (package kubelet says
// why). Components built again (a controller switched off and on) count
// on the same series: the collectors are registered once per cluster.
//
// A real cluster has no counterpart: this is the wiring kubeadm and the
// binaries do (cmd/kube-controller-manager/app/controllermanager.go's
// NewControllerDescriptors is the real table).
package cluster
