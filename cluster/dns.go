package cluster

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/kubelet"
)

// dnsObjects are the cluster DNS add-on as kubeadm installs it: the
// kube-dns Service in kube-system, in front of CoreDNS. kubesim runs no
// CoreDNS pods (the kubelets answer names themselves, kubelet/clusternet.go),
// so the Service has no selector and no endpoints, as ingress-nginx's;
// it is there for what looks at it (kubectl get svc -n kube-system, the
// DNS debugging task) and so that kube-dns.kube-system resolves.
func dnsObjects() []api.Object {
	port := func(name string, p int32, proto corev1.Protocol) corev1.ServicePort {
		return corev1.ServicePort{Name: name, Port: p, Protocol: proto, TargetPort: intstr.FromInt32(p)}
	}
	return []api.Object{
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kube-dns", Namespace: metav1.NamespaceSystem,
			Labels:      map[string]string{"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true", "kubernetes.io/name": "CoreDNS"},
			Annotations: map[string]string{"prometheus.io/port": "9153", "prometheus.io/scrape": "true"}},
			Spec: corev1.ServiceSpec{ClusterIP: kubelet.ClusterDNS, Ports: []corev1.ServicePort{
				port("dns", 53, corev1.ProtocolUDP), port("dns-tcp", 53, corev1.ProtocolTCP), port("metrics", 9153, corev1.ProtocolTCP),
			}}},
	}
}
