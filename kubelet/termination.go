package kubelet

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// A terminated container's message, as the kubelet reads it
// (kubernetes/pkg/kubelet/kuberuntime's determineEffectiveMessage): what
// the container wrote to its terminationMessagePath
// (/dev/termination-log), at most 4096 bytes; with the policy
// FallbackToLogsOnError, a container that failed and wrote nothing there
// gets the end of its log instead (its last 80 lines, at most 2048
// bytes). A container that succeeded keeps an empty message.

const (
	// maxTerminationMessage bounds the file's part of the message
	// (kubecontainer.MaxContainerTerminationMessageLength).
	maxTerminationMessage = 4096
	// fallbackLines and fallbackBytes bound the log's part
	// (kubecontainer.MaxContainerTerminationMessageLogLines and ...Length).
	fallbackLines = 80
	fallbackBytes = 2048
)

// terminationMessage is the message of container c ending with code, as
// its timeline tl played it out.
func terminationMessage(c *corev1.Container, tl timeline, code int32) string {
	if msg := tl.terminationFile; msg != "" {
		if len(msg) > maxTerminationMessage {
			msg = msg[len(msg)-maxTerminationMessage:]
		}
		return msg
	}
	if c == nil || c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError || code == 0 {
		return ""
	}
	lines := tl.lines
	if tl.exits {
		lines = tl.linesUpTo(tl.exitAfter, fallbackLines)
	}
	lines = lines[max(len(lines)-fallbackLines, 0):]
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l.text)
		if i < len(lines)-1 || !tl.unterminated {
			b.WriteByte('\n')
		}
	}
	msg := b.String()
	if len(msg) > fallbackBytes {
		msg = msg[len(msg)-fallbackBytes:]
	}
	return msg
}
