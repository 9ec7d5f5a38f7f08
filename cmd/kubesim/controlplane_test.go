package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// eventually polls a kubectl query until check passes.
func (k *kubectl) eventually(check func(out string) bool, args ...string) string {
	k.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var out string
	for time.Now().Before(deadline) {
		cmd := k.cmd(args...)
		b, _ := cmd.Output()
		out = string(b)
		if check(out) {
			return out
		}
		time.Sleep(100 * time.Millisecond)
	}
	k.t.Fatalf("kubectl %s never satisfied the check; last output:\n%s", strings.Join(args, " "), out)
	return out
}

// eventuallyFails runs a kubectl command until it fails with an error
// that passes check, and returns that error output. A run that succeeds,
// or fails otherwise, is tried again: the state it waits for may not have
// come yet.
func (k *kubectl) eventuallyFails(check func(errOut string) bool, args ...string) string {
	k.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var errOut string
	for time.Now().Before(deadline) {
		cmd := k.cmd(args...)
		var errb strings.Builder
		cmd.Stderr = &errb
		err := cmd.Run()
		errOut = errb.String()
		if err != nil && check(errOut) {
			return errOut
		}
		time.Sleep(100 * time.Millisecond)
	}
	k.t.Fatalf("kubectl %s never failed as expected; last error output:\n%s", strings.Join(args, " "), errOut)
	return errOut
}

func countLines(out string) int {
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// runningPods prints "name node" for each Running pod matching a selector.
func runningQuery(selector string) []string {
	return []string{"get", "pods", "-l", selector, "--field-selector", "status.phase=Running",
		"-o", `jsonpath={range .items[?(@.metadata.deletionTimestamp)]}{"T "}{end}{range .items[*]}{.metadata.name}{" "}{.spec.nodeName}{"\n"}{end}`}
}

func TestControlPlaneThroughKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "3", "--stage-delay", "20ms")
	k := newKubectl(t, s)

	k.eventually(func(out string) bool { return countLines(out) == 3 }, "get", "nodes", "--no-headers")
	out := k.ok("get", "nodes")
	assert.Regexp(t, `(?m)^node-1\s+Ready\s+<none>\s+\d+s\s+v1\.32\.0$`, out)

	t.Run("a ReplicaSet of 3 runs 3 pods on nodes", func(t *testing.T) {
		k.ok("apply", "-f", "testdata/web-rs.yaml")
		k.ok("wait", "--for=jsonpath={.status.readyReplicas}=3", "rs/web", "--timeout=60s")
		out := k.eventually(func(out string) bool { return countLines(out) == 3 }, runningQuery("app=web")...)
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			assert.Regexp(t, `^web-\w{5} node-\d$`, line)
		}
		table := k.ok("get", "rs", "web")
		assert.Regexp(t, `(?m)^web\s+3\s+3\s+3\s+\d+s$`, table)
	})
	t.Run("a deleted pod comes back", func(t *testing.T) {
		victim := strings.Fields(k.ok(runningQuery("app=web")...))[0]
		assert.Contains(t, k.ok("delete", "pod", victim), `pod "`+victim+`" deleted`)
		out := k.eventually(func(out string) bool {
			return countLines(out) == 3 && !strings.Contains(out, victim)
		}, runningQuery("app=web")...)
		assert.NotContains(t, out, victim)
		events := k.ok("get", "events", "--field-selector", "reason=SuccessfulCreate")
		assert.Contains(t, events, "Created pod: web-")
	})
	t.Run("scale to 5 and to 1", func(t *testing.T) {
		k.ok("scale", "rs/web", "--replicas=5")
		k.eventually(func(out string) bool { return countLines(out) == 5 }, runningQuery("app=web")...)
		k.ok("scale", "rs/web", "--replicas=1")
		k.eventually(func(out string) bool { return countLines(out) == 1 }, "get", "pods", "-l", "app=web", "--no-headers")
	})
	t.Run("deleting the ReplicaSet deletes its pods", func(t *testing.T) {
		k.ok("delete", "rs", "web")
		k.eventually(func(out string) bool { return countLines(out) == 0 }, "get", "pods", "-l", "app=web", "--no-headers")
	})
	t.Run("cascade=orphan keeps the pods", func(t *testing.T) {
		k.ok("apply", "-f", "testdata/web-rs.yaml")
		k.ok("wait", "--for=jsonpath={.status.readyReplicas}=3", "rs/web", "--timeout=60s")
		k.ok("delete", "rs", "web", "--cascade=orphan")
		k.eventually(func(out string) bool { return strings.Contains(out, "NotFound") || out == "" }, "get", "rs", "web", "--ignore-not-found")
		time.Sleep(300 * time.Millisecond)
		out := k.ok("get", "pods", "-l", "app=web", "-o", "jsonpath={range .items[*]}{.metadata.name}{\" \"}{.metadata.ownerReferences}{\"\\n\"}{end}")
		assert.Equal(t, 3, countLines(out), "three pods left: %q", out)
		assert.NotContains(t, out, "ReplicaSet", "the orphans lost their owner reference")
		k.ok("delete", "pods", "-l", "app=web")
	})
	t.Run("a Deployment rolls to a new image", func(t *testing.T) {
		k.ok("apply", "-f", "testdata/web-deploy.yaml")
		assert.Contains(t, k.ok("rollout", "status", "deploy/shop", "--timeout=60s"), `deployment "shop" successfully rolled out`)
		k.ok("set", "image", "deploy/shop", "shop=nginx:1.26")
		assert.Contains(t, k.ok("rollout", "status", "deploy/shop", "--timeout=60s"), `deployment "shop" successfully rolled out`)
		images := k.ok("get", "pods", "-l", "app=shop", "--field-selector", "status.phase=Running", "-o", "jsonpath={.items[*].spec.containers[0].image}")
		for _, img := range strings.Fields(images) {
			assert.Equal(t, "nginx:1.26", img)
		}
		rss := k.ok("get", "rs", "-l", "app=shop", "-o", "jsonpath={range .items[*]}{.spec.replicas}{\" \"}{.metadata.annotations.deployment\\.kubernetes\\.io/revision}{\"\\n\"}{end}")
		assert.ElementsMatch(t, []string{"0 1", "4 2"}, strings.Split(strings.TrimSpace(rss), "\n"))
		k.ok("rollout", "undo", "deploy/shop")
		assert.Contains(t, k.ok("rollout", "status", "deploy/shop", "--timeout=60s"), "successfully rolled out")
		assert.Equal(t, "nginx:1.25", k.ok("get", "deploy", "shop", "-o", "jsonpath={.spec.template.spec.containers[0].image}"))
		assert.Regexp(t, `(?m)^shop\s+4/4\s+4\s+4\s+\d+s$`, k.ok("get", "deploy", "shop"))
	})
	t.Run("a pod too big for every node stays Pending", func(t *testing.T) {
		k.ok("apply", "-f", "testdata/big-pod.yaml")
		out := k.eventually(func(out string) bool { return strings.Contains(out, "FailedScheduling") },
			"get", "events", "--field-selector", "involvedObject.name=big")
		assert.Contains(t, out, "0/3 nodes are available: 3 Insufficient cpu.")
		assert.Regexp(t, `(?m)^big\s+0/1\s+Pending\s+0\s+`, k.ok("get", "pod", "big"))
		assert.Contains(t, k.ok("describe", "pod", "big"), "0/3 nodes are available: 3 Insufficient cpu.")
	})
}
