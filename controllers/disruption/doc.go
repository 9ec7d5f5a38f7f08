// Package disruption is the disruption controller of
// kube-controller-manager ("disruption"): for every PodDisruptionBudget it
// counts the pods its selector matches, the pods their controllers expect
// (the scale of each ReplicaSet, Deployment or StatefulSet) and the
// healthy (ready) ones, and writes status.currentHealthy, desiredHealthy,
// expectedPods, disruptionsAllowed, observedGeneration and the
// DisruptionAllowed condition — what pods/eviction reads to let a pod go
// or answer 429. It also forgets status.disruptedPods entries once the pod
// is gone or being deleted, or after two minutes.
//
// Left out: controllers other than ReplicaSet, Deployment and StatefulSet
// (the real one reads any owner's scale subresource; a pod of another
// owner makes the budget fail to sync, as an owner without scale does
// there), the stale-DisruptionTarget-condition cleanup of pods an eviction
// marked but never deleted.
//
// Real one: pkg/controller/disruption/disruption.go.
package disruption
