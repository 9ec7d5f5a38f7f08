// Package cluster assembles a whole kubesim control plane from one Config:
// the store, the API server with the aggregator composed in front of it
// (kube-apiserver's server chain: aggregator.NewServer wraps
// apiserver.Server), the controller manager's controllers
// (replicaset, deployment, garbagecollector, namespace, nodelifecycle), the
// scheduler and one fake kubelet per node. Every component is an API client
// talking to the API server through the in-process transport; none touches
// the store or another component.
//
// It runs two ways, over the same code:
//
//   - Live (Start): every loop in its own goroutines on the real clock,
//     with watches — what `kubesim serve` runs.
//   - Step (Step, RunUntilStable, Advance): one goroutine drives the loops
//     in a fixed round-robin order on a fake clock. A step is one unit of
//     work (one reconcile, one scheduling decision, one kubelet transition)
//     and yields one trace entry: the time, the actor, what it saw (the
//     event that queued the key) and the API writes it made. Time moves only
//     when nothing is runnable, to the next timer. The same Config and
//     inputs give a byte-identical trace.
//
// A few images run for real inside the process when a kubelet starts a
// pod of them: kubesim/extension-apiserver (the sample extension API
// server) and, in live mode, kubesim/controller:NAME for every controller
// of Config.ControllerImages, which then runs as that pod — a client of the
// API server like any other, stopped when the pod stops.
//
// A real cluster has no counterpart: this is the wiring kubeadm and the
// binaries do, plus the stepper that only a simulator can have.
package cluster
