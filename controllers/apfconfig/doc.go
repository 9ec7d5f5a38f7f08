// Package apfconfig is the part of kube-apiserver's API Priority and
// Fairness config controller (k8s.io/apiserver/pkg/util/flowcontrol,
// apf_controller.go) that writes what it finds back to the API: each
// FlowSchema's Dangling condition, False (Found) while the priority level
// it names exists and True (NotFound) while it does not. It runs inside
// the API server, as the real one does, with its privileged loopback.
//
// As the real controller, it has one work item: every change to a
// FlowSchema or a PriorityLevelConfiguration queues "the configuration",
// and one reconcile digests all of them. It queues only when some schema's
// condition is wrong, so a cluster whose conditions are right (the API
// server's bootstrap writes the first ones) does no work at start.
//
// Left out: everything the real controller digests the configuration for
// — classifying requests into flows, the priority levels' concurrency
// limits, borrowing, the fair queues (kubesim's request limits are
// package apiserver/serving's), the PriorityLevelConfiguration status
// (the real one writes no condition there either) and the
// server-side-apply field manager of its status writes. Read the real one
// at https://github.com/kubernetes/kubernetes/tree/master/staging/src/k8s.io/apiserver/pkg/util/flowcontrol
package apfconfig
