package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// TestTerminationMessage runs the pods of the Container Runtime
// conformance specs ("blackbox test on terminated container",
// kubernetes/test/e2e/common/node/runtime.go): each checks the pod's
// phase and its container's terminated message with gomega.Equal.
func TestTerminationMessage(t *testing.T) {
	nonRoot := int64(1000)
	cases := []struct {
		name, args string
		path       string
		policy     corev1.TerminationMessagePolicy
		runAsUser  *int64
		phase      corev1.PodPhase
		message    string
	}{
		// "should report termination message if TerminationMessagePath is
		// set as non-root user and at a non-default path":
		// matchTerminationMessage(..., v1.PodSucceeded, gomega.Equal("DONE")).
		{name: "file at a non-default path", args: "/bin/echo -n DONE > /dev/termination-custom-log", path: "/dev/termination-custom-log",
			runAsUser: &nonRoot, phase: corev1.PodSucceeded, message: "DONE"},
		// "should report termination message from log output if
		// TerminationMessagePolicy FallbackToLogsOnError is set":
		// v1.PodFailed, gomega.Equal("DONE").
		{name: "log of a failed container", args: "/bin/echo -n DONE; /bin/false", policy: corev1.TerminationMessageFallbackToLogsOnError,
			phase: corev1.PodFailed, message: "DONE"},
		// "should report termination message as empty when pod succeeds
		// and TerminationMessagePolicy FallbackToLogsOnError is set":
		// v1.PodSucceeded, gomega.Equal("").
		{name: "no log for a container that succeeded", args: "/bin/echo -n DONE; /bin/true", policy: corev1.TerminationMessageFallbackToLogsOnError,
			phase: corev1.PodSucceeded, message: ""},
		// "should report termination message from file when pod succeeds
		// and TerminationMessagePolicy FallbackToLogsOnError is set":
		// v1.PodSucceeded, gomega.Equal("OK").
		{name: "the file before the log", args: "/bin/echo -n OK > /dev/termination-log; /bin/echo DONE; /bin/true",
			policy: corev1.TerminationMessageFallbackToLogsOnError, phase: corev1.PodSucceeded, message: "OK"},
		// A log that ends with its newline keeps it.
		{name: "the log's lines", args: "echo one; echo two; exit 3", policy: corev1.TerminationMessageFallbackToLogsOnError,
			phase: corev1.PodFailed, message: "one\ntwo\n"},
		// Without the fallback a failed container's log is not its message.
		{name: "no fallback", args: "echo one; exit 3", phase: corev1.PodFailed, message: ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Config{})
			f.createPod("termination", func(p *corev1.Pod) {
				p.Spec.RestartPolicy = corev1.RestartPolicyNever
				p.Spec.Containers = []corev1.Container{{Name: "termination-message-container", Image: "registry.k8s.io/e2e-test-images/busybox:1.36.1-1",
					Command: []string{"/bin/sh", "-c"}, Args: []string{c.args}, TerminationMessagePath: c.path, TerminationMessagePolicy: c.policy,
					SecurityContext: &corev1.SecurityContext{RunAsUser: c.runAsUser}}}
			})
			f.settle()
			f.until(f.clk.Now().Add(10 * time.Second))
			pod := f.pod("termination")
			assert.Equal(t, c.phase, pod.Status.Phase)
			require.Len(t, pod.Status.ContainerStatuses, 1)
			term := pod.Status.ContainerStatuses[0].State.Terminated
			require.NotNil(t, term)
			assert.Equal(t, c.message, term.Message)
		})
	}
}
