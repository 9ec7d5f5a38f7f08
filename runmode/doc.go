// Package runmode names the two ways kubesim runs the same control loops,
// so that a component is told which one it is in rather than guessing it
// from its clock:
//
//   - Live: every loop in its own goroutines on the real clock, with
//     watches; work happens as soon as it can (`kubesim serve`).
//   - Step: one goroutine (the stepper) drives every loop in a fixed
//     order on a fake clock; nothing may happen behind its back — no timer
//     goroutine, no asynchronous write — so the trace is the same every run.
//
// cluster.Config sets the mode once; it flows to the work queues
// (client/workqueue), the event recorders (client/record) and every
// controller, scheduler and kubelet.
//
// Kubernetes has no counterpart: it only ever runs live. The nearest thing
// is the fake clock its unit tests inject (k8s.io/utils/clock/testing).
package runmode
