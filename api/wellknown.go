package api

// Well-known labels, annotations and taint keys the controllers, the
// scheduler and kubectl use.
const (
	// LabelHostname is set on every node to its name.
	LabelHostname = "kubernetes.io/hostname"
	// LabelOSStable is the node's operating system.
	LabelOSStable = "kubernetes.io/os"
	// LabelArchStable is the node's CPU architecture.
	LabelArchStable = "kubernetes.io/arch"
	// LabelMetadataName is set on every namespace to its name.
	LabelMetadataName = "kubernetes.io/metadata.name"

	// DefaultDeploymentUniqueLabelKey is the label the deployment
	// controller adds to a ReplicaSet's selector and pods so ReplicaSets of
	// one deployment never share pods.
	DefaultDeploymentUniqueLabelKey = "pod-template-hash"
	// RevisionAnnotation holds the rollout revision of a deployment and its
	// ReplicaSets.
	RevisionAnnotation = "deployment.kubernetes.io/revision"
	// RevisionHistoryAnnotation lists revisions a ReplicaSet had before.
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	// DesiredReplicasAnnotation is the deployment's replicas, on its
	// ReplicaSets.
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	// MaxReplicasAnnotation is replicas+maxSurge, on a deployment's
	// ReplicaSets.
	MaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas"

	// ControllerRevisionHashLabelKey labels StatefulSet pods with their
	// revision.
	ControllerRevisionHashLabelKey = "controller-revision-hash"
	// StatefulSetPodNameLabel labels StatefulSet pods with their name.
	StatefulSetPodNameLabel = "statefulset.kubernetes.io/pod-name"
	// PodIndexLabel labels StatefulSet pods with their ordinal.
	PodIndexLabel = "apps.kubernetes.io/pod-index"

	// LastAppliedConfigAnnotation holds what kubectl apply last sent.
	LastAppliedConfigAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

	// TaintNodeNotReady is added while the node's Ready is False.
	TaintNodeNotReady = "node.kubernetes.io/not-ready"
	// TaintNodeUnreachable is added while the node's Ready is Unknown.
	TaintNodeUnreachable = "node.kubernetes.io/unreachable"
	// TaintNodeUnschedulable is added to cordoned nodes.
	TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"

	// MirrorPodAnnotationKey marks static pods' mirrors.
	MirrorPodAnnotationKey = "kubernetes.io/config.mirror"
)
