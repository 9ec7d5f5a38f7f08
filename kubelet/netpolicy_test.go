package kubelet

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/kubelet/shell"
	"github.com/kubesim/kubesim/network/ingress"
)

// netFixture is a node running a client pod in default and an nginx pod
// (app=web) in prod, behind Service web; the Endpoints are written by
// hand (no endpoints controller runs here).
type netFixture struct {
	*fixture
	client, web *corev1.Pod
	webSvcIP    string
}

func newNetFixture(t *testing.T) *netFixture {
	f := &netFixture{fixture: newFixture(t, Config{})}
	for _, ns := range []string{"prod", ingress.Namespace} {
		_, err := f.env.Client.Namespaces().Create(f.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		require.NoError(t, err)
	}
	f.createPod("client", func(p *corev1.Pod) {
		p.Spec.Containers = []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"sleep", "3600"}}}
	})
	f.createPodIn("prod", "web", map[string]string{"app": "web"})
	// Ready, not only Running: the phase says the containers were
	// started, readiness is what Kubernetes promises before a pod is sent
	// traffic, and the Endpoints below list web as a ready address, as the
	// endpoints controller would only once web is Ready.
	for !isReady(f.pod("client")) || !isReady(f.podIn("prod", "web")) {
		f.next()
	}
	f.client, f.web = f.pod("client"), f.podIn("prod", "web")
	f.requireHolds(f.client)
	f.requireHolds(f.web)
	svc, err := f.env.Client.Services().Create(f.ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "prod"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(80)}}}})
	require.NoError(t, err)
	f.webSvcIP = svc.Spec.ClusterIP
	_, err = f.env.Client.Endpoints().Create(f.ctx, &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "prod"},
		Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: f.web.Status.PodIP}}, Ports: []corev1.EndpointPort{{Name: "http", Port: 80}}}}})
	require.NoError(t, err)
	return f
}

func isReady(pod *corev1.Pod) bool {
	c := podCondition(pod, corev1.PodReady)
	return c != nil && c.Status == corev1.ConditionTrue
}

// requireHolds checks that the kubelet holds what it published of pod,
// which is what it answers a connection from (simulatedHTTP): the pod in
// its informer, a started sandbox with the pod's address, every container
// running. A test's connection that fails after this passed failed on the
// way (kube-proxy's part, the policies), not at the pod.
func (f *netFixture) requireHolds(pod *corev1.Pod) {
	f.t.Helper()
	key := pod.Namespace + "/" + pod.Name
	f.k.mu.Lock()
	inf := f.k.loops.pods
	f.k.mu.Unlock()
	_, cached := inf.Get(pod.Namespace, pod.Name)
	require.True(f.t, cached, "the kubelet's informer lacks %s", key)
	f.k.stateMu.Lock()
	rt := f.k.runtimes[key]
	var ip string
	var st stage
	var running []string
	if rt != nil {
		ip, st = rt.ip, rt.stage
		for _, c := range rt.containers {
			if c.state == containerRunning {
				running = append(running, c.name)
			}
		}
	}
	f.k.stateMu.Unlock()
	require.NotNil(f.t, rt, "the kubelet has no runtime for %s", key)
	require.Equal(f.t, pod.Status.PodIP, ip, "the address of %s", key)
	require.Equal(f.t, stageStarted, st, "the stage of %s", key)
	for _, c := range pod.Spec.Containers {
		require.Contains(f.t, running, c.Name, "the containers of %s running", key)
	}
}

func (f *netFixture) createPodIn(ns, name string, labels map[string]string) {
	f.t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80}}}}}}
	_, err := f.env.Client.Pods().Create(f.ctx, pod)
	require.NoError(f.t, err)
	require.NoError(f.t, f.env.Client.Pods().CreateSubresource(f.ctx, ns, name, "binding",
		&corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Target: corev1.ObjectReference{Kind: "Node", Name: f.k.NodeName()}}))
}

func (f *netFixture) podIn(ns, name string) *corev1.Pod {
	f.t.Helper()
	pod, err := f.env.Client.Pods().Get(f.ctx, ns, name)
	require.NoError(f.t, err)
	return pod
}

// net is the client pod's network.
func (f *netFixture) net() clusterNetwork { return clusterNetwork{k: f.k, pod: f.client} }

func (f *netFixture) policy(np *networkingv1.NetworkPolicy) {
	f.t.Helper()
	_, err := f.env.Client.NetworkPolicies().Create(f.ctx, np)
	require.NoError(f.t, err)
}

