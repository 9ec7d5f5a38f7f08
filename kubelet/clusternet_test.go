package kubelet

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
		{name: "nginx-slim", c: corev1.Container{Image: "registry.k8s.io/nginx-slim:0.21"}, port: "80", path: "/", code: 200, body: "<h1>Welcome to nginx!</h1>", ok: true},
		{name: "nginx other port", c: corev1.Container{Image: "nginx"}, port: "8080", path: "/"},
		{name: "serve_hostname", c: corev1.Container{Image: "registry.k8s.io/serve_hostname"}, port: "9376", path: "/", code: 200, body: "hostnames-abc\n", ok: true},
		{name: "agnhost serve-hostname", c: corev1.Container{Image: "registry.k8s.io/e2e-test-images/agnhost:2.39", Args: []string{"serve-hostname"}}, port: "9376", path: "/", code: 200, body: "hostnames-abc\n", ok: true},
		{name: "agnhost other", c: corev1.Container{Image: "registry.k8s.io/e2e-test-images/agnhost:2.39", Args: []string{"pause"}}, port: "9376", path: "/"},
		{name: "http-echo", c: corev1.Container{Image: "hashicorp/http-echo", Args: []string{"-text=apple"}}, port: "5678", path: "/", code: 200, body: "apple\n", ok: true},
		{name: "http-echo -listen", c: corev1.Container{Image: "hashicorp/http-echo", Args: []string{"-text=banana", "-listen=:8080"}}, port: "8080", path: "/", code: 200, body: "banana\n", ok: true},
		{name: "the Kubernetes Basics bootcamp", c: corev1.Container{Image: "gcr.io/google-samples/kubernetes-bootcamp:v1"}, port: "8080", path: "/", code: 200,
			body: "Hello Kubernetes bootcamp! | Running on: hostnames-abc | v=1\n", ok: true},
		{name: "the bootcamp's v2", c: corev1.Container{Image: "docker.io/jocatalin/kubernetes-bootcamp:v2"}, port: "8080", path: "/anything", code: 200,
			body: "Hello Kubernetes bootcamp! | Running on: hostnames-abc | v=2\n", ok: true},
		{name: "the bootcamp on another port", c: corev1.Container{Image: "gcr.io/google-samples/kubernetes-bootcamp:v1"}, port: "80", path: "/"},
		{name: "hello-app", c: corev1.Container{Image: "us-docker.pkg.dev/google-samples/containers/gke/hello-app:2.0"}, port: "8080", path: "/", code: 200,
			body: "Hello, world!\nVersion: 2.0.0\nHostname: hostnames-abc\n", ok: true},
		{name: "hello-app 1.0", c: corev1.Container{Image: "gcr.io/google-samples/hello-app:1.0"}, port: "8080", path: "/", code: 200,
			body: "Version: 1.0.0\n", ok: true},
		{name: "the HPA walkthrough's php-apache", c: corev1.Container{Image: "registry.k8s.io/hpa-example"}, port: "80", path: "/", code: 200, body: "OK!", ok: true},
		{name: "busybox", c: corev1.Container{Image: "busybox"}, port: "80", path: "/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body, ok := simulatedServer(pod, &tc.c, tc.port, tc.path, nil)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.code, code)
			assert.True(t, strings.Contains(string(body), tc.body), string(body))
		})
	}
	assert.Equal(t, "search ns1.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n", resolvConf("ns1"))
}

// nginx serves its document root: a page written there, a volume over it
// that hides the image's pages (an empty one forbids /), else its welcome
// page.
func TestNginxServesItsDocumentRoot(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0"}}
	written := func(p string) ([]byte, bool) {
		if p == "/usr/share/nginx/html/index.html" {
			return []byte("web-0\n"), true
		}
		return nil, false
	}
	none := func(string) ([]byte, bool) { return nil, false }
	plain := &corev1.Container{Image: "registry.k8s.io/nginx-slim:0.21"}
	mounted := &corev1.Container{Image: "nginx", VolumeMounts: []corev1.VolumeMount{{Name: "www", MountPath: "/usr/share/nginx/html"}}}

	code, body, _ := simulatedServer(pod, mounted, "80", "/", written)
	assert.Equal(t, 200, code)
	assert.Equal(t, "web-0\n", string(body))
	code, body, _ = simulatedServer(pod, plain, "80", "/index.html", written)
	assert.Equal(t, 200, code)
	assert.Equal(t, "web-0\n", string(body))
	code, body, _ = simulatedServer(pod, mounted, "80", "/", none)
	assert.Equal(t, 403, code)
	assert.Contains(t, string(body), "403 Forbidden")
	code, _, _ = simulatedServer(pod, mounted, "80", "/missing.html", none)
	assert.Equal(t, 404, code)
	code, body, _ = simulatedServer(pod, plain, "80", "/", none)
	assert.Equal(t, 200, code)
	assert.Contains(t, string(body), "Welcome to nginx!")
}
