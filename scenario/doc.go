// Package scenario reads scenario files and runs them against a step-mode
// cluster: a scenario says how to build the cluster (nodes, seed, kubelet
// stage delays, controllers on or off), then lists steps — apply, delete,
// patch, scale, stop or start a node, turn a controller off or on, let time
// pass, run until stable, expect something to be true, or show a note to
// the student. The same file runs as a test (`kubesim scenario run`), as a
// lesson one unit of work at a time (`kubesim scenario step`) and as a
// golden trace (`kubesim scenario trace`). Notes, the name and the
// description may carry a Chinese text (`zh`), the language of the course
// kubesim teaches from; a Reporter's Lang picks it, Options.Phrases the
// language of the runner's own messages, and the trace stays as the API
// wrote it.
//
// Real counterpart: Kubernetes' end-to-end tests (test/e2e in
// kubernetes/kubernetes, written with Ginkgo and the e2e framework) and the
// kubectl walk-throughs of the Kubernetes tutorials. Neither has a stepper:
// a real cluster runs its loops concurrently, so "one unit of work" and a
// byte-identical trace exist only in a simulator. Applying a manifest here
// takes kubectl's path — map the kind to a resource through discovery, then
// create or update through the dynamic client — but without kubectl's
// three-way merge (the object is replaced) or server-side apply.
//
// The causality trace (Explain) follows a write back through the watch
// events that queued each reconcile to the user's action, as the "why does
// this pod exist?" question of the lessons needs; Kubernetes has no such
// record (managedFields and Events are the nearest).
package scenario
