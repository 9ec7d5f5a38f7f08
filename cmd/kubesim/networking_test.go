package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// webOnlyFromIngress lets only the ingress-nginx controller reach the
// pods labelled app=web.
const webOnlyFromIngress = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: web-only-from-ingress
spec:
  podSelector:
    matchLabels:
      app: web
  policyTypes: [Ingress]
  ingress:
  - from:
    - namespaceSelector:
        matchLabels:
          kubernetes.io/metadata.name: ingress-nginx
    ports:
    - port: 80
`

// TestNetworkingThroughKubectl is networking.k8s.io/v1 as kubectl sees
// it: discovery and explain, the install's IngressClass, `kubectl create
// ingress`, the tables of ing, netpol and ingressclass, a refusal in the
// API server's words, and the behaviour: a container's wget reaches web
// through the ingress-nginx controller by host, and straight only until
// a NetworkPolicy admits the controller alone.
func TestNetworkingThroughKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "2", "--stage-delay", "20ms")
	k := newKubectl(t, s)

	t.Run("discovery and explain", func(t *testing.T) {
		out := k.ok("api-resources", "--api-group=networking.k8s.io")
		assert.Regexp(t, `(?m)^ingressclasses\s+networking.k8s.io/v1\s+false\s+IngressClass$`, out)
		assert.Regexp(t, `(?m)^ingresses\s+ing\s+networking.k8s.io/v1\s+true\s+Ingress$`, out)
		assert.Regexp(t, `(?m)^networkpolicies\s+netpol\s+networking.k8s.io/v1\s+true\s+NetworkPolicy$`, out)
		assert.Contains(t, k.ok("api-versions"), "networking.k8s.io/v1\n")

		explain := k.ok("explain", "ingress.spec.rules.http.paths.pathType")
		assert.Contains(t, explain, "GROUP:      networking.k8s.io\nKIND:       Ingress\nVERSION:    v1\n")
		assert.Contains(t, explain, "FIELD: pathType <string>")
		explain = k.ok("explain", "netpol.spec")
		assert.Contains(t, explain, "KIND:       NetworkPolicy")
		assert.Regexp(t, `(?m)^\s+podSelector\s+<Object> -required-$`, explain)
		assert.Regexp(t, `(?m)^\s+policyTypes\s+<\[\]string>$`, explain)
		assert.Contains(t, k.ok("explain", "ingressclass.spec"), "controller")
	})

	t.Run("the ingress-nginx install", func(t *testing.T) {
		out := k.ok("get", "ingressclass")
		assert.Regexp(t, `^NAME\s+CONTROLLER\s+PARAMETERS\s+AGE\n`, out)
		assert.Regexp(t, `(?m)^nginx\s+k8s.io/ingress-nginx\s+<none>\s+\d+s$`, out)
		assert.Regexp(t, `(?m)^ingress-nginx-controller\s+ClusterIP\s+10\.96\.0\.80\s+<none>\s+80/TCP,443/TCP\s+`, k.ok("get", "svc", "-n", "ingress-nginx"))
	})

	k.ok("create", "deployment", "web", "--image=nginx")
	k.ok("expose", "deployment", "web", "--port=80")
	k.ok("run", "client", "--image=busybox", "--", "sleep", "3600")
	k.ok("wait", "--for=condition=Available", "deployment/web", "--timeout=60s")
	k.ok("wait", "--for=condition=Ready", "pod/client", "--timeout=60s")
	sh := func(script string) (string, string, int) {
		return k.runIn("", "exec", "client", "--", "sh", "-c", script)
	}

	t.Run("kubectl create ingress", func(t *testing.T) {
		assert.Equal(t, "ingress.networking.k8s.io/web created\n", k.ok("create", "ingress", "web", "--class=nginx", "--rule=web.example.com/*=web:80"))
		assert.Equal(t, "Prefix", k.ok("get", "ing", "web", "-o", "jsonpath={.spec.rules[0].http.paths[0].pathType}"))
		out := k.eventually(func(out string) bool { return strings.Contains(out, "10.96.0.80") }, "get", "ing")
		assert.Regexp(t, `^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\n`, out)
		assert.Regexp(t, `(?m)^web\s+nginx\s+web.example.com\s+10\.96\.0\.80\s+80\s+\d+s$`, out)
		desc := k.ok("describe", "ing", "web")
		assert.Regexp(t, `(?m)^Ingress Class:\s+nginx$`, desc)
		assert.Regexp(t, `(?m)^Address:\s+10\.96\.0\.80$`, desc)
		assert.Regexp(t, `(?m)^\s+web.example.com\s*$`, desc)

		errOut := k.fail("create", "ingress", "bad", "--rule=10.0.0.1/*=web:80")
		assert.Equal(t, `error: failed to create ingress: Ingress.networking.k8s.io "bad" is invalid: spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address`+"\n", errOut)
	})

	t.Run("through the ingress controller", func(t *testing.T) {
		out, errOut, code := sh("wget -qO- http://web.example.com/")
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "<title>Welcome to nginx!</title>")
		_, errOut, code = sh("wget -qO- --header 'Host: shop.example.com' http://10.96.0.80/")
		assert.Equal(t, 1, code)
		assert.Equal(t, "wget: server returned error: HTTP/1.1 404 Not Found\ncommand terminated with exit code 1\n", errOut)
	})

	t.Run("network policies", func(t *testing.T) {
		out, errOut, code := sh("wget --spider -T 1 http://web")
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, errOut, "remote file exists")

		_, errOut, code = k.runIn(webOnlyFromIngress, "apply", "-f", "-")
		require.Equal(t, 0, code, errOut)
		out = k.ok("get", "netpol")
		assert.Regexp(t, `^NAME\s+POD-SELECTOR\s+AGE\n`, out)
		assert.Regexp(t, `(?m)^web-only-from-ingress\s+app=web\s+\d+s$`, out)

		_, errOut, code = sh("wget --spider -T 1 http://web")
		assert.Equal(t, 1, code)
		assert.Regexp(t, `^Connecting to web \(10\.96\.\d+\.\d+:80\)\nwget: download timed out\ncommand terminated with exit code 1\n$`, errOut)
		out, errOut, code = sh("wget -qO- http://web.example.com/")
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "Welcome to nginx!", "the controller is let in")

		all := k.ok("get", "ing,netpol,ingressclass")
		assert.Contains(t, all, "ingress.networking.k8s.io/web")
		assert.Contains(t, all, "networkpolicy.networking.k8s.io/web-only-from-ingress")
		assert.Contains(t, all, "ingressclass.networking.k8s.io/nginx")
	})
}
