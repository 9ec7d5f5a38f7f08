package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubernetes.io's "Debug Running Pods" with the real kubectl: kubectl
// debug adds an ephemeral container through pods/ephemeralcontainers (a
// strategic merge patch), the kubelet starts it and reports it in
// status.ephemeralContainerStatuses, and kubectl attaches to its shell.
func TestKubectlDebugEphemeralContainer(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir())
	k := newKubectl(t, s)
	k.ok("run", "web", "--image=nginx", "--restart=Never")
	k.ok("wait", "--for=condition=Ready", "pod/web", "--timeout=60s")

	t.Run("debug -i --target", func(t *testing.T) {
		out, errOut, code := k.runIn("echo in $HOSTNAME\nexit 3\n",
			"debug", "-i", "web", "--image=busybox", "--target=web", "--container=dbg")
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, "Targeting container \"web\". If you don't see processes from this container it may be because the container runtime doesn't support this feature.\nin web\n", out)
		// The shell's exit ends the ephemeral container; the pod runs on.
		k.eventually(func(out string) bool { return out == "3 Error" }, "get", "pod", "web", "-o",
			"jsonpath={.status.ephemeralContainerStatuses[0].state.terminated.exitCode} {.status.ephemeralContainerStatuses[0].state.terminated.reason}")
		assert.Equal(t, "dbg busybox web true true", k.ok("get", "pod", "web", "-o",
			"jsonpath={.spec.ephemeralContainers[0].name} {.spec.ephemeralContainers[0].image} {.spec.ephemeralContainers[0].targetContainerName} {.spec.ephemeralContainers[0].stdin} {.status.containerStatuses[0].ready}"))
		assert.Equal(t, "Running", k.ok("get", "pod", "web", "-o", "jsonpath={.status.phase}"))
	})

	t.Run("debug -it, a terminal", func(t *testing.T) {
		requireScript(t)
		out := k.script("echo tty in $HOSTNAME\rexit\r", "debug", "-it", "web", "--image=busybox", "--target=web")
		assert.Contains(t, out, "Defaulting debug container name to debugger-")
		assert.Contains(t, out, "tty in web\r\n")
		k.eventually(func(out string) bool { return out == "0" }, "get", "pod", "web", "-o",
			"jsonpath={.status.ephemeralContainerStatuses[1].state.terminated.exitCode}")
	})

	t.Run("validation", func(t *testing.T) {
		// Names are unique across every kind of container.
		errOut := k.fail("debug", "web", "--image=busybox", "--container=web")
		assert.Contains(t, errOut, `Pod "web" is invalid: spec.ephemeralContainers[2].name: Duplicate value: "web"`)
		errOut = k.fail("debug", "web", "--image=busybox", "--target=nope")
		assert.Contains(t, errOut, `spec.ephemeralContainers[2].targetContainerName: Not found: "nope"`)

		// No ports, probes or resources: PUT the subresource by hand.
		pod := k.ok("get", "--raw", "/api/v1/namespaces/default/pods/web/ephemeralcontainers")
		require.Contains(t, pod, `"ephemeralContainers"`)
		withPorts := strings.Replace(pod, `"ephemeralContainers":[`,
			`"ephemeralContainers":[{"name":"bad","image":"busybox","ports":[{"containerPort":80}],"readinessProbe":{"exec":{"command":["true"]}},"resources":{"limits":{"cpu":"1"}}},`, 1)
		file := filepath.Join(t.TempDir(), "pod.json")
		require.NoError(t, os.WriteFile(file, []byte(withPorts), 0o600))
		errOut = k.fail("replace", "--raw", "/api/v1/namespaces/default/pods/web/ephemeralcontainers", "-f", file)
		for _, f := range []string{"ports", "resources", "readinessProbe"} {
			assert.Contains(t, errOut, "spec.ephemeralContainers[0]."+f+": Forbidden: cannot be set for an Ephemeral Container")
		}

		// Once added, they stay as they are.
		removed := strings.Replace(pod, `"name":"dbg"`, `"name":"dbg2"`, 1)
		require.NoError(t, os.WriteFile(file, []byte(removed), 0o600))
		errOut = k.fail("replace", "--raw", "/api/v1/namespaces/default/pods/web/ephemeralcontainers", "-f", file)
		assert.Contains(t, errOut, `spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed`)

		// Never on create, and not through the pod itself.
		errOut = k.fail("run", "other", "--image=nginx", "--overrides",
			`{"spec":{"ephemeralContainers":[{"name":"dbg","image":"busybox"}]}}`)
		assert.Contains(t, errOut, "spec.ephemeralContainers: Forbidden: cannot be set on create")
	})

	t.Run("debug --copy-to", func(t *testing.T) {
		// A copy of the pod with one more container, started from scratch
		// (labels dropped, so no controller adopts it); the original is
		// left alone.
		out, errOut, code := k.runIn("echo copy in $HOSTNAME\nexit 2\n", "debug", "web", "-i", "--copy-to=web-debug", "--image=busybox", "--container=shell")
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, "copy in web-debug\n", out)
		assert.Equal(t, "web shell", k.ok("get", "pod", "web-debug", "-o", "jsonpath={.spec.containers[*].name}"))
		k.eventually(func(out string) bool { return out == "2" }, "get", "pod", "web-debug", "-o",
			`jsonpath={.status.containerStatuses[?(@.name=="shell")].state.terminated.exitCode}`)
		assert.Equal(t, "web", k.ok("get", "pod", "web", "-o", "jsonpath={.spec.containers[*].name}"))
	})

	t.Run("debug node/NAME", func(t *testing.T) {
		// A pod on that node, on its network and in its process
		// namespace, with the node's root at /host.
		out, errOut, code := k.runIn("echo on $HOSTNAME\ncat /host/etc/hostname\nls /host/var/log\n", "debug", "node/node-2", "-i", "--image=busybox")
		assert.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "Creating debugging pod node-debugger-node-2-")
		assert.Contains(t, out, "on node-2\nnode-2\ncontainers\npods\n")
		pods := k.ok("get", "pods", "-o", `jsonpath={range .items[?(@.spec.hostPID)]}{.spec.nodeName} {.spec.hostNetwork} {.spec.hostIPC} {.spec.volumes[0].hostPath.path} {.spec.containers[0].volumeMounts[0].mountPath}{"\n"}{end}`)
		assert.Equal(t, "node-2 true true / /host\n", pods)
	})

	t.Run("discovery", func(t *testing.T) {
		assert.Contains(t, k.ok("get", "--raw", "/api/v1"),
			`{"name":"pods/ephemeralcontainers","singularName":"","namespaced":true,"kind":"Pod","verbs":["get","patch","update"]}`)
	})
}

func requireScript(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/script"); err != nil {
		t.Fatalf("script (util-linux) is required for the terminal test: %v", err)
	}
}

// script runs kubectl under a pseudo-terminal (util-linux script), with
// typed input, and returns what the terminal showed.
func (k *kubectl) script(typed string, args ...string) string {
	k.t.Helper()
	cmd := k.cmd(args...)
	sc := k.cmd()
	sc.Path, sc.Args = "/usr/bin/script", []string{"script", "-q", "-e", "-c", strings.Join(cmd.Args, " "), "/dev/null"}
	sc.Stdin = strings.NewReader(typed)
	var out strings.Builder
	sc.Stdout, sc.Stderr = &out, &out
	require.NoError(k.t, sc.Run(), out.String())
	return out.String()
}
