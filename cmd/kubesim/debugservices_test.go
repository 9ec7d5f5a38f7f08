package main

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubernetes.io's "Debug Services": from a busybox pod, nslookup finds a
// Service by its short and full names, wget reaches its pods through the
// cluster IP (each in turn) and directly, and /etc/resolv.conf holds the
// cluster's search path.
func TestKubectlDebugServices(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir())
	k := newKubectl(t, s)
	k.ok("create", "deployment", "hostnames", "--image=registry.k8s.io/serve_hostname", "--replicas=3")
	k.ok("expose", "deployment", "hostnames", "--port=80", "--target-port=9376")
	k.ok("run", "shell", "--image=busybox", "--", "sleep", "3600")
	k.ok("wait", "--for=condition=Ready", "pod/shell", "--timeout=60s")
	k.eventually(func(out string) bool { return len(strings.Fields(out)) == 3 }, "get", "endpoints", "hostnames", "-o", "jsonpath={.subsets[*].addresses[*].ip}")
	ip := k.ok("get", "svc", "hostnames", "-o", "jsonpath={.spec.clusterIP}")
	sh := func(script string) (string, string, int) {
		return k.runIn("", "exec", "shell", "--", "sh", "-c", script)
	}

	for _, name := range []string{"hostnames", "hostnames.default", "hostnames.default.svc.cluster.local"} {
		out, errOut, code := sh("nslookup " + name)
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\thostnames.default.svc.cluster.local\nAddress: "+ip+"\n\n", out, name)
	}
	out, _, code := sh("nslookup nope")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "** server can't find nope: NXDOMAIN")
	out, _, _ = sh("cat /etc/resolv.conf")
	assert.Equal(t, "search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n", out)

	// Through the Service: every pod in turn.
	out, errOut, code := sh("for i in 1 2 3; do wget -qO- hostnames; done")
	require.Equal(t, 0, code, errOut)
	got := strings.Fields(out)
	sort.Strings(got)
	pods := strings.Fields(k.ok("get", "pods", "-l", "app=hostnames", "-o", "jsonpath={.items[*].metadata.name}"))
	sort.Strings(pods)
	assert.Equal(t, pods, got)

	// Straight to a pod, and to a port nothing listens on.
	podIP := k.ok("get", "pod", pods[0], "-o", "jsonpath={.status.podIP}")
	out, _, _ = sh("wget -qO- " + podIP + ":9376")
	assert.Equal(t, pods[0]+"\n", out)
	_, errOut, code = sh("wget -qO- " + podIP + ":80")
	assert.Equal(t, 1, code)
	assert.Equal(t, "wget: can't connect to remote host ("+podIP+"): Connection refused\ncommand terminated with exit code 1\n", errOut)
	_, errOut, code = sh("wget -qO- nope")
	assert.Equal(t, 1, code)
	assert.Equal(t, "wget: bad address 'nope'\ncommand terminated with exit code 1\n", errOut)

	// A Service with no pods refuses, as kube-proxy's reject rule does.
	k.ok("scale", "deployment", "hostnames", "--replicas=0")
	k.eventually(func(out string) bool { return out == "" }, "get", "endpoints", "hostnames", "-o", "jsonpath={.subsets[*].addresses[*].ip}")
	_, errOut, code = sh("wget -qO- hostnames")
	assert.Equal(t, 1, code)
	assert.Equal(t, "wget: can't connect to remote host ("+ip+"): Connection refused\ncommand terminated with exit code 1\n", errOut)
}
