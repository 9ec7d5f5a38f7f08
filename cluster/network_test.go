package cluster

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/kubelet/shell"
	"github.com/kubesim/kubesim/network/ingress"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// netCluster is a step-mode cluster with RBAC, so that the pod network's
// readers (kindnetd, ingress-nginx) act as their own accounts.
func netCluster(t *testing.T) (*Cluster, *client.Client) {
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 3, NodeCount: 2, AuthorizationMode: "Node,RBAC"})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c, c.Client("test")
}

func stable(t *testing.T, c *Cluster) {
	t.Helper()
	_, err := c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
}

// deployServer runs replicas of a server image in ns behind a Service of
// the same name on port 80 (to the container's port).
func deployServer(t *testing.T, cl *client.Client, ns, name, image string, port int32, args ...string) {
	t.Helper()
	labels := map[string]string{"app": name}
	_, err := cl.Deployments().Create(bg, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: int32p(1), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: image, Args: args,
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: port}}}}}}}})
	require.NoError(t, err)
	_, err = cl.Services().Create(bg, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(port)}}}})
	require.NoError(t, err)
}

func busybox(t *testing.T, cl *client.Client, ns, name string, script string) {
	t.Helper()
	_, err := cl.Pods().Create(bg, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"sh", "-c", script}}}}})
	require.NoError(t, err)
}

// execIn runs a script in the pod's container as kubectl exec does,
// letting the step-mode clock run (a second at a time) while the command
// waits on it: a timeout passes without the test waiting for it.
func execIn(t *testing.T, c *Cluster, cl *client.Client, ns, pod, script string) (stdout, stderr string, code int) {
	t.Helper()
	p, err := cl.Pods().Get(bg, ns, pod)
	require.NoError(t, err)
	k, ok := c.Kubelet(p.Spec.NodeName)
	require.True(t, ok)
	env, err := k.ExecTarget(bg, ns, pod, "c")
	require.NoError(t, err)
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- k.Exec(context.Background(), env, []string{"sh", "-c", script}, shell.Stdio{Stdout: &out, Stderr: &errb})
	}()
	for range 10000 {
		select {
		case code = <-done:
			return out.String(), errb.String(), code
		default:
		}
		_, err := c.Advance(bg, time.Second, stepper.Limits{})
		require.NoError(t, err)
		time.Sleep(time.Millisecond) // let the command reach its wait
	}
	t.Fatalf("%q did not end", script)
	return "", "", 0
}

