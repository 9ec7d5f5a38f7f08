package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Containers that behave as their command says, and kubectl logs over
// pods/log → the node's kubelet API, through the real kubectl.
func TestContainerLifeAndLogsThroughKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "2", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.eventually(func(out string) bool { return countLines(out) == 2 }, "get", "nodes", "--no-headers")

	t.Run("a one-shot shell that fails shows Error and its output", func(t *testing.T) {
		k.ok("run", "once", "--image=busybox", "--restart=Never", "--", "sh", "-c", "echo hi; echo there; exit 1")
		k.eventually(func(out string) bool { return out == "Failed" }, "get", "pod", "once", "-o", "jsonpath={.status.phase}")
		assert.Regexp(t, `(?m)^once\s+0/1\s+Error\s+0\s+`, k.ok("get", "pod", "once"))
		assert.Equal(t, "1", k.ok("get", "pod", "once", "-o", "jsonpath={.status.containerStatuses[0].state.terminated.exitCode}"))
		assert.Equal(t, "hi\nthere\n", k.ok("logs", "once"))
		assert.Equal(t, "there\n", k.ok("logs", "once", "--tail=1"))
		out := k.ok("logs", "once", "--timestamps")
		assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z hi\n\S+ there\n$`, out)
		// Authorized as get on pods/log, the subresource.
		assert.Contains(t, k.fail("get", "--raw", "/api/v1/namespaces/default/pods/once/log", "--as=alice"),
			`User "alice" cannot get resource "pods/log" in API group "" in the namespace "default"`)
		assert.Contains(t, k.fail("logs", "once", "--previous"),
			`Error from server (BadRequest): previous terminated container "once" in pod "once" not found`)
	})

	t.Run("restartPolicy Always: restarts, CrashLoopBackOff, --previous", func(t *testing.T) {
		k.ok("run", "crasher", "--image=busybox", "--", "sh", "-c", "echo starting; exit 2")
		// The back-off is 10s then 20s, 40s...: a loaded machine may look
		// after the second restart, so the count is any (at least 1).
		crashLoop := regexp.MustCompile(`(?m)^crasher\s+0/1\s+CrashLoopBackOff\s+[1-9]\d* \(\d+[sm]\d*s? ago\)\s+`)
		k.eventually(crashLoop.MatchString, "get", "pod", "crasher")
		assert.Equal(t, "2 Error", k.ok("get", "pod", "crasher", "-o",
			`jsonpath={.status.containerStatuses[0].lastState.terminated.exitCode} {.status.containerStatuses[0].lastState.terminated.reason}`))
		assert.Equal(t, "starting\n", k.ok("logs", "crasher", "--previous"))
		assert.Equal(t, "starting\n", k.ok("logs", "crasher"), "a container waiting to restart shows its last run")
	})

	t.Run("logs -f streams until the container exits", func(t *testing.T) {
		k.ok("run", "ticker", "--image=busybox", "--restart=Never", "--", "sh", "-c",
			"echo one; sleep 1; echo two; sleep 1; echo three")
		k.eventually(func(out string) bool { return out == "Running" || out == "Succeeded" }, "get", "pod", "ticker", "-o", "jsonpath={.status.phase}")
		cmd := k.cmd("logs", "-f", "ticker")
		out, err := cmd.Output()
		require.NoError(t, err, "kubectl logs -f ends by itself when the container exits")
		assert.Equal(t, "one\ntwo\nthree\n", string(out))
		k.eventually(func(out string) bool { return out == "Succeeded" }, "get", "pod", "ticker", "-o", "jsonpath={.status.phase}")
		assert.Regexp(t, `(?m)^ticker\s+0/1\s+Completed\s+0\s+`, k.ok("get", "pod", "ticker"))
	})

	t.Run("-c picks a container; a wrong one is refused", func(t *testing.T) {
		cmd := k.cmd("apply", "-f", "-")
		cmd.Stdin = strings.NewReader(twoContainers)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		k.eventually(func(out string) bool { return out == "Running" }, "get", "pod", "two", "-o", "jsonpath={.status.phase}")
		assert.Equal(t, "from b\n", k.ok("logs", "two", "-c", "b"))
		assert.Equal(t, "from init\n", k.ok("logs", "two", "-c", "setup"))
		// kubectl checks the container itself; the server says the same.
		assert.Contains(t, k.fail("logs", "two", "-c", "nope"), "container nope is not valid for pod two")
		assert.Contains(t, k.fail("get", "--raw", "/api/v1/namespaces/default/pods/two/log?container=nope"),
			"Error from server (BadRequest): container nope is not valid for pod two")
		assert.Contains(t, k.fail("logs", "missing"), `pods "missing" not found`)
	})
}

// twoContainers is a pod with an init container and two containers.
const twoContainers = `apiVersion: v1
kind: Pod
metadata:
  name: two
spec:
  initContainers:
  - name: setup
    image: busybox
    command: ["sh", "-c", "echo from init"]
  containers:
  - name: a
    image: nginx
  - name: b
    image: busybox
    command: ["sh", "-c", "echo from b; sleep 3600"]
`