// get is `wget` of path from the client pod, without the shell: the
// answer's code, or the error.
func (f *netFixture) get(ip, port, path, host string) (int, error) {
	resp, err := f.net().HTTPGet(f.ctx, shell.HTTPRequest{IP: ip, Port: port, Path: path, Host: host})
	return resp.Code, err
}

func udp() *corev1.Protocol { p := corev1.ProtocolUDP; return &p }

// The client reaches web (by pod IP and through the Service) until a
// policy isolates web; a rule for the client's namespace lets it back.
// Egress isolation of the client stops DNS too, until DNS is let out.
func TestNetworkPoliciesJudgeTheClusterNetwork(t *testing.T) {
	f := newNetFixture(t)
	ctx := context.Background()
	webIP := f.web.Status.PodIP

	code, err := f.get(webIP, "80", "/", webIP)
	require.NoError(t, err)
	assert.Equal(t, 200, code, "no policy: open")
	_, addrs, err := f.net().LookupHost(ctx, "web.prod")
	require.NoError(t, err)
	assert.Equal(t, []string{f.webSvcIP}, addrs)

	f.policy(&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "default-deny", Namespace: "prod"}})
	_, err = f.get(webIP, "80", "/", "")
	assert.ErrorIs(t, err, shell.ErrTimedOut, "dropped, not refused")
	_, err = f.get(f.webSvcIP, "80", "/", "")
	assert.ErrorIs(t, err, shell.ErrTimedOut, "through the Service: judged at the endpoint")

	f.policy(&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "from-default", Namespace: "prod"},
		Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "default"}}}},
				Ports: []networkingv1.NetworkPolicyPort{{Port: ptrTo(intstr.FromString("http"))}}}}}})
	code, err = f.get(f.webSvcIP, "80", "/", "")
	require.NoError(t, err)
	assert.Equal(t, 200, code, "let in by namespace, on the named port")

	f.policy(&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "default-deny-egress", Namespace: "default"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}}})
	_, _, err = f.net().LookupHost(ctx, "web.prod")
	assert.ErrorIs(t, err, shell.ErrTimedOut, "DNS is egress too")
	_, addrs, err = f.net().LookupHost(ctx, webIP)
	require.NoError(t, err, "an address needs no DNS")
	assert.Equal(t, []string{webIP}, addrs)
	_, err = f.get(webIP, "80", "/", "")
	assert.ErrorIs(t, err, shell.ErrTimedOut)

	f.policy(&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "allow-dns", Namespace: "default"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
			Egress: []networkingv1.NetworkPolicyEgressRule{{
				To: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}},
					PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "kube-dns"}}}},
				Ports: []networkingv1.NetworkPolicyPort{{Protocol: udp(), Port: ptrTo(intstr.FromInt32(53))}}}}}})
	_, addrs, err = f.net().LookupHost(ctx, "web.prod")
	require.NoError(t, err, "DNS let out")
	assert.Equal(t, []string{f.webSvcIP}, addrs)
	_, _, err = f.net().LookupHost(ctx, "nope")
	assert.ErrorIs(t, err, shell.ErrNoSuchHost)
	_, err = f.get(f.webSvcIP, "80", "/", "")
	assert.ErrorIs(t, err, shell.ErrTimedOut, "the DNS rule lets nothing else out")
}

func ptrTo[T any](v T) *T { return &v }

// A container's own script meets the same network: a dropped wget times
// out on the simulated clock (-T 2), and the script goes on.
func TestAContainerScriptTimesOutOnADroppedConnection(t *testing.T) {
	f := newNetFixture(t)
	f.policy(&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "default-deny", Namespace: "prod"}})
	f.createPod("probe", func(p *corev1.Pod) {
		p.Spec.Containers = []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"sh", "-c",
			"date +%s; wget -qO- -T 2 http://web.prod; echo exit $?; date +%s; sleep 3600"}}}
	})
	for f.pod("probe").Status.Phase != corev1.PodRunning {
		f.next()
	}
	f.until(f.clk.Now().Add(10 * time.Second))
	var logs strings.Builder
	require.NoError(t, f.k.ContainerLogs(f.ctx, "default", "probe", "c", LogOptions{}, &logs))
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	require.Len(t, lines, 4, logs.String())
	assert.Equal(t, "wget: download timed out", lines[1])
	assert.Equal(t, "exit 1", lines[2])
	start, end := lines[0], lines[3]
	assert.NotEqual(t, start, end)
	assert.Equal(t, atoi(t, start)+2, atoi(t, end), "two seconds passed on the container's clock")
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	for _, c := range s {
		require.True(t, c >= '0' && c <= '9', s)
		n = n*10 + int(c-'0')
	}
	return n
}

