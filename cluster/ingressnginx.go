package cluster

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/controllers/ingressnginx"
	"github.com/kubesim/kubesim/network/ingress"
)

// The pod network's add-ons, installed at start as kind installs them:
// the ingress-nginx controller (kind's ingress guide applies its
// deploy.yaml) and the identity of kindnetd, kind's CNI plugin, whose
// NetworkPolicy agent the kubelets' network plays (kubelet/netpolicy.go).
// Each object is created unless one of its name is stored already (a
// cluster restarted on its store keeps what was changed).

// IngressNginxClusterIP is the address of the ingress-nginx controller's
// Service, asked for as kubeadm asks 10.96.0.10 for the cluster DNS: the
// same in every kubesim cluster, so that a course can name it, and out of
// the range the users' Services take their addresses from, which do not
// move because the add-on is there. kind's install lets the address be
// allocated.
const IngressNginxClusterIP = "10.96.0.80"

// KindnetServiceAccount is the service account kindnetd runs as in
// kube-system, and its ClusterRole's name.
const KindnetServiceAccount = "kindnet"

// ingressNginxObjects are the objects of the ingress-nginx install, in
// creation order.
func ingressNginxObjects() []api.Object {
	labels := func() map[string]string {
		return map[string]string{"app.kubernetes.io/name": "ingress-nginx", "app.kubernetes.io/instance": "ingress-nginx"}
	}
	read := []string{"get", "list", "watch"}
	return []api.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ingress.Namespace, Labels: labels()}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: ingress.ServiceAccountName, Namespace: ingress.Namespace, Labels: labels()}},
		// What the controller and its nginx read and write (the
		// manifest's ClusterRole ingress-nginx, less what kubesim's does
		// not use: ConfigMaps, Secrets, leases).
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ingress.ServiceAccountName, Labels: labels()}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"services", "endpoints", "pods", "namespaces", "nodes"}, Verbs: read},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: read},
			{APIGroups: []string{networkingv1.GroupName}, Resources: []string{"ingresses", "ingressclasses"}, Verbs: read},
			{APIGroups: []string{networkingv1.GroupName}, Resources: []string{"ingresses/status"}, Verbs: []string{"update"}},
			{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: ingress.ServiceAccountName, Labels: labels()},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ingress.ServiceAccountName},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ingress.ServiceAccountName, Namespace: ingress.Namespace}}},
		// No selector: kubesim runs no controller pod, the pod network
		// answers for it.
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: ingress.ServiceName, Namespace: ingress.Namespace, Labels: labels()},
			Spec: corev1.ServiceSpec{ClusterIP: IngressNginxClusterIP, Ports: []corev1.ServicePort{
				{Name: "http", Port: ingress.HTTPPort, Protocol: corev1.ProtocolTCP},
				{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP},
			}}},
		&networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: ingress.ClassName, Labels: labels()},
			Spec: networkingv1.IngressClassSpec{Controller: ingress.ControllerName}},
	}
}

// kindnetObjects are kindnetd's identity: its service account and the
// ClusterRole that lets its policy agent read what it judges by.
func kindnetObjects() []api.Object {
	return []api.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: KindnetServiceAccount, Namespace: "kube-system"}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: KindnetServiceAccount}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"nodes", "pods", "namespaces"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{networkingv1.GroupName}, Resources: []string{"networkpolicies"}, Verbs: []string{"get", "list", "watch"}},
		}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: KindnetServiceAccount},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: KindnetServiceAccount},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: KindnetServiceAccount, Namespace: "kube-system"}}},
	}
}

// installNetworkAddOns creates kindnetd's identity, the cluster DNS's
// Service (dns.go) and, with the ingress-nginx controller switched on,
// its install.
func (c *Cluster) installNetworkAddOns(ctx context.Context) error {
	// Installing add-ons is part of the cluster set-up: the privileged
	// loopback, as for the default StorageClass.
	cl, _ := c.client("kubesim-network-addons", apiserver.FixedIdentity(nil))
	objs := append(kindnetObjects(), dnsObjects()...)
	if c.isEnabled(ingressNginxSwitch) {
		objs = append(objs, ingressNginxObjects()...)
	}
	for _, obj := range objs {
		if err := createObject(ctx, cl, obj); err != nil {
			m := api.Meta(obj)
			return fmt.Errorf("installing %T %s/%s: %w", obj, m.Namespace, m.Name, err)
		}
	}
	return nil
}

// createObject creates one object of the add-ons with its typed client,
// unless one of its name exists (createUnlessExists).
func createObject(ctx context.Context, cl *client.Client, obj api.Object) error {
	switch o := obj.(type) {
	case *corev1.Namespace:
		return createUnlessExists(ctx, cl.Namespaces(), o)
	case *corev1.ServiceAccount:
		return createUnlessExists(ctx, cl.ServiceAccounts(), o)
	case *corev1.Service:
		return createUnlessExists(ctx, cl.Services(), o)
	case *rbacv1.ClusterRole:
		return createUnlessExists(ctx, cl.ClusterRoles(), o)
	case *rbacv1.ClusterRoleBinding:
		return createUnlessExists(ctx, cl.ClusterRoleBindings(), o)
	case *networkingv1.IngressClass:
		return createUnlessExists(ctx, cl.IngressClasses(), o)
	}
	return fmt.Errorf("no client for %T", obj)
}

// createUnlessExists creates obj unless one of its name exists: found
// first, or made meanwhile by another API server of the same store.
// (Asking first matters: a second Service asking for the same cluster IP
// is refused for the address before its name is looked at.)
func createUnlessExists[T api.Object](ctx context.Context, res *client.Resource[T], obj T) error {
	m := api.Meta(obj)
	exists := func() bool {
		_, err := res.Get(ctx, m.Namespace, m.Name)
		return err == nil
	}
	if exists() {
		return nil
	}
	if _, err := res.Create(ctx, obj); err != nil && !exists() {
		return err
	}
	return nil
}

// ingressNginxSwitch is the controller's --controllers name.
const ingressNginxSwitch = ingressnginx.ControllerName

// ingressNginxUser is the controller's identity.
func ingressNginxUser() *authn.UserInfo {
	return ServiceAccountUser(ingress.Namespace, ingress.ServiceAccountName)
}

// ingressNginxClient is the client the kubelets' network reads with for
// the controller's nginx.
func (c *Cluster) ingressNginxClient() *client.Client {
	cl, _ := c.client(ingressnginx.Component+"/nginx", apiserver.FixedIdentity(ingressNginxUser()))
	return cl
}

// kindnetClient is the client the kubelets' network reads with for the
// CNI plugin's NetworkPolicy agent.
func (c *Cluster) kindnetClient() *client.Client {
	cl, _ := c.client("kindnetd", apiserver.FixedIdentity(ServiceAccountUser("kube-system", KindnetServiceAccount)))
	return cl
}
