package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// kubernetes.io's liveness-exec tutorial, its commands as written: the
// probe (cat /tmp/healthy every 5 seconds) succeeds for 30 seconds, then
// fails three times in a row (failureThreshold's default) and the kubelet
// kills the container and starts it again at once: RESTARTS 1. The other
// direction: a container whose file stays is never restarted.
func TestLivenessExecTutorial(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "1", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.ok("apply", "-f", "testdata/exec-liveness.yaml")
	k.ok("run", "healthy", "--image=busybox", "--overrides", `{"spec":{"containers":[{"name":"healthy","image":"busybox",
		"args":["/bin/sh","-c","touch /tmp/healthy; sleep 600"],
		"livenessProbe":{"exec":{"command":["cat","/tmp/healthy"]},"initialDelaySeconds":5,"periodSeconds":5}}]}}`)
	k.ok("wait", "--for=condition=Ready", "pod/liveness-exec", "pod/healthy", "--timeout=60s")

	// Within 30 seconds: no probe has failed.
	desc := k.ok("describe", "pod", "liveness-exec")
	assert.Regexp(t, `(?m)^\s+Liveness:\s+exec \[cat /tmp/healthy\] delay=5s timeout=1s period=5s #success=1 #failure=3$`, desc)
	assert.NotContains(t, desc, "Unhealthy")
	assert.Regexp(t, `(?m)^\s+Normal\s+Started\s+.*Started container liveness$`, desc)

	// After 35 seconds: the failures, then the kill.
	desc = k.eventually(func(out string) bool { return strings.Contains(out, "failed liveness probe, will be restarted") },
		"describe", "pod", "liveness-exec")
	assert.Regexp(t, `(?m)^\s+Warning\s+Unhealthy\s+\S+ \(x3 over \S+\)\s+kubelet\s+Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory$`, desc)
	assert.Regexp(t, `(?m)^\s+Normal\s+Killing\s+\S+\s+kubelet\s+Container liveness failed liveness probe, will be restarted$`, desc)
	assert.Regexp(t, `(?m)^\s+Last State:\s+Terminated$`, desc)
	assert.Regexp(t, `(?m)^\s+Exit Code:\s+137$`, desc)

	// The first restart is at once: running again, RESTARTS 1.
	running := regexp.MustCompile(`(?m)^liveness-exec\s+1/1\s+Running\s+1 \(\d+s ago\)\s+\d+s$`)
	out := k.eventually(running.MatchString, "get", "pod", "liveness-exec")
	assert.Regexp(t, `^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n`, out)
	assert.Equal(t, "1", k.ok("get", "pod", "liveness-exec", "-o", "jsonpath={.status.containerStatuses[0].restartCount}"), "once, at once")

	out = k.ok("get", "pod", "healthy", "-o", "jsonpath={.status.containerStatuses[0].restartCount} {.status.phase}")
	assert.Equal(t, "0 Running", out, "its file is still there: never killed")
	assert.NotContains(t, k.ok("describe", "pod", "healthy"), "Unhealthy")
}
