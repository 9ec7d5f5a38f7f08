// Package daemonset is the DaemonSet controller: one pod of each
// DaemonSet on every node that suits it, following nodes as they join,
// leave, change their labels or gain taints, and replacing old pods by
// new ones when the template changes.
//
// A node suits a set when the template's nodeName, nodeSelector and
// required node affinity match it and it has no NoSchedule or NoExecute
// taint the pod does not tolerate; the controller adds the daemon
// tolerations first (not-ready and unreachable NoExecute, so a daemon
// stays on a node that stops answering; disk-, memory- and pid-pressure
// and unschedulable NoSchedule, so it goes onto nodes under pressure and
// cordoned ones; network-unavailable for hostNetwork pods). A pod already
// there stays unless an untolerated NoExecute taint or a label change
// rules the node out. The controller does not bind pods itself: it
// creates each one with a required node affinity on metadata.name (a
// matchFields term) and the scheduler places it there, checking the
// node's room as for any pod.
//
// Updates: RollingUpdate deletes old pods while fewer than maxUnavailable
// nodes lack an available pod (unavailable old pods go at once), or with
// maxSurge starts the new pod beside the old one and deletes the old one
// once the new one is available; OnDelete waits for the user to delete
// pods. The history is one ControllerRevision per template (history.go,
// on the controller kit's history shared with the StatefulSet
// controller), named "<set>-<hash>" where hash is the template's and is
// also the pods' controller-revision-hash label; `kubectl rollout
// history|undo daemonset` read and apply those revisions.
//
// It simulates kubernetes/pkg/controller/daemon: daemon_controller.go
// (syncDaemonSet, manage, podsShouldBeOnNode, NodeShouldRunDaemonPod,
// updateDaemonSetStatus), update.go (rollingUpdate, constructHistory,
// cleanupHistory) and util/daemonset_util.go (the tolerations and the node
// affinity). Plan.go's Manage, RollingUpdate and ComputeStatus are its
// decisions as pure functions. Manage runs first and the rolling update
// only when Manage had nothing to do, which is what the real controller's
// expectations amount to; the expectations themselves (the controller
// kit's, shared with the ReplicaSet controller) hold a set back until its
// own creates and deletes are in the pod cache.
//
// Left out: the failed-pod back-off (a failed pod is deleted at once and
// recreated on the next sync), the deprecated
// pod-template-generation label and templateGeneration annotation,
// relabelling pods of duplicate revisions, and the pod garbage collector
// that removes pods of deleted nodes (kubesim has none: such pods stay).
package daemonset
