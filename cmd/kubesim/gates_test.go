package main

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Scheduling gates and readiness gates as kubectl shows them: a gated pod
// is SchedulingGated until its gate is removed (a gate may not be added),
// and a pod with a readiness gate is Running but not Ready, "0/1" in
// READINESS GATES, until a controller sets the gate's condition.
func TestGatesThroughKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "1", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.eventually(func(out string) bool { return countLines(out) == 1 }, "get", "nodes", "--no-headers")

	t.Run("schedulingGates", func(t *testing.T) {
		k.ok("apply", "-f", "testdata/gated-pod.yaml")
		assert.Regexp(t, `(?m)^gated\s+0/1\s+SchedulingGated\s+0\s+\d+s$`, k.ok("get", "pod", "gated"))
		assert.Equal(t, "False SchedulingGated Scheduling is blocked due to non-empty scheduling gates",
			k.ok("get", "pod", "gated", "-o", `jsonpath={.status.conditions[?(@.type=="PodScheduled")].status} {.status.conditions[?(@.type=="PodScheduled")].reason} {.status.conditions[?(@.type=="PodScheduled")].message}`))
		errOut := k.fail("patch", "pod", "gated", "--type=json", "-p", `[{"op":"add","path":"/spec/schedulingGates/-","value":{"name":"example.com/more"}}]`)
		assert.Contains(t, errOut, "spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/more'")
		assert.Equal(t, "pod/gated patched\n", k.ok("patch", "pod", "gated", "--type=json", "-p", `[{"op":"remove","path":"/spec/schedulingGates"}]`))
		k.eventually(func(out string) bool { return regexp.MustCompile(`(?m)^gated\s+1/1\s+Running\s`).MatchString(out) }, "get", "pod", "gated")
	})

	t.Run("readinessGates", func(t *testing.T) {
		k.ok("apply", "-f", "testdata/readiness-gate-pod.yaml")
		out := k.eventually(func(out string) bool { return regexp.MustCompile(`(?m)^behind-lb\s+1/1\s+Running\s`).MatchString(out) },
			"get", "pod", "behind-lb", "-o", "wide")
		assert.Regexp(t, `(?m)^behind-lb\s+1/1\s+Running\s+0\s+\S+\s+\S+\s+node-1\s+<none>\s+0/1$`, out)
		assert.Equal(t, `False ReadinessGatesNotReady corresponding condition of pod readiness gate "example.com/load-balancer-ready" does not exist.`,
			k.ok("get", "pod", "behind-lb", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="Ready")].reason} {.status.conditions[?(@.type=="Ready")].message}`))
		// What a load balancer's controller does once the pod is in.
		k.ok("patch", "pod", "behind-lb", "--subresource=status", "-p", `{"status":{"conditions":[{"type":"example.com/load-balancer-ready","status":"True"}]}}`)
		k.eventually(func(out string) bool { return out == "True" }, "get", "pod", "behind-lb", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		assert.Regexp(t, `(?m)^behind-lb\s+1/1\s+Running\s+0\s+\S+\s+\S+\s+node-1\s+<none>\s+1/1$`, k.ok("get", "pod", "behind-lb", "-o", "wide"))
	})
}
