package kubelet

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/api"
)

// Ephemeral containers (kubectl debug) are added to a running pod through
// its ephemeralcontainers subresource. The kubelet starts each one as soon
// as it sees it in the spec (computePodActions' EphemeralContainersToStart),
// never restarts it, never counts it in the pod's readiness or phase, and
// reports it in status.ephemeralContainerStatuses. Left out: joining the
// target container's process namespace — the simulated container has no
// processes to see — and the Killing of an ephemeral container by the
// pod's deletion taking any time of its own.

// ephemeralSpecs are the pod's ephemeral containers as containers, by
// name, in the pod's order.
func ephemeralSpecs(pod *corev1.Pod) []corev1.Container {
	out := make([]corev1.Container, len(pod.Spec.EphemeralContainers))
	for i := range pod.Spec.EphemeralContainers {
		out[i] = api.EphemeralAsContainer(&pod.Spec.EphemeralContainers[i])
	}
	return out
}

// newEphemeral reports whether the pod's spec names an ephemeral container
// the runtime has not started yet, in a pod whose containers run.
func newEphemeral(rt *podRuntime, pod *corev1.Pod) bool {
	if rt.stage != stageStarted {
		return false
	}
	for _, ec := range pod.Spec.EphemeralContainers {
		if rt.find(ec.Name) < 0 {
			return true
		}
	}
	return false
}

// startEphemeral starts every ephemeral container of the spec the runtime
// does not have yet.
func startEphemeral(rt *podRuntime, st *starter, now time.Time) []podEvent {
	var events []podEvent
	for _, ec := range st.pod.Spec.EphemeralContainers {
		if rt.find(ec.Name) >= 0 {
			continue
		}
		rt.containers = append(rt.containers, containerRuntime{name: ec.Name, image: ec.Image, ephemeral: true})
		events = append(events, st.startContainer(&rt.containers[len(rt.containers)-1], now)...)
	}
	return events
}
