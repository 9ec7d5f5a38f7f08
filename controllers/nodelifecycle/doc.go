// Package nodelifecycle is kubesim's node lifecycle controller: it watches
// nodes and their heartbeat Leases, and a node whose lease has not been
// renewed for the grace period (nodeMonitorGracePeriod, 40s) gets its
// conditions set to Unknown ("Kubelet stopped posting node status."), the
// node.kubernetes.io/unreachable taints (NoSchedule and NoExecute; a node
// whose kubelet posts Ready=False gets node.kubernetes.io/not-ready
// instead) and a NodeNotReady event; its pods are marked not ready. When
// the kubelet posts Ready again, the taints go.
//
// With it runs the taint eviction controller (its events are signed
// taint-eviction-controller): a pod on a node with a NoExecute taint it
// does not tolerate is deleted at once; one that tolerates it for
// tolerationSeconds is deleted when they have run out, counted from the
// taint's timeAdded; one that tolerates it without a limit stays. There is
// no timeout of its own: most pods tolerate not-ready and unreachable for
// 300 seconds because the DefaultTolerationSeconds admission plugin gave
// them that toleration. Before the delete it records "Marking for
// deletion Pod ns/name" (reason TaintManagerEviction) and sets the pod's
// DisruptionTarget condition (reason DeletionByTaintManager); a pod whose
// eviction it had timed and that stays after all (the node came back) gets
// "Cancelling deletion of Pod ns/name". A user's NoExecute taint (kubectl
// taint ... :NoExecute) evicts the same way.
//
// It simulates kubernetes/pkg/controller/nodelifecycle (monitorNodeHealth,
// doNoExecuteTaintingPass) together with the taint eviction controller
// (kubernetes/pkg/controller/tainteviction), one reconcile per node timed
// with RequeueAfter on the injected clock instead of a 5-second poll and a
// timed work queue per pod.
//
// Left out: zone states and the eviction rate limits (a whole-zone outage
// evicts just as fast), the startup grace period for nodes that never
// posted status, and the per-pod start time of the real taint eviction
// controller (here a taint's tolerationSeconds count from its timeAdded,
// or, for a taint without one, from when this controller first saw it).
// As in Kubernetes, an evicted pod on a stopped node stays Terminating
// until its kubelet comes back and finishes it, or until its Node is
// deleted and the pod garbage collector (package podgc) removes it.
package nodelifecycle
