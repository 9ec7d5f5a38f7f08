// Package kubelet is kubesim's fake kubelet: one per node, an API client
// like every other loop. It registers its Node, heartbeats through a Lease
// in kube-node-lease and the node's Ready condition, watches the pods bound
// to its node (a field selector on spec.nodeName) and drives each through
// the stages a real kubelet reports — Pending, ContainerCreating, Running,
// Ready — with configurable delays on the injected clock. It can simulate
// container behaviour (crash after N seconds into CrashLoopBackOff with
// Kubernetes' back-off; exit after N seconds, ending the pod as Succeeded
// or Failed, or restarting it, as its restartPolicy says), restarts a
// container whose image the pod's spec changes (kubectl set image on a pod)
// from the new image, finishes graceful
// deletions (stops the containers, then deletes the pod with grace 0), and
// can be stopped and started to simulate a node failure.
//
// It simulates the kubelet (kubernetes/pkg/kubelet: kubelet_node_status.go
// for registration and node status, nodelease for the heartbeat, the pod
// workers and status manager for pod status, kuberuntime for container
// restarts and back-off) in the way kwok (sigs.k8s.io/kwok) does: stages
// that rewrite the status, without a container runtime.
//
// Left out: there are no containers, images, volumes, probes, init
// containers, cgroups, resource accounting, eviction on pressure, static
// pods or the kubelet's HTTP API (logs, exec, port-forward). Every
// container of a pod starts, becomes ready, exits and restarts together;
// readiness is a fixed delay after start, not a probe. The crash-loop
// back-off never resets after a long run. Read the real one in
// kubernetes/pkg/kubelet and, for the stage idea, kwok's pkg/kwok/controllers.
package kubelet
