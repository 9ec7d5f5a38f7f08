// Package stepper is step mode's driver: one goroutine runs every control
// loop of a cluster in a fixed round-robin order on a fake clock, one unit
// of work at a time (one reconcile, one scheduling decision, one kubelet
// transition), and writes each step as a line of the trace — the time, the
// actor, the key, the event that queued it and the API writes it made. Time
// moves only when nothing is runnable, to the next timer. The same inputs
// and seed give a byte-identical trace every run.
//
// It works on controllers.Controller, whose Sync (refresh the informers by
// listing) and Step (reconcile one ready key) exist for it, and on anything
// Pausable (a kubelet whose node has failed is left alone). The loops are
// built by package cluster with runmode.Step, so that none of them sets a
// timer or writes behind the stepper's back; the stepper owns the fake clock
// (clock.Fake), and is its only user besides tests.
//
// Listing before every unit of work is what a step costs most, so it lists
// only what may have changed: a loop whose lists were read at the same
// change count and clock time (Config.Changes: the store's revision plus
// the API server's answered writes) is not refreshed at all, and each
// informer skips its list while no write touched its resource (the
// cluster's store.ChangeLog). Skipping a list whose answer would be the
// same changes nothing a loop sees, so the trace is the same.
//
// The trace answers "why did this happen?" (explain.go): a write's
// reconcile, the watch event that queued it, the write that made that
// event, and so on back to a user's write. The scenario runner asks it of
// the step trace; the web page asks it of the record it keeps of a live
// cluster's writes, which holds the same entries.
//
// Kubernetes has no counterpart: its loops only run live. The stepper is
// what a simulator can add — the order of events made visible and
// repeatable, for teaching and for golden-file tests.
package stepper
