// Package replicaset is the ReplicaSet controller: it keeps spec.replicas
// pods running for every ReplicaSet, creating pods from the template (named
// <rs>-xxxxx by the API server) and deleting the surplus, and reports what
// it counted in the ReplicaSet's status.
//
// It simulates kubernetes/pkg/controller/replicaset (replica_set.go,
// replica_set_utils.go) and the parts of kubernetes/pkg/controller it uses:
// ControllerExpectations (controller_utils.go, in the controller kit), the ActivePods ordering that
// picks which pods to delete, slow-start batches, and the
// ControllerRefManager that adopts orphans and releases pods whose labels
// stop matching (controller_ref_manager.go). Read those files next to this
// package; the names match.
//
// ReplicationControllers are kept by the same code
// (NewReplicationManager, replication.go), as kube-controller-manager's
// pkg/controller/replication runs the ReplicaSet controller over them
// through adapters that show each RC as a ReplicaSet.
//
// What it leaves out: the "related pods" and pod-deletion-cost rankings of ActivePods (kubesim
// orders unscheduled, pending, not ready, then newer pods, ties by name),
// the terminating-replicas status field, metrics and the periodic resync:
// instead, a ReplicaSet waiting on expectations is requeued for the moment
// they expire on the injected clock.
package replicaset
