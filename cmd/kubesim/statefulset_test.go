package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stsPods prints "name hostname subdomain" for each Running pod of app=nginx.
var stsPods = []string{"get", "pods", "-l", "app=nginx", "--field-selector", "status.phase=Running",
	"-o", `jsonpath={range .items[*]}{.metadata.name}{" "}{.spec.hostname}{" "}{.spec.subdomain}{"\n"}{end}`}

// exerciseStatefulSet is the kubectl story of a StatefulSet, whichever
// process runs its controller.
func exerciseStatefulSet(t *testing.T, k *kubectl) {
	k.ok("apply", "-f", "testdata/web-sts.yaml")
	k.ok("rollout", "status", "statefulset/web", "--timeout=60s")
	out := k.eventually(func(out string) bool { return countLines(out) == 3 }, stsPods...)
	assert.Equal(t, "web-0 web-0 nginx\nweb-1 web-1 nginx\nweb-2 web-2 nginx", strings.TrimSpace(out))
	assert.Regexp(t, `(?m)^web\s+3/3\s+\d+s$`, k.ok("get", "statefulset", "web"))
	assert.Contains(t, k.ok("describe", "statefulset", "web"), "create Pod web-0 in StatefulSet web successful")

	// A deleted pod comes back with the same name.
	uid := k.ok("get", "pod", "web-1", "-o", "jsonpath={.metadata.uid}")
	// --wait=false: kubectl waits for a DELETED event, and kubesim's
	// kubelet (no stop delay) and StatefulSet controller can delete and
	// recreate web-1 between kubectl's GET and its list, after which no
	// such event comes (the same race exists against a real cluster).
	k.ok("delete", "pod", "web-1", "--wait=false")
	k.eventually(func(out string) bool {
		f := strings.Fields(out)
		return len(f) == 2 && f[0] != uid && f[1] == "Running"
	}, "get", "pod", "web-1", "-o", "jsonpath={.metadata.uid} {.status.phase}")

	// Scale down from the highest ordinal.
	k.ok("scale", "statefulset/web", "--replicas=1")
	out = k.eventually(func(out string) bool { return countLines(out) == 1 }, "get", "pods", "-l", "app=nginx", "--no-headers")
	assert.True(t, strings.HasPrefix(out, "web-0 "), out)
	k.ok("wait", "--for=jsonpath={.status.replicas}=1", "statefulset/web", "--timeout=60s")
	assert.Contains(t, k.ok("get", "events", "--field-selector", "reason=SuccessfulDelete"), "delete Pod web-2 in StatefulSet web successful")

	k.ok("delete", "statefulset", "web")
	k.eventually(func(out string) bool { return countLines(out) == 0 }, "get", "pods", "-l", "app=nginx", "--no-headers")
}

func TestStatefulSetThroughKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "3", "--stage-delay", "20ms")
	exerciseStatefulSet(t, newKubectl(t, s))
}

// The same controller as its own process: the control plane runs without
// it, and `kubesim run-controller statefulset` (this test binary run again
// as kubesim) reaches the API server through the kubeconfig, over HTTPS
// with a token.
func TestStatefulSetControllerAsItsOwnProcess(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "2", "--stage-delay", "20ms", "--controllers", "*,-statefulset")
	k := newKubectl(t, s)
	startControllerProcess(t, "statefulset", s.kubeconfig)
	exerciseStatefulSet(t, k)
}

// startControllerProcess runs `kubesim run-controller NAME` in a child
// process until the test ends.
func startControllerProcess(t *testing.T, name, kubeconfig string, flags ...string) {
	t.Helper()
	line, _ := startKubesimProcess(t, append([]string{"run-controller", name, "--kubeconfig", kubeconfig}, flags...)...)
	require.Equal(t, "controller "+name+" running; stop with Ctrl-C", line)
}
