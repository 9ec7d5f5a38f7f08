// Package podgc is kube-controller-manager's pod garbage collector
// ("podgc", pkg/controller/podgc): it force-deletes the pods nobody else
// will finish.
//
//   - An orphaned pod — bound to a Node that no longer exists — is
//     deleted once the node has been missing for the quarantine time (40
//     seconds, as the real one waits, checking with the API server that
//     the node did not merely leave its cache): first its status gets the
//     DisruptionTarget condition (reason DeletionByPodGC, "PodGC: node no
//     longer exists") and phase Failed, then the pod is deleted with grace
//     period 0. So a StatefulSet's pod on a node an administrator deleted
//     is made again, and a claim's volume whose node is gone shows why it
//     cannot follow (the scheduler's "volume node affinity conflict").
//   - A terminating pod on a node that is not ready and carries the
//     node.kubernetes.io/out-of-service taint (an administrator's word
//     that the node is shut down for good: the non-graceful node shutdown)
//     is marked Failed and deleted with grace period 0, instead of waiting
//     for a kubelet that will not come back.
//   - A terminating pod that was never scheduled is deleted with grace
//     period 0: no kubelet will finish it.
//
// Each pod is its own key, looked at when it or its node changes, and
// again when its node's quarantine ends, on the injected clock.
//
// Left out: the collection of terminated pods past
// --terminated-pod-gc-threshold (12500), and the real one's 20-second
// sweep (the informers' events stand for it).
package podgc
