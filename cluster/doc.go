// Package cluster assembles a whole kubesim control plane from one Config:
// the store, the API server, the controller manager's controllers
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
// A real cluster has no counterpart: this is the wiring kubeadm and the
// binaries do, plus the stepper that only a simulator can have.
package cluster
