package api

import (
	corev1 "k8s.io/api/core/v1"
)

// EphemeralAsContainer is the ephemeral container as a Container, which is
// how the kubelet runs it (the two share their fields, as in Kubernetes).
func EphemeralAsContainer(e *corev1.EphemeralContainer) corev1.Container {
	return corev1.Container(e.EphemeralContainerCommon)
}
