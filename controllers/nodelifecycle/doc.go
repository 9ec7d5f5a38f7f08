// Package nodelifecycle is kubesim's node lifecycle controller: it watches
// nodes and their heartbeat Leases, and a node whose lease has not been
// renewed for the grace period (nodeMonitorGracePeriod, 40s) gets its
// conditions set to Unknown ("Kubelet stopped posting node status."), the
// node.kubernetes.io/unreachable taints (NoSchedule and NoExecute) and a
// NodeNotReady event; its pods are marked not ready. Pods that do not
// tolerate a NoExecute taint are then evicted — deleted, so that their
// ReplicaSets recreate them on healthy nodes — once their toleration runs
// out: a pod without a toleration for unreachable or not-ready gets the
// podEvictionTimeout (300s), the tolerationSeconds the
// DefaultTolerationSeconds admission plugin would have given it. When the
// kubelet posts Ready again, the taints go.
//
// It simulates kubernetes/pkg/controller/nodelifecycle (monitorNodeHealth,
// doNoExecuteTaintingPass) together with the taint eviction controller
// (kubernetes/pkg/controller/tainteviction), one reconcile per node timed
// with RequeueAfter on the injected clock instead of a 5-second poll.
//
// Left out: zone states and the eviction rate limits (a whole-zone outage
// evicts just as fast), the startup grace period for nodes that never
// posted status, the DisruptionTarget pod condition, DaemonSet awareness,
// and the pod garbage collector that force-deletes pods stuck Terminating
// on a dead node: as in Kubernetes, an evicted pod on a stopped node stays
// Terminating until its kubelet comes back and finishes it.
package nodelifecycle
