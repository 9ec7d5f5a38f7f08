package kubelet

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/kubelet/shell"
)

func TestInteractive(t *testing.T) {
	for _, tc := range []struct {
		name  string
		c     corev1.Container
		shell bool
	}{
		{"kubectl run -it -- sh", corev1.Container{Image: "busybox", Args: []string{"sh"}, Stdin: true}, true},
		{"shell image, no command", corev1.Container{Image: "alpine:3.20", Stdin: true}, true},
		{"bash -i", corev1.Container{Image: "ubuntu", Command: []string{"/bin/bash", "-i"}, Stdin: true}, true},
		{"no stdin", corev1.Container{Image: "busybox", Args: []string{"sh"}}, false},
		{"a script", corev1.Container{Image: "busybox", Command: []string{"sh", "-c", "echo hi"}, Stdin: true}, false},
		{"a script that reads", corev1.Container{Image: "busybox", Command: []string{"sh", "-c", "read name; echo hi $name"}, Stdin: true}, true},
		{"a script that cats stdin", corev1.Container{Image: "busybox", Command: []string{"sh", "-c", "cat | wc -l"}, Stdin: true}, true},
		{"cat", corev1.Container{Image: "busybox", Args: []string{"cat"}, Stdin: true}, true},
		{"cat a file", corev1.Container{Image: "busybox", Args: []string{"cat", "/etc/hostname"}, Stdin: true}, false},
		{"grep a pattern", corev1.Container{Image: "busybox", Args: []string{"grep", "-i", "x"}, Stdin: true}, true},
		{"wget", corev1.Container{Image: "busybox", Args: []string{"wget", "-qO-", "http://web"}, Stdin: true}, false},
		{"a server", corev1.Container{Image: "nginx", Stdin: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.shell, interactive(&corev1.Pod{}, &tc.c))
		})
	}
}

// The debug pod of the tutorials: the shell waits for input, an attached
// session runs typed lines, and its exit is the container's.
func TestAttachedShellEndsTheContainer(t *testing.T) {
	for _, tc := range []struct {
		name      string
		stdinOnce bool
		input     string
		out       string
		// exitCode is the container's code, or -1 when it runs on.
		exitCode int32
		// args is the container's argv (sh by default).
		args []string
	}{
		{"exit with a code", true, "echo hi $HOSTNAME\nexit 3\n", "hi dbg\n", 3, nil},
		{"stdin closed, stdinOnce", true, "true\n", "", 0, nil},
		{"stdin closed, kept open by the runtime", false, "echo still here\n", "still here\n", -1, nil},
		{"exit without stdinOnce", false, "false\nexit\n", "", 1, nil},
		{"a script reads its stdin", true, "Ada\n", "hello Ada\n", 0, []string{"sh", "-c", "read name; echo hello $name"}},
		{"cat copies its stdin", true, "one\ntwo\n", "one\ntwo\n", 0, []string{"cat"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Config{})
			f.createPod("dbg", func(p *corev1.Pod) {
				p.Spec.RestartPolicy = corev1.RestartPolicyNever
				args := tc.args
				if args == nil {
					args = []string{"sh"}
				}
				p.Spec.Containers = []corev1.Container{{Name: "dbg", Image: "busybox", Args: args, Stdin: true, StdinOnce: tc.stdinOnce}}
			})
			f.settle()
			for f.pod("dbg").Status.Phase != corev1.PodRunning {
				f.next()
			}
			var out strings.Builder
			require.NoError(t, f.k.Attach(f.ctx, "default", "dbg", "dbg", shell.Stdio{Stdin: strings.NewReader(tc.input), Stdout: &out}))
			assert.Equal(t, tc.out, out.String())
			f.settle()
			// What the session printed is in the container's log.
			var logs strings.Builder
			require.NoError(t, f.k.ContainerLogs(f.ctx, "default", "dbg", "dbg", LogOptions{}, &logs))
			assert.Equal(t, tc.out, logs.String())
			st := f.pod("dbg").Status.ContainerStatuses[0].State
			if tc.exitCode < 0 {
				assert.NotNil(t, st.Running)
				return
			}
			require.NotNil(t, st.Terminated)
			assert.Equal(t, tc.exitCode, st.Terminated.ExitCode)
		})
	}
}