// The NetworkPolicy tutorial in two namespaces: web in prod answers the
// client in dev until a default-deny policy isolates it (wget times out
// as on a real CNI), answers again once a rule admits dev's namespace;
// a default-deny-egress in dev breaks DNS until DNS to kube-dns is let
// out.
func TestNetworkPoliciesEndToEnd(t *testing.T) {
	c, cl := netCluster(t)
	for _, ns := range []string{"prod", "dev"} {
		_, err := cl.Namespaces().Create(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		require.NoError(t, err)
	}
	stable(t, c) // each namespace gets its default service account
	deployServer(t, cl, "prod", "web", "nginx", 80)
	busybox(t, cl, "dev", "client", "sleep 3600")
	stable(t, c)

	out, _, code := execIn(t, c, cl, "dev", "client", "wget -qO- -T 1 http://web.prod")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "Welcome to nginx!")

	_, err := cl.NetworkPolicies().Create(bg, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "default-deny-ingress", Namespace: "prod"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}})
	require.NoError(t, err)
	_, errOut, code := execIn(t, c, cl, "dev", "client", "wget --spider -T 2 http://web.prod")
	assert.Equal(t, 1, code)
	assert.Regexp(t, `^Connecting to web.prod \(10\.96\.\d+\.\d+:80\)\nwget: download timed out\n$`, errOut)

	_, err = cl.NetworkPolicies().Create(bg, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "web-from-dev", Namespace: "prod"},
		Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "dev"}}}}}}}})
	require.NoError(t, err)
	_, errOut, code = execIn(t, c, cl, "dev", "client", "wget --spider -T 2 http://web.prod")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "remote file exists")

	// A container's own script meets the policy too, on its own clock.
	busybox(t, cl, "prod", "neighbour", "wget -qO- -T 3 http://web; echo exit $?; sleep 3600")
	stable(t, c)
	_, err = c.Advance(bg, 10*time.Second, stepper.Limits{}) // past the wget's timeout
	require.NoError(t, err)
	p, err := cl.Pods().Get(bg, "prod", "neighbour")
	require.NoError(t, err)
	k, _ := c.Kubelet(p.Spec.NodeName)
	var logs bytes.Buffer
	require.NoError(t, k.ContainerLogs(bg, "prod", "neighbour", "c", kubelet.LogOptions{}, &logs))
	assert.Equal(t, "wget: download timed out\nexit 1\n", logs.String(), "prod's own pods are not dev")

	_, err = cl.NetworkPolicies().Create(bg, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "default-deny-egress", Namespace: "dev"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}}})
	require.NoError(t, err)
	out, _, code = execIn(t, c, cl, "dev", "client", "nslookup web.prod")
	assert.Equal(t, 1, code)
	assert.Equal(t, ";; connection timed out; no servers could be reached\n", out)

	udp := corev1.ProtocolUDP
	tcp := corev1.ProtocolTCP
	dns := intstr.FromInt32(53)
	_, err = cl.NetworkPolicies().Create(bg, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "allow-dns", Namespace: "dev"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
			Egress: []networkingv1.NetworkPolicyEgressRule{{
				To: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}},
					PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "kube-dns"}}}},
				Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp, Port: &dns}, {Protocol: &tcp, Port: &dns}}}}}})
	require.NoError(t, err)
	out, _, code = execIn(t, c, cl, "dev", "client", "nslookup web.prod")
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "Name:\tweb.prod.svc.cluster.local\n")
	_, errOut, code = execIn(t, c, cl, "dev", "client", "wget -qO- -T 2 http://web.prod")
	assert.Equal(t, 1, code)
	assert.Equal(t, "wget: download timed out\n", errOut, "DNS is all the client may send")
}

// kind's ingress-nginx: the install is there at start, the controller
// publishes its address on the Ingresses it serves, and a container's
// wget of an Ingress's host is routed by host and path to the backends
// (http-echo, as kind's ingress guide uses).
func TestIngressNginxEndToEnd(t *testing.T) {
	c, cl := netCluster(t)
	class, err := cl.IngressClasses().Get(bg, "", ingress.ClassName)
	require.NoError(t, err)
	assert.Equal(t, ingress.ControllerName, class.Spec.Controller)
	svc, err := cl.Services().Get(bg, ingress.Namespace, ingress.ServiceName)
	require.NoError(t, err)
	assert.Equal(t, IngressNginxClusterIP, svc.Spec.ClusterIP)

	deployServer(t, cl, "default", "apple", "hashicorp/http-echo", 5678, "-text=apple")
	deployServer(t, cl, "default", "banana", "hashicorp/http-echo", 5678, "-text=banana")
	busybox(t, cl, "default", "client", "sleep 3600")
	prefix := networkingv1.PathTypePrefix
	backend := func(name string) networkingv1.IngressBackend {
		return networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: name, Port: networkingv1.ServiceBackendPort{Number: 80}}}
	}
	_, err = cl.Ingresses().Create(bg, &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "fruits", Namespace: "default"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "fruits.example.com",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
				{Path: "/apple", PathType: &prefix, Backend: backend("apple")},
				{Path: "/banana", PathType: &prefix, Backend: backend("banana")}}}}}}}})
	require.NoError(t, err)
	stable(t, c)

	ing, err := cl.Ingresses().Get(bg, "default", "fruits")
	require.NoError(t, err)
	assert.Nil(t, ing.Spec.IngressClassName, "nginx is not the default class")
	assert.Equal(t, []networkingv1.IngressLoadBalancerIngress{{IP: IngressNginxClusterIP}}, ing.Status.LoadBalancer.Ingress,
		"served without a class, as kind's install does")

	for path, want := range map[string]string{"/apple": "apple\n", "/banana/split": "banana\n"} {
		out, errOut, code := execIn(t, c, cl, "default", "client", "wget -qO- http://fruits.example.com"+path)
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, want, out, path)
	}
	_, errOut, code := execIn(t, c, cl, "default", "client", "wget -qO- http://fruits.example.com/cherry")
	assert.Equal(t, 1, code)
	assert.Equal(t, "wget: server returned error: HTTP/1.1 404 Not Found\n", errOut, "nginx's own 404")
	out, _, code := execIn(t, c, cl, "default", "client", "wget -qO- --header 'Host: fruits.example.com' http://"+IngressNginxClusterIP+"/banana")
	assert.Equal(t, 0, code)
	assert.Equal(t, "banana\n", out, "the Host header picks the rule")
	out, _, _ = execIn(t, c, cl, "default", "client", "nslookup fruits.example.com")
	assert.Contains(t, out, "Name:\tfruits.example.com\nAddress: "+IngressNginxClusterIP+"\n")

	// Made the default class, nginx is given to a new Ingress that names
	// none (the DefaultIngressClass admission plugin).
	class.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
	_, err = cl.IngressClasses().Update(bg, class)
	require.NoError(t, err)
	created, err := cl.Ingresses().Create(bg, &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "all-apples", Namespace: "default"},
		Spec: networkingv1.IngressSpec{DefaultBackend: &networkingv1.IngressBackend{Service: backend("apple").Service}}})
	require.NoError(t, err)
	require.NotNil(t, created.Spec.IngressClassName)
	assert.Equal(t, ingress.ClassName, *created.Spec.IngressClassName)
	stable(t, c)
	out, _, code = execIn(t, c, cl, "default", "client", "wget -qO- http://"+IngressNginxClusterIP+"/anything")
	assert.Equal(t, 0, code)
	assert.Equal(t, "apple\n", out, "an Ingress without rules is the catch-all's default backend")
	assert.False(t, strings.Contains(out, "banana"))
}

