package kubelet

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/kubelet/shell"
)

func TestInteractive(t *testing.T) {
	for _, tc := range []struct {
		name  string
		c     api.Container
		shell bool
	}{
		{"kubectl run -it -- sh", api.Container{Image: "busybox", Args: []string{"sh"}, Stdin: true}, true},
		{"shell image, no command", api.Container{Image: "alpine:3.20", Stdin: true}, true},
		{"bash -i", api.Container{Image: "ubuntu", Command: []string{"/bin/bash", "-i"}, Stdin: true}, true},
		{"no stdin", api.Container{Image: "busybox", Args: []string{"sh"}}, false},
		{"a script", api.Container{Image: "busybox", Command: []string{"sh", "-c", "echo hi"}, Stdin: true}, false},
		{"a server", api.Container{Image: "nginx", Stdin: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.shell, interactive(&api.Pod{}, &tc.c))
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
	}{
		{"exit with a code", true, "echo hi $HOSTNAME\nexit 3\n", "hi dbg\n", 3},
		{"stdin closed, stdinOnce", true, "true\n", "", 0},
		{"stdin closed, kept open by the runtime", false, "echo still here\n", "still here\n", -1},
		{"exit without stdinOnce", false, "false\nexit\n", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Config{})
			f.createPod("dbg", func(p *api.Pod) {
				p.Spec.RestartPolicy = api.RestartPolicyNever
				p.Spec.Containers = []api.Container{{Name: "dbg", Image: "busybox", Args: []string{"sh"}, Stdin: true, StdinOnce: tc.stdinOnce}}
			})
			f.settle()
			for f.pod("dbg").Status.Phase != api.PodRunning {
				f.next()
			}
			var out strings.Builder
			require.NoError(t, f.k.Attach(f.ctx, "default", "dbg", "dbg", shell.Stdio{Stdin: strings.NewReader(tc.input), Stdout: &out}))
			assert.Equal(t, tc.out, out.String())
			f.settle()
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
