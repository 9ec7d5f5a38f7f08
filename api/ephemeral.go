package api

import (
	corev1 "k8s.io/api/core/v1"
)

// EphemeralContainer is a container added to a running pod for a user's
// own work, debugging above all (kubectl debug): it has no ports, probes
// or resources, is never restarted, and once added can be neither changed
// nor removed. It is added through the pod's ephemeralcontainers
// subresource, never on create.
type EphemeralContainer = corev1.EphemeralContainer

// EphemeralContainerCommon is Container field for field, so that one
// converts to the other (Container(ec.EphemeralContainerCommon)), as in
// Kubernetes; the fields validation forbids here are documented on
// ValidateEphemeralContainers in apiserver/kinds.
type EphemeralContainerCommon = corev1.EphemeralContainerCommon

// EphemeralAsContainer is the ephemeral container as a Container, which is
// how the kubelet runs it (the two share their fields, as in Kubernetes).
func EphemeralAsContainer(e *EphemeralContainer) Container {
	return Container(e.EphemeralContainerCommon)
}
