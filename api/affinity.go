package api

import (
	corev1 "k8s.io/api/core/v1"
)

// Affinity is a pod's scheduling constraints (k8s.io/api/core/v1's
// Affinity). kubesim models node affinity; pod (anti-)affinity is read
// past in protobuf and not served.
type Affinity = corev1.Affinity

// NodeAffinity is required and preferred node selection.
type NodeAffinity = corev1.NodeAffinity

// PreferredSchedulingTerm is a weighted node selector term.
type PreferredSchedulingTerm = corev1.PreferredSchedulingTerm
