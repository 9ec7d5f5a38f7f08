// Package coscheduling is a sample out-of-tree scheduler plugin for
// kubesim, written against kubesim's scheduling framework
// (github.com/kubesim/kubesim/scheduler) as a plugin for kube-scheduler is
// written against k8s.io/kubernetes/pkg/scheduler/framework: gang
// scheduling by Permit, the idea of the scheduler-plugins project's
// Coscheduling (github.com/kubernetes-sigs/scheduler-plugins,
// pkg/coscheduling).
//
// A pod labelled scheduling.x-k8s.io/pod-group=NAME, with the annotation
// scheduling.x-k8s.io/min-available=N, belongs to the group NAME of its
// namespace, which needs N members placed at once. Each member is
// scheduled as usual; at Permit, when fewer than N members of the group
// are on nodes (bound, or assumed and waiting in Permit, this one
// counted), it waits; the member that makes N allows every waiting one,
// and all are bound. A member that waits longer than
// permitWaitingTimeSeconds (60 by default; the plugin's args) is
// rejected by the scheduler ("rejected due to timeout after waiting 1m0s
// at plugin Coscheduling"), and its Unreserve rejects the other waiting
// members of its group: the group gives its nodes back together and is
// tried again. A pod without the label is permitted at once.
//
// Left out of scheduler-plugins' plugin: the PodGroup custom resource
// (the group's size is the annotation here), its QueueSort keeping a
// group's members together in the queue, the PreFilter that rejects a
// group with fewer pods than its minimum, and the PostFilter's
// back-off of a group that failed.
package coscheduling