// ingress-nginx's proxy: a request to the controller's address is routed
// by host and path to the backend's endpoint; the controller's own
// connection to the backend is judged by the backend's policies.
func TestIngressControllerRoutes(t *testing.T) {
	f := newNetFixture(t)
	ctx := context.Background()
	ctrl, err := f.env.Client.Services().Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: ingress.ServiceName, Namespace: ingress.Namespace},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}})
	require.NoError(t, err)
	ip := ctrl.Spec.ClusterIP
	_, err = f.env.Client.IngressClasses().Create(ctx, &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: ingress.ClassName},
		Spec: networkingv1.IngressClassSpec{Controller: ingress.ControllerName}})
	require.NoError(t, err)
	prefix := networkingv1.PathTypePrefix
	ing, err := f.env.Client.Ingresses().Create(ctx, &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "prod"},
		Spec: networkingv1.IngressSpec{IngressClassName: ptrTo(ingress.ClassName), Rules: []networkingv1.IngressRule{{Host: "web.example.com",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
				{Path: "/", PathType: &prefix, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web",
					Port: networkingv1.ServiceBackendPort{Number: 80}}}},
				{Path: "/empty", PathType: &prefix, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "nothing",
					Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}}})
	require.NoError(t, err)

	resp, err := f.net().HTTPGet(ctx, shell.HTTPRequest{IP: ip, Port: "80", Path: "/", Host: "web.example.com"})
	require.NoError(t, err)
	assert.Equal(t, 200, resp.Code)
	assert.Contains(t, string(resp.Body), "Welcome to nginx!")
	resp, err = f.net().HTTPGet(ctx, shell.HTTPRequest{IP: ip, Port: "80", Path: "/", Host: "other.example.com"})
	require.NoError(t, err)
	assert.Equal(t, 404, resp.Code, "no rule for the host: the controller's 404")
	assert.Equal(t, string(ingress.ErrorPage(404)), string(resp.Body))
	resp, err = f.net().HTTPGet(ctx, shell.HTTPRequest{IP: ip, Port: "80", Path: "/empty", Host: "web.example.com"})
	require.NoError(t, err)
	assert.Equal(t, 503, resp.Code, "a backend without endpoints")
	assert.Equal(t, "Service Temporarily Unavailable", resp.Reason)

	// The host resolves once the Ingress has an address (the controller
	// writes it).
	_, _, err = f.net().LookupHost(ctx, "web.example.com")
	assert.ErrorIs(t, err, shell.ErrNoSuchHost)
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: ip}}
	_, err = f.env.Client.Ingresses().UpdateStatus(ctx, ing)
	require.NoError(t, err)
	fqdn, addrs, err := f.net().LookupHost(ctx, "web.example.com")
	require.NoError(t, err)
	assert.Equal(t, "web.example.com", fqdn)
	assert.Equal(t, []string{ip}, addrs)

	// Only the ingress controller may reach web: straight is dropped,
	// through the controller passes.
	f.policy(&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "only-ingress", Namespace: "prod"},
		Spec: networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ingress.Namespace}}}}}}}})
	_, err = f.get(f.webSvcIP, "80", "/", "")
	assert.ErrorIs(t, err, shell.ErrTimedOut)
	resp, err = f.net().HTTPGet(ctx, shell.HTTPRequest{IP: ip, Port: "80", Path: "/", Host: "web.example.com"})
	require.NoError(t, err)
	assert.Equal(t, 200, resp.Code)

	// A policy that drops the controller too: nginx waits, then 504.
	err = f.env.Client.NetworkPolicies().Delete(ctx, "prod", "only-ingress", nil)
	require.NoError(t, err)
	f.policy(&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "deny", Namespace: "prod"}})
	resp, err = f.net().HTTPGet(ctx, shell.HTTPRequest{IP: ip, Port: "80", Path: "/", Host: "web.example.com"})
	require.NoError(t, err)
	assert.Equal(t, 504, resp.Code)
	assert.Equal(t, "Gateway Time-out", resp.Reason)
	assert.Equal(t, proxyConnectTimeout, resp.After)
}
