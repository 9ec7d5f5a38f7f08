package kubelet

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/kubelet/podnet"
	"github.com/kubesim/kubesim/kubelet/programs"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// serveGet sends a GET of path to srv over a simulated connection from
// 10.244.0.9 and returns the answer and what the server logged.
func serveGet(t *testing.T, srv programs.Server, path string) (int, string, []string) {
	t.Helper()
	client, server := podnet.Pipe("10.244.0.9:40000", "10.244.0.5:80")
	var logs []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(&programs.Conn{Conn: server, Now: func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) },
			Memory: &programs.Memory{}, Log: func(l string) { logs = append(logs, l) }})
	}()
	_, err := fmt.Fprintf(client, "GET %s HTTP/1.1\r\nHost: web\r\nUser-Agent: Wget\r\nConnection: close\r\n\r\n", path)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(client), nil)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	client.Close()
	<-done
	return resp.StatusCode, string(body), logs
}

// What the tutorials' images answer, and on which port only: the port
// their program listens on.
func TestSimulatedServers(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "hostnames-abc"}}
	for _, tc := range []struct {
		name string
		c    corev1.Container
		port int
		path string
		code int
		body string
		log  string
	}{
		{name: "nginx", c: corev1.Container{Image: "nginx:1.27"}, port: 80, path: "/", code: 200, body: "<h1>Welcome to nginx!</h1>",
			log: `10.244.0.9 - - [02/Jan/2025:03:04:05 +0000] "GET / HTTP/1.1" 200 615 "-" "Wget" "-"`},
		{name: "nginx 404", c: corev1.Container{Image: "docker.io/library/nginx"}, port: 80, path: "/x", code: 404, body: "<hr><center>nginx/1.27.5</center>",
			log: `10.244.0.9 - - [02/Jan/2025:03:04:05 +0000] "GET /x HTTP/1.1" 404 153 "-" "Wget" "-"`},
		{name: "nginx other port", c: corev1.Container{Image: "nginx"}, port: 8080},
		{name: "nginx told to sleep", c: corev1.Container{Image: "nginx", Command: []string{"sleep", "3600"}}, port: 80},
		{name: "nginx in a script", c: corev1.Container{Image: "nginx", Command: []string{"sh", "-c", "sleep 0.5; exec nginx -g 'daemon off;'"}},
			port: 80, path: "/", code: 200, body: "Welcome to nginx!"},
		{name: "serve_hostname", c: corev1.Container{Image: "registry.k8s.io/serve_hostname"}, port: 9376, path: "/", code: 200, body: "hostnames-abc\n"},
		{name: "agnhost serve-hostname", c: corev1.Container{Image: "registry.k8s.io/e2e-test-images/agnhost:2.39", Args: []string{"serve-hostname"}}, port: 9376, path: "/", code: 200, body: "hostnames-abc\n"},
		{name: "agnhost other", c: corev1.Container{Image: "registry.k8s.io/e2e-test-images/agnhost:2.39", Args: []string{"pause"}}, port: 9376},
		{name: "http-echo", c: corev1.Container{Image: "hashicorp/http-echo", Args: []string{"-text=apple"}}, port: 5678, path: "/", code: 200, body: "apple\n"},
		{name: "http-echo -listen", c: corev1.Container{Image: "hashicorp/http-echo", Args: []string{"-text=banana", "-listen=:8080"}}, port: 8080, path: "/", code: 200, body: "banana\n"},
		{name: "httpd", c: corev1.Container{Image: "httpd:2.4"}, port: 80, path: "/", code: 200, body: "It works!",
			log: `10.244.0.9 - - [02/Jan/2025:03:04:05 +0000] "GET / HTTP/1.1" 200 45`},
		{name: "hello-app", c: corev1.Container{Image: "gcr.io/google-samples/hello-app:2.0"}, port: 8080, path: "/", code: 200,
			body: "Hello, world!\nVersion: 2.0.0\nHostname: hostnames-abc\n"},
		{name: "nginx-slim", c: corev1.Container{Image: "registry.k8s.io/nginx-slim:0.21"}, port: 80, path: "/", code: 200, body: "<h1>Welcome to nginx!</h1>"},
		{name: "the Kubernetes Basics bootcamp", c: corev1.Container{Image: "gcr.io/google-samples/kubernetes-bootcamp:v1"}, port: 8080, path: "/", code: 200,
			body: "Hello Kubernetes bootcamp! | Running on: hostnames-abc | v=1\n"},
		{name: "the bootcamp's v2", c: corev1.Container{Image: "docker.io/jocatalin/kubernetes-bootcamp:v2"}, port: 8080, path: "/anything", code: 200,
			body: "Hello Kubernetes bootcamp! | Running on: hostnames-abc | v=2\n"},
		{name: "the bootcamp on another port", c: corev1.Container{Image: "gcr.io/google-samples/kubernetes-bootcamp:v1"}, port: 80},
		{name: "hello-app from Artifact Registry", c: corev1.Container{Image: "us-docker.pkg.dev/google-samples/containers/gke/hello-app:2.0"}, port: 8080, path: "/", code: 200,
			body: "Hello, world!\nVersion: 2.0.0\nHostname: hostnames-abc\n"},
		{name: "hello-app 1.0", c: corev1.Container{Image: "gcr.io/google-samples/hello-app:1.0"}, port: 8080, path: "/", code: 200, body: "Version: 1.0.0\n"},
		{name: "the HPA walkthrough's php-apache", c: corev1.Container{Image: "registry.k8s.io/hpa-example"}, port: 80, path: "/", code: 200, body: "OK!"},
		{name: "busybox", c: corev1.Container{Image: "busybox"}, port: 80},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := programFor(pod, &tc.c).run(pod, &tc.c)
			srv, ok := tl.listening(tc.port, time.Second)
			require.Equal(t, tc.code != 0, ok, "listens on %d", tc.port)
			if !ok {
				return
			}
			code, body, logs := serveGet(t, srv, tc.path)
			assert.Equal(t, tc.code, code)
			assert.Contains(t, body, tc.body)
			if tc.log != "" {
				assert.Equal(t, []string{tc.log}, logs)
			}
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

// A program listens from when it starts to listen until it ends.
func TestListeningSpan(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	c := &corev1.Container{Image: "nginx", Command: []string{"sh", "-c", "sleep 2; timeout=1; nginx -g 'daemon off;'"}}
	tl := programFor(pod, c).run(pod, c)
	for _, at := range []int{0, 1, 2, 3, 100} {
		_, ok := tl.listening(80, time.Duration(at)*time.Second)
		assert.Equal(t, at >= 2, ok, "at %ds", at)
	}
	c = &corev1.Container{Image: "redis:7", Args: []string{"--port", "7000"}}
	tl = programFor(pod, c).run(pod, c)
	_, ok := tl.listening(7000, 0)
	assert.True(t, ok, "redis-server --port "+strconv.Itoa(7000))
	_, ok = tl.listening(6379, 0)
	assert.False(t, ok)
}
