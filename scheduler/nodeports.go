package scheduler

import corev1 "k8s.io/api/core/v1"

// ErrReasonNodePorts is NodePorts' reason (plugins/nodeports).
const ErrReasonNodePorts = "node(s) didn't have free ports for the requested pod ports"

// NodePorts rejects a node where a pod already uses a host port the pod
// asks for: the same port and protocol on the same host IP, an empty or
// 0.0.0.0 host IP meaning every address (fitsPorts of the NodePorts
// plugin). Ports without a hostPort take nothing from the node.
func NodePorts(pod *PodInfo, node *NodeInfo) []string {
	type hostPort struct {
		ip       string
		protocol corev1.Protocol
		port     int32
	}
	ports := func(p *corev1.Pod) []hostPort {
		var out []hostPort
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.HostPort <= 0 {
					continue
				}
				hp := hostPort{ip: cp.HostIP, protocol: cp.Protocol, port: cp.HostPort}
				if hp.ip == "" {
					hp.ip = "0.0.0.0"
				}
				if hp.protocol == "" {
					hp.protocol = corev1.ProtocolTCP
				}
				out = append(out, hp)
			}
		}
		return out
	}
	wanted := ports(pod.Pod)
	if len(wanted) == 0 {
		return nil
	}
	for _, other := range node.Pods {
		for _, used := range ports(other.Pod) {
			for _, w := range wanted {
				if w.port == used.port && w.protocol == used.protocol &&
					(w.ip == used.ip || w.ip == "0.0.0.0" || used.ip == "0.0.0.0") {
					return []string{ErrReasonNodePorts}
				}
			}
		}
	}
	return nil
}
