package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tutorials' debug pod, `kubectl run -i --tty --rm NAME
// --image=busybox -- sh`, and kubectl attach with stdin: the container's
// shell runs over the attach stream (WebSocket, and SPDY when kubectl
// falls back), its exit ends the container, and --rm deletes the pod.
func TestKubectlRunInteractive(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir())
	k := newKubectl(t, s)

	t.Run("run -it --rm", func(t *testing.T) {
		if _, err := exec.LookPath("script"); err != nil {
			t.Fatalf("script (util-linux) is required for the terminal test: %v", err)
		}
		cmd := k.cmd("run", "-i", "--tty", "--rm", "debug", "--image=busybox", "--", "sh")
		script := k.cmd()
		script.Path, script.Args = "/usr/bin/script", []string{"script", "-q", "-e", "-c", strings.Join(cmd.Args, " "), "/dev/null"}
		script.Stdin = strings.NewReader("echo hi from $HOSTNAME\rexit\r")
		var out strings.Builder
		script.Stdout, script.Stderr = &out, &out
		require.NoError(t, script.Run(), out.String())
		assert.Contains(t, out.String(), "If you don't see a command prompt, try pressing enter.")
		assert.Contains(t, out.String(), "hi from debug\r\n")
		assert.Contains(t, out.String(), `pod "debug" deleted`)
		k.eventually(func(out string) bool { return !strings.Contains(out, "debug") }, "get", "pods", "-o", "name")
	})

	t.Run("run -i, exit code", func(t *testing.T) {
		out, errOut, code := k.runIn("echo working\nexit 3\n", "run", "-i", "--rm", "--restart=Never", "once", "--image=busybox", "--", "sh")
		assert.Equal(t, 3, code, errOut)
		assert.Contains(t, out, "working\n")
		assert.Contains(t, errOut, "pod default/once terminated (Error)")
		k.eventually(func(out string) bool { return !strings.Contains(out, "once") }, "get", "pods", "-o", "name")
	})

	t.Run("attach -i", func(t *testing.T) {
		k.ok("apply", "-f", "testdata/attach-pod.yaml")
		k.ok("wait", "--for=condition=Ready", "pod/console", "--timeout=60s")
		// Without stdinOnce the runtime keeps stdin open: the client
		// leaving does not end the shell.
		out, errOut, code := k.runIn("echo one $GREETING\n", "attach", "-i", "console")
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, "one hello\n", out)
		assert.Equal(t, "Running", k.ok("get", "pod", "console", "-o", "jsonpath={.status.phase}"))

		// Over SPDY, as kubectl falls back to it; exit ends the
		// container, and restartPolicy Never ends the pod.
		cmd := k.cmd("attach", "-i", "console")
		cmd.Env = append(cmd.Env, "KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false")
		cmd.Stdin = strings.NewReader("echo two\nexit 4\n")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), stderr.String())
		assert.Equal(t, "two\n", stdout.String())
		k.ok("wait", "--for=jsonpath={.status.phase}=Failed", "pod/console", "--timeout=60s")
		assert.Equal(t, "4 Error", k.ok("get", "pod", "console", "-o",
			"jsonpath={.status.containerStatuses[0].state.terminated.exitCode} {.status.containerStatuses[0].state.terminated.reason}"))
	})
}