// A cluster restarted on its store keeps the add-ons as they were left
// (a user's change included) and starts: the Service that asks for its
// address is not asked for twice.
func TestNetworkAddOnsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	start := func() *Cluster {
		c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 1, DataDir: dir})
		require.NoError(t, err)
		return c
	}
	c := start()
	cl := c.Client("test")
	class, err := cl.IngressClasses().Get(bg, "", ingress.ClassName)
	require.NoError(t, err)
	class.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
	_, err = cl.IngressClasses().Update(bg, class)
	require.NoError(t, err)
	c.Close()

	c = start()
	defer c.Close()
	class, err = c.Client("test").IngressClasses().Get(bg, "", ingress.ClassName)
	require.NoError(t, err)
	assert.Equal(t, "true", class.Annotations[networkingv1.AnnotationIsDefaultIngressClass])
	svc, err := c.Client("test").Services().Get(bg, ingress.Namespace, ingress.ServiceName)
	require.NoError(t, err)
	assert.Equal(t, IngressNginxClusterIP, svc.Spec.ClusterIP)
}

// Switched off, the controller is not installed either.
func TestIngressNginxCanBeSwitchedOff(t *testing.T) {
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 1, Controllers: "*,-" + ingressNginxSwitch})
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Client("test").IngressClasses().Get(bg, "", ingress.ClassName)
	assert.True(t, api.IsNotFound(err), "%v", err)
}

// The Services every kind cluster has from its start: kubernetes in
// default (the API server's) and kube-dns in kube-system, at the address
// the pods' resolv.conf names. The DNS debugging task's first check,
// nslookup kubernetes.default, answers from them.
func TestClusterServicesAtStart(t *testing.T) {
	c, cl := netCluster(t)
	dns, err := cl.Services().Get(bg, "kube-system", "kube-dns")
	require.NoError(t, err)
	assert.Equal(t, kubelet.ClusterDNS, dns.Spec.ClusterIP)
	assert.Equal(t, map[string]string{"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true", "kubernetes.io/name": "CoreDNS"}, dns.Labels)
	var ports []string
	for _, p := range dns.Spec.Ports {
		ports = append(ports, p.Name+" "+strconv.Itoa(int(p.Port))+"/"+string(p.Protocol))
	}
	assert.Equal(t, []string{"dns 53/UDP", "dns-tcp 53/TCP", "metrics 9153/TCP"}, ports)

	busybox(t, cl, "default", "client", "sleep 3600")
	stable(t, c)
	out, _, code := execIn(t, c, cl, "default", "client", "nslookup kubernetes.default")
	require.Equal(t, 0, code, out)
	assert.Equal(t, "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1\n\n", out)
	out, _, code = execIn(t, c, cl, "default", "client", "nslookup kube-dns.kube-system")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "Name:\tkube-dns.kube-system.svc.cluster.local\nAddress: 10.96.0.10\n")
}

