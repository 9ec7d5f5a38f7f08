package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A container's own command runs through the shell exec and attach use
// (kubelet/shell): the tutorials' busybox scripts print into the
// container's log, and their exit codes are the containers' ends.
func TestKubectlContainerScripts(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir())
	k := newKubectl(t, s)
	phase := func(pod, want string) {
		k.t.Helper()
		k.eventually(func(out string) bool { return out == want }, "get", "pod", pod, "-o", "jsonpath={.status.phase}")
	}

	t.Run("a counting loop", func(t *testing.T) {
		k.ok("run", "counter", "--image=busybox", "--restart=Never", "--",
			"sh", "-c", "i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); sleep 1; done")
		phase("counter", "Succeeded")
		assert.Equal(t, "0\n1\n2\n", k.ok("logs", "counter"))
		assert.Equal(t, "0 Completed", k.ok("get", "pod", "counter", "-o",
			"jsonpath={.status.containerStatuses[0].state.terminated.exitCode} {.status.containerStatuses[0].state.terminated.reason}"))
	})

	t.Run("exit codes", func(t *testing.T) {
		k.ok("run", "three", "--image=busybox", "--restart=Never", "--", "sh", "-c", "echo bye; exit 3")
		k.ok("run", "nope", "--image=busybox", "--restart=Never", "--", "false")
		phase("three", "Failed")
		phase("nope", "Failed")
		assert.Equal(t, "3 Error", k.ok("get", "pod", "three", "-o",
			"jsonpath={.status.containerStatuses[0].state.terminated.exitCode} {.status.containerStatuses[0].state.terminated.reason}"))
		assert.Equal(t, "1", k.ok("get", "pod", "nope", "-o", "jsonpath={.status.containerStatuses[0].state.terminated.exitCode}"))
		assert.Equal(t, "bye\n", k.ok("logs", "three"))
	})

	t.Run("a crash loop", func(t *testing.T) {
		k.ok("run", "crash", "--image=busybox", "--", "sh", "-c", "echo starting; exit 2")
		k.eventually(func(out string) bool { return out == "CrashLoopBackOff 2" }, "get", "pod", "crash", "-o",
			"jsonpath={.status.containerStatuses[0].state.waiting.reason} {.status.containerStatuses[0].lastState.terminated.exitCode}")
		assert.Equal(t, "starting\n", k.ok("logs", "crash", "--previous"))
	})

	t.Run("pipes, command substitution, env", func(t *testing.T) {
		k.ok("run", "pipes", "--image=busybox", "--restart=Never", "--env=GREETING=hello", "--",
			"sh", "-c", `echo hi | wc -c; echo "$GREETING from $(hostname)"; env | grep -c GREETING; seq 3 | tail -1`)
		phase("pipes", "Succeeded")
		assert.Equal(t, "3\nhello from pipes\n1\n3\n", k.ok("logs", "pipes"))
	})

	t.Run("plain commands", func(t *testing.T) {
		k.ok("run", "hi", "--image=busybox", "--restart=Never", "--", "echo", "hi")
		k.ok("run", "cat", "--image=busybox", "--restart=Never", "--", "cat", "/etc/hostname")
		phase("hi", "Succeeded")
		phase("cat", "Succeeded")
		assert.Equal(t, "hi\n", k.ok("logs", "hi"))
		assert.Equal(t, "cat\n", k.ok("logs", "cat"))
	})

	t.Run("the logging tutorial's counter runs on", func(t *testing.T) {
		// kubernetes.io's "Logging Architecture" counter pod.
		k.ok("run", "clock", "--image=busybox", "--", "/bin/sh", "-c",
			`i=0; while true; do echo "$i: $(date)"; i=$((i+1)); sleep 1; done`)
		out := k.eventually(func(out string) bool { return strings.Contains(out, "\n1: ") }, "logs", "clock")
		assert.True(t, strings.HasPrefix(out, "0: "), out)
		assert.Contains(t, out, " UTC ")
		assert.Equal(t, "Running", k.ok("get", "pod", "clock", "-o", "jsonpath={.status.phase}"))
	})

	t.Run("run -i --rm wget through a Service", func(t *testing.T) {
		k.ok("create", "deployment", "web", "--image=nginx")
		k.ok("expose", "deployment", "web", "--port=80")
		k.rolledOut("deployment/web")
		k.eventually(func(out string) bool { return out != "" }, "get", "endpoints", "web", "-o", "jsonpath={.subsets[*].addresses[*].ip}")
		out, errOut, code := k.runIn("", "run", "tmp", "--rm", "-i", "--image=busybox", "--restart=Never", "--", "wget", "-qO-", "http://web")
		assert.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "<title>Welcome to nginx!</title>")
		assert.Contains(t, out, `pod "tmp" deleted`)
		k.eventually(func(out string) bool { return !strings.Contains(out, "pod/tmp") }, "get", "pods", "-o", "name")
	})

	t.Run("run -i gives the script its stdin", func(t *testing.T) {
		out, errOut, code := k.runIn("Ada\n", "run", "greet", "--rm", "-i", "--image=busybox", "--restart=Never", "--",
			"sh", "-c", "read name; echo hello $name")
		assert.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "hello Ada\n")
		out, errOut, code = k.runIn("one\ntwo\n", "run", "count", "--rm", "-i", "--image=busybox", "--restart=Never", "--", "wc", "-l")
		assert.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "2\n")
		// Without --rm the pod stays, and what the session printed is
		// in its log.
		out, errOut, code = k.runIn("Grace\n", "run", "kept", "-i", "--image=busybox", "--restart=Never", "--",
			"sh", "-c", "read name; echo hello $name")
		assert.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "hello Grace\n")
		phase("kept", "Succeeded")
		assert.Equal(t, "hello Grace\n", k.ok("logs", "kept"))
	})

	t.Run("debug node/NAME -i -- cat", func(t *testing.T) {
		node := strings.Fields(k.ok("get", "nodes", "-o", "jsonpath={.items[*].metadata.name}"))[0]
		out, errOut, code := k.runIn("", "debug", "node/"+node, "-i", "--image=busybox", "--", "cat", "/host/etc/hostname")
		assert.Equal(t, 0, code, errOut)
		assert.Contains(t, out, node+"\n")
	})

	t.Run("init containers wait for their Services", func(t *testing.T) {
		// kubernetes.io's "Init Containers" example.
		out, errOut, code := k.runIn(`apiVersion: v1
kind: Pod
metadata:
  name: myapp-pod
  labels:
    app.kubernetes.io/name: MyApp
spec:
  containers:
  - name: myapp-container
    image: busybox:1.28
    command: ['sh', '-c', 'echo The app is running! && sleep 3600']
  initContainers:
  - name: init-myservice
    image: busybox:1.28
    command: ['sh', '-c', "until nslookup myservice.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for myservice; sleep 2; done"]
  - name: init-mydb
    image: busybox:1.28
    command: ['sh', '-c', "until nslookup mydb.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for mydb; sleep 2; done"]
`, "apply", "-f", "-")
		require.Equal(t, 0, code, out+errOut)
		k.eventually(func(out string) bool { return strings.Contains(out, "waiting for myservice") }, "logs", "myapp-pod", "-c", "init-myservice")
		assert.Contains(t, k.ok("get", "pod", "myapp-pod"), "Init:0/2")
		k.ok("create", "service", "clusterip", "myservice", "--tcp=80:9376")
		k.eventually(func(out string) bool { return strings.Contains(out, "waiting for mydb") }, "logs", "myapp-pod", "-c", "init-mydb")
		k.ok("create", "service", "clusterip", "mydb", "--tcp=80:9377")
		phase("myapp-pod", "Running")
		assert.Equal(t, "The app is running!\n", k.ok("logs", "myapp-pod"))
	})
}
