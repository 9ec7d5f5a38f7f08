package main

import (
	"io"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node run by a `kubesim kubelet` process serves the kubelet API
// itself: its Node reports the process's address and its own port
// (status.addresses InternalIP, status.daemonEndpoints), the API server
// dials it there, and the real kubectl's logs, exec (stdin, exit codes)
// and attach work for its pods as for the pods of an in-process node.
// When the kubelet process is gone, the API server answers with the
// dial error, as kube-apiserver does for an unreachable kubelet.
func TestKubectlLogsAndExecOnAKubeletProcess(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "0")
	k := newKubectl(t, s)
	_, proc := startProc(t, "kubelet", "--kubeconfig", s.kubeconfig, "--nodes", "1", "--node-prefix", "far", "--stage-delay", "20ms")
	k.eventually(func(out string) bool { return out == "far-1" }, "get", "nodes", "-o", "jsonpath={.items[*].metadata.name}")
	// Its first status post follows the registration.
	port := k.eventually(func(out string) bool { return out != "" }, "get", "node", "far-1", "-o", "jsonpath={.status.daemonEndpoints.kubeletEndpoint.Port}")
	ip := k.ok("get", "node", "far-1", "-o", `jsonpath={.status.addresses[?(@.type=="InternalIP")].address}`)
	assert.Equal(t, "127.0.0.1", ip)
	assert.NotEqual(t, "10250", port, "a free port of the kubelet process")

	k.ok("apply", "-f", "testdata/exec-pod.yaml")
	k.ok("wait", "--for=condition=Ready", "pod/shell", "--timeout=60s")
	assert.Equal(t, "far-1", k.ok("get", "pod", "shell", "-o", "jsonpath={.spec.nodeName}"))

	assert.Equal(t, "shell\n", k.ok("exec", "shell", "--", "hostname"))
	assert.Contains(t, k.ok("exec", "shell", "--", "env"), "MY_NODE=far-1\n")
	assert.Equal(t, "value-from-configmap", k.ok("exec", "shell", "--", "cat", "/etc/config/key"))
	out, errOut, code := k.runIn("line one\nline two\n", "exec", "-i", "shell", "--", "cat")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "line one\nline two\n", out)
	_, errOut, code = k.runIn("", "exec", "shell", "--", "sh", "-c", "exit 3")
	assert.Equal(t, 3, code)
	assert.Equal(t, "command terminated with exit code 3\n", errOut)

	k.ok("wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/done", "--timeout=60s")
	assert.Equal(t, "bye\n", k.ok("logs", "done"))
	k.eventually(func(out string) bool { return strings.HasPrefix(out, "tick\ntick\n") }, "logs", "ticker")
	assert.Contains(t, k.fail("logs", "shell", "-c", "nope"), `container nope is not valid for pod shell`)

	// port-forward: the upgrade (kubectl v1.32's SPDY in a WebSocket)
	// passes through to the kubelet process, which dials the pod; nothing
	// listens on 80 in a busybox container.
	fwd, cmd, errb := k.portForward("pod/shell", "80")
	conn, err := net.Dial("tcp", "127.0.0.1:"+fwd)
	require.NoError(t, err)
	_, _ = conn.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
	_, _ = io.ReadAll(conn)
	conn.Close()
	_ = cmd.Wait()
	assert.Regexp(t, "an error occurred forwarding "+fwd+` -> 80: error forwarding port 80 to pod [0-9a-f]{64}, uid : `+
		`failed to execute portforward in network namespace .*: failed to connect to localhost:80 inside namespace .*connect: connection refused`, errb.String())

	// The kubelet process dies: nothing listens at the node's port.
	require.NoError(t, proc.Kill())
	_, _ = proc.Wait()
	errOut = k.fail("logs", "done")
	assert.Contains(t, errOut, "Error from server: Get \"https://127.0.0.1:"+port+"/containerLogs/default/done/app\": dial tcp 127.0.0.1:"+port+": connect: connection refused")
	errOut = k.fail("exec", "shell", "--", "hostname")
	assert.Contains(t, errOut, "error dialing backend: dial tcp 127.0.0.1:"+port+": connect: connection refused")
}
