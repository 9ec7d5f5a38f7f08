package kubelet

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/kubelet/shell"
)

// What the tutorials' images answer, and on which port only.
func TestSimulatedServer(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "hostnames-abc"}}
	for _, tc := range []struct {
		name       string
		c          corev1.Container
		port, path string
		code       int
		body       string
		ok         bool
	}{
		{name: "nginx", c: corev1.Container{Image: "nginx:1.27"}, port: "80", path: "/", code: 200, body: "<h1>Welcome to nginx!</h1>", ok: true},
		{name: "nginx 404", c: corev1.Container{Image: "docker.io/library/nginx"}, port: "80", path: "/x", code: 404, body: "404 Not Found", ok: true},
		{name: "nginx other port", c: corev1.Container{Image: "nginx"}, port: "8080", path: "/"},
		{name: "serve_hostname", c: corev1.Container{Image: "registry.k8s.io/serve_hostname"}, port: "9376", path: "/", code: 200, body: "hostnames-abc\n", ok: true},
		{name: "agnhost serve-hostname", c: corev1.Container{Image: "registry.k8s.io/e2e-test-images/agnhost:2.39", Args: []string{"serve-hostname"}}, port: "9376", path: "/", code: 200, body: "hostnames-abc\n", ok: true},
		{name: "agnhost other", c: corev1.Container{Image: "registry.k8s.io/e2e-test-images/agnhost:2.39", Args: []string{"pause"}}, port: "9376", path: "/"},
		{name: "http-echo", c: corev1.Container{Image: "hashicorp/http-echo", Args: []string{"-text=apple"}}, port: "5678", path: "/", code: 200, body: "apple\n", ok: true},
		{name: "http-echo -listen", c: corev1.Container{Image: "hashicorp/http-echo", Args: []string{"-text=banana", "-listen=:8080"}}, port: "8080", path: "/", code: 200, body: "banana\n", ok: true},
		{name: "busybox", c: corev1.Container{Image: "busybox"}, port: "80", path: "/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body, ok := simulatedServer(pod, &tc.c, tc.port, tc.path)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.code, code)
			assert.True(t, strings.Contains(string(body), tc.body), string(body))
		})
	}
	assert.Equal(t, "search ns1.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n", resolvConf("ns1"))
}

// The names CoreDNS's kubernetes plugin answers: a Service, a headless
// Service's ready endpoints, one endpoint by its hostname (a StatefulSet's
// web-1.nginx) or, when it has none, by its address with dashes, and a
// pod by its address under NS.pod; a not-ready endpoint has no name.
func TestClusterDNSNames(t *testing.T) {
	f := newFixture(t, Config{})
	ctx := f.ctx
	mk := func(svc *corev1.Service, ep *corev1.Endpoints) {
		_, err := f.env.Client.Services().Create(ctx, svc)
		require.NoError(t, err)
		_, err = f.env.Client.Endpoints().Create(ctx, ep)
		require.NoError(t, err)
	}
	port := []corev1.ServicePort{{Name: "web", Port: 80}}
	mk(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "default"}, Spec: corev1.ServiceSpec{ClusterIP: "None", Ports: port}},
		&corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "default"}, Subsets: []corev1.EndpointSubset{{
			Addresses:         []corev1.EndpointAddress{{IP: "10.244.1.5", Hostname: "web-0"}, {IP: "10.244.2.6", Hostname: "web-1"}},
			NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.244.3.7", Hostname: "web-2"}},
			Ports:             []corev1.EndpointPort{{Name: "web", Port: 80}}}}})
	mk(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.20", Ports: port}},
		&corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "10.244.1.8"}}, Ports: []corev1.EndpointPort{{Name: "web", Port: 80}}}}})
	n := clusterNetwork{k: f.k, pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "client", Namespace: "default"}}}
	for _, tc := range []struct {
		name, fqdn string
		addrs      []string
	}{
		{"web-1.nginx", "web-1.nginx.default.svc.cluster.local", []string{"10.244.2.6"}},
		{"web-0.nginx.default.svc.cluster.local", "web-0.nginx.default.svc.cluster.local", []string{"10.244.1.5"}},
		{"web-0.nginx.default", "web-0.nginx.default.svc.cluster.local", []string{"10.244.1.5"}},
		{"nginx", "nginx.default.svc.cluster.local", []string{"10.244.1.5", "10.244.2.6"}},
		{"web", "web.default.svc.cluster.local", []string{"10.96.0.20"}},
		{"10-244-1-8.web", "10-244-1-8.web.default.svc.cluster.local", []string{"10.244.1.8"}},
		{"10-244-1-8.default.pod", "10-244-1-8.default.pod.cluster.local", []string{"10.244.1.8"}},
		{"web-2.nginx", "", nil},      // not ready
		{"web-3.nginx", "", nil},      // no such pod
		{"10-244-1-5.nginx", "", nil}, // it has a hostname: only that names it
		{"web-0.nginx.prod", "", nil}, // another namespace
		{"300-1-1-1.default.pod", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fqdn, addrs, err := n.LookupHost(ctx, tc.name)
			if tc.addrs == nil {
				assert.ErrorIs(t, err, shell.ErrNoSuchHost)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.fqdn, fqdn)
			assert.Equal(t, tc.addrs, addrs)
		})
	}
}
