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
// ObjectController: primary StatefulSet, owned Pods), the one the example
// operators use too, and simulates kubernetes/pkg/controller/statefulset
// (stateful_set.go, stateful_set_control.go's updateStatefulSet and
// computeReplicaStatus, stateful_set_utils.go's identity helpers and
// newVersionedStatefulSetPod, stateful_pod_control.go's event wording).
// Read those files next to this one; Plan is the heart of
// updateStatefulSet.
//
// Left out: ControllerRevision objects (kubesim does not serve them: a
// revision is "<set>-<hash of the template>", the controller remembers the
// templates of the current and update revisions in memory, and after a
// restart a pod that must be recreated at the old revision takes its
// template from a surviving pod of that revision, or the new template if
// none is left), volumeClaimTemplates
// and PersistentVolumeClaims, spec.ordinals, maxUnavailable above 1, the
// persistentVolumeClaimRetentionPolicy, repairing the identity of an
// existing pod, and the collision count.
package statefulset