// The tutorials' `kubectl exec POD -- curl localhost`: localhost is the
// pod itself, and curl is there in nginx, not in busybox.
func TestCurlLocalhostInAPod(t *testing.T) {
	c, cl := netCluster(t)
	_, err := cl.Pods().Create(bg, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	busybox(t, cl, "default", "client", "sleep 3600")
	stable(t, c)

	out, _, code := execIn(t, c, cl, "default", "web", "curl -s http://localhost/")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "<h1>Welcome to nginx!</h1>")
	_, errOut, code := execIn(t, c, cl, "default", "web", "curl -sS localhost:8080")
	assert.Equal(t, 7, code)
	assert.Equal(t, "curl: (7) Failed to connect to localhost port 8080 after 0 ms: Couldn't connect to server\n", errOut)
	out, _, code = execIn(t, c, cl, "default", "web", "curl -s web.default.svc.cluster.local")
	assert.Equal(t, 6, code, "a pod is no Service: %s", out)

	_, errOut, code = execIn(t, c, cl, "default", "client", "curl -s localhost")
	assert.Equal(t, 127, code)
	assert.Equal(t, "sh: curl: not found\n", errOut)
	out, _, code = execIn(t, c, cl, "default", "client", "wget -qO- localhost")
	assert.Equal(t, 1, code, "nothing listens in the busybox pod: %s", out)
}

// ping reaches a running pod (the Indexed Job task's ping of its peers'
// hostnames) and a node, not a Service's cluster IP.
func TestPingPodsNotServices(t *testing.T) {
	c, cl := netCluster(t)
	deployServer(t, cl, "default", "web", "nginx", 80)
	busybox(t, cl, "default", "client", "sleep 3600")
	stable(t, c)
	pods, err := cl.Pods().List(bg, "default", client.ListOptions{LabelSelector: "app=web"})
	require.NoError(t, err)
	require.Len(t, pods.Items, 1)
	out, _, code := execIn(t, c, cl, "default", "client", "ping -c 1 "+pods.Items[0].Status.PodIP)
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "1 packets transmitted, 1 packets received, 0% packet loss")
	node, err := cl.Nodes().Get(bg, "", pods.Items[0].Spec.NodeName)
	require.NoError(t, err)
	out, _, code = execIn(t, c, cl, "default", "client", "ping -c 1 "+node.Status.Addresses[0].Address)
	assert.Equal(t, 0, code, "a node answers: %s", out)
	out, _, code = execIn(t, c, cl, "default", "client", "ping -c 1 -W 2 web")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "1 packets transmitted, 0 packets received, 100% packet loss")
}

// The StatefulSet tutorial's check: a page written with kubectl exec into
// nginx's document root (a volume) is what nginx serves, to the pod
// itself and to others.
func TestNginxServesWhatWasWritten(t *testing.T) {
	c, cl := netCluster(t)
	_, err := cl.Pods().Create(bg, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/nginx-slim:0.21",
			VolumeMounts: []corev1.VolumeMount{{Name: "www", MountPath: "/usr/share/nginx/html"}}}},
			Volumes: []corev1.Volume{{Name: "www", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}})
	require.NoError(t, err)
	busybox(t, cl, "default", "client", "sleep 3600")
	stable(t, c)
	_, _, code := execIn(t, c, cl, "default", "web-0", "curl -sS localhost")
	assert.Equal(t, 0, code, "an empty volume: 403, which curl prints without -f")
	_, _, code = execIn(t, c, cl, "default", "web-0", `echo "$(hostname)" > /usr/share/nginx/html/index.html`)
	require.Equal(t, 0, code)
	out, _, code := execIn(t, c, cl, "default", "web-0", "curl -s localhost")
	assert.Equal(t, 0, code)
	assert.Equal(t, "web-0\n", out)
	web, err := cl.Pods().Get(bg, "default", "web-0")
	require.NoError(t, err)
	out, _, code = execIn(t, c, cl, "default", "client", "wget -qO- http://"+web.Status.PodIP)
	assert.Equal(t, 0, code)
	assert.Equal(t, "web-0\n", out)
}
