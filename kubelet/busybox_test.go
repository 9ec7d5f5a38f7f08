package kubelet

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// TestKubeletBusyboxSpecs runs the pods of the Kubelet conformance specs
// (kubernetes/test/e2e/common/node/kubelet.go), on the suite's busybox
// image, and checks what each compares.
func TestKubeletBusyboxSpecs(t *testing.T) {
	yes := true
	cases := []struct {
		name    string
		command []string
		sc      *corev1.SecurityContext
		// log is the container's whole log; code its exit code once
		// terminated (-1: still running).
		log  string
		code int32
	}{
		// "should print the output to logs": the log
		// gomega.Equal("Hello World\n") while it sleeps.
		{name: "print the output to logs", command: []string{"sh", "-c", "echo 'Hello World' ; sleep 240"}, log: "Hello World\n", code: -1},
		// "should not write to root filesystem": readOnlyRootFilesystem,
		// gomega.Equal("/bin/sh: can't create /file: Read-only file system\n").
		{name: "read-only root filesystem", command: []string{"/bin/sh", "-c", "echo test > /file; sleep 240"},
			sc: &corev1.SecurityContext{ReadOnlyRootFilesystem: &yes}, log: "/bin/sh: can't create /file: Read-only file system\n", code: -1},
		// "should have an terminated reason": /bin/false terminates with a
		// non-zero exit code and a reason.
		{name: "a command that always fails", command: []string{"/bin/false"}, code: 1},
		// The termination message file stays writable under a read-only
		// root (the kubelet mounts it).
		{name: "termination log under a read-only root", command: []string{"/bin/sh", "-c", "echo -n bye > /dev/termination-log"},
			sc: &corev1.SecurityContext{ReadOnlyRootFilesystem: &yes}, code: 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Config{})
			f.createPod("busybox", func(p *corev1.Pod) {
				p.Spec.RestartPolicy = corev1.RestartPolicyNever
				p.Spec.Containers = []corev1.Container{{Name: "busybox", Image: "registry.k8s.io/e2e-test-images/busybox:1.36.1-1",
					Command: c.command, SecurityContext: c.sc}}
			})
			f.settle()
			f.until(f.clk.Now().Add(10 * time.Second))
			pod := f.pod("busybox")
			require.Len(t, pod.Status.ContainerStatuses, 1)
			st := pod.Status.ContainerStatuses[0].State
			if c.code < 0 {
				assert.NotNil(t, st.Running, "still running")
			} else if assert.NotNil(t, st.Terminated) {
				assert.Equal(t, c.code, st.Terminated.ExitCode)
				assert.NotEmpty(t, st.Terminated.Reason)
			}
			var logs bytes.Buffer
			require.NoError(t, f.k.ContainerLogs(f.ctx, "default", "busybox", "busybox", LogOptions{}, &logs))
			assert.Equal(t, c.log, logs.String())
		})
	}
}
