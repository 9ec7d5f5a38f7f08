// Package statefulset is the StatefulSet controller: pods with stable
// ordinal names (<set>-0 … <set>-N-1), each with a stable hostname under
// the set's headless Service (spec.serviceName), created in order and only
// when the previous ones are Running and Ready (OrderedReady) or all at
// once (Parallel), removed from the highest ordinal down, and replaced
// under the same name when deleted. A template change rolls from the
// highest ordinal down, one pod at a time, leaving ordinals below the
// partition alone.
//
// It is written on the typed layer of package controllers (an
// ObjectController: primary StatefulSet, owned Pods and
// ControllerRevisions), the one the example operators use too, and
// simulates kubernetes/pkg/controller/statefulset
// (stateful_set.go, stateful_set_control.go's updateStatefulSet and
// computeReplicaStatus, stateful_set_utils.go's identity helpers and
// newVersionedStatefulSetPod, stateful_pod_control.go's event wording).
// Read those files next to this one; Plan is the heart of
// updateStatefulSet.
//
// Its history is kept as Kubernetes keeps it (history.go, on the
// controller kit's history.go shared with the DaemonSet controller;
// pkg/controller/history): one ControllerRevision "<set>-<hash>" per
// distinct template, its data a strategic merge patch that replaces
// spec.template, numbered in order; a template seen before is renumbered
// as the newest (a rollback), and revisions beyond revisionHistoryLimit
// that no pod uses are deleted. Pods below the partition are recreated
// from the current revision's template. Revisions are claimed as pods are
// (controllers.ClaimObjects): orphans the selector matches are adopted.
//
// Left out: volumeClaimTemplates and PersistentVolumeClaims, spec.ordinals,
// maxUnavailable above 1, the persistentVolumeClaimRetentionPolicy and
// repairing the identity of an existing pod.
package statefulset
