package kubelet

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/network/ingress"
	"github.com/kubesim/kubesim/network/policy"
)

// The pod network's NetworkPolicy enforcement: what a CNI plugin with
// policy support (kind's kindnetd, Calico, Cilium) does on the node. Each
// connection a container opens (and each DNS query it sends) is judged by
// network/policy against the NetworkPolicies of both ends' namespaces, as
// the plugin's agent reads them with its own identity
// (Config.NetworkPolicyClient); a dropped connection is never answered.
//
// Policies see pods, not Services: a connection to a Service is judged
// once kube-proxy has chosen the endpoint, as plugins placed after it
// do, so a policy names the pods behind a Service, never its cluster IP.
//
// DNS is judged too, although kubesim answers it without a server: a
// real pod's queries go to CoreDNS's pods (kube-system, label
// k8s-app=kube-dns) on UDP port 53, so a pod isolated for egress resolves
// names only when a rule lets that out — the classic default-deny-egress
// mistake, which breaks nslookup, and its fix, a rule allowing UDP (and
// TCP) 53 to kube-dns. kubesim's CoreDNS and ingress-nginx controller
// are such pods that exist only here (corednsPod, ingressControllerPod):
// they have no address, so an ipBlock never selects them.

// networkPolicyClient is the client of the policy agent.
func (k *Kubelet) networkPolicyClient() *client.Client {
	if k.cfg.NetworkPolicyClient != nil {
		return k.cfg.NetworkPolicyClient
	}
	return k.c
}

// corednsPod is the cluster DNS server as a NetworkPolicy sees it: one of
// the pods behind the kube-dns Service of a kubeadm or kind cluster.
func corednsPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "coredns", Labels: map[string]string{"k8s-app": "kube-dns"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "coredns", Ports: []corev1.ContainerPort{
			{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP},
			{Name: "dns-tcp", ContainerPort: 53, Protocol: corev1.ProtocolTCP},
			{Name: "metrics", ContainerPort: 9153, Protocol: corev1.ProtocolTCP},
		}}}},
	}
}

// ingressControllerPod is the ingress-nginx controller as a
// NetworkPolicy sees it: the pod of kind's install, which opens the
// connections to the backends.
func ingressControllerPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ingress.Namespace, Name: ingress.ServiceName, Labels: ingress.Labels()},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "controller", Ports: []corev1.ContainerPort{
			{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP},
			{Name: "https", ContainerPort: 443, Protocol: corev1.ProtocolTCP},
		}}}},
	}
}

// self is the container's own pod as policies see it.
func (n clusterNetwork) self(ctx context.Context) policy.Peer { return n.podPeer(ctx, n.pod) }

// podPeer is pod as policies see it; a hostNetwork pod is its node, which
// no policy selects.
func (n clusterNetwork) podPeer(ctx context.Context, pod *corev1.Pod) policy.Peer {
	if pod.Spec.HostNetwork {
		return policy.Peer{IP: pod.Status.PodIP}
	}
	return policy.Peer{Pod: pod, NamespaceLabels: n.namespaceLabels(ctx, pod.Namespace), IP: pod.Status.PodIP}
}

// peerAt is the pod with address ip, or the bare address when no running
// pod has it.
func (n clusterNetwork) peerAt(ctx context.Context, ip string) policy.Peer {
	list, err := n.k.networkPolicyClient().Pods().List(ctx, "", client.ListOptions{FieldSelector: "status.podIP=" + ip})
	if err == nil {
		for _, p := range list.Items {
			if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				return n.podPeer(ctx, p)
			}
		}
	}
	return policy.Peer{IP: ip}
}

// namespaceLabels are the labels a namespaceSelector matches; the API
// server gives every namespace kubernetes.io/metadata.name.
func (n clusterNetwork) namespaceLabels(ctx context.Context, ns string) map[string]string {
	got, err := n.k.networkPolicyClient().Namespaces().Get(ctx, "", ns)
	if err != nil {
		return map[string]string{"kubernetes.io/metadata.name": ns}
	}
	return got.Labels
}

// allowed reports whether the policies let from open a connection to
// port (a number) of to; a refusal is logged with its reason.
func (n clusterNetwork) allowed(ctx context.Context, from, to policy.Peer, proto corev1.Protocol, port string) bool {
	p, _ := strconv.Atoi(port)
	var namespaces []string
	for _, end := range []policy.Peer{from, to} {
		if end.Pod != nil && (len(namespaces) == 0 || namespaces[0] != end.Pod.Namespace) {
			namespaces = append(namespaces, end.Pod.Namespace)
		}
	}
	var policies []*networkingv1.NetworkPolicy
	for _, ns := range namespaces {
		list, err := n.k.networkPolicyClient().NetworkPolicies().List(ctx, ns, client.ListOptions{})
		if err != nil {
			// The agent keeps enforcing what it knew; kubesim's knows
			// nothing, and lets the connection through.
			n.k.logger.Warn("listing NetworkPolicies", "namespace", ns, "err", err)
			continue
		}
		policies = append(policies, list.Items...)
	}
	v := policy.Evaluate(policy.Connection{From: from, To: to, Protocol: proto, Port: int32(p)}, policies)
	if !v.Allowed {
		n.k.logger.Info("NetworkPolicy dropped a connection", "reason", v.Reason)
	}
	return v.Allowed
}

// dnsReachable reports whether the pod's DNS queries reach the cluster
// DNS: a pod whose resolv.conf names it (dnsPolicy ClusterFirst) sends
// them to CoreDNS on UDP port 53.
func (n clusterNetwork) dnsReachable(ctx context.Context) bool {
	if p := n.pod.Spec.DNSPolicy; p != "" && p != corev1.DNSClusterFirst && p != corev1.DNSClusterFirstWithHostNet {
		return true
	}
	dns := policy.Peer{Pod: corednsPod(), NamespaceLabels: n.namespaceLabels(ctx, "kube-system")}
	return n.allowed(ctx, n.self(ctx), dns, corev1.ProtocolUDP, "53")
}
