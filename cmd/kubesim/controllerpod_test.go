package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The StatefulSet controller as a pod of the image
// kubesim/controller:statefulset: it works while its pod runs, stands
// still while no pod runs, and the ReplicaSet brings it back.
func TestControllerAsAPod(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "2", "--stage-delay", "20ms", "--controllers", "*,-statefulset")
	k := newKubectl(t, s)
	ctrlPods := []string{"get", "pods", "-n", "kube-system", "-l", "app=statefulset-controller", "--no-headers"}
	running := func(out string) bool { return countLines(out) == 1 && strings.Contains(out, " Running ") }

	// No controller yet: a StatefulSet makes no pods.
	k.ok("apply", "-f", "testdata/web-sts.yaml")
	time.Sleep(time.Second)
	assert.Equal(t, 0, countLines(k.ok(stsPods...)), "no StatefulSet controller runs")

	k.ok("apply", "-f", filepath.Join("..", "..", "examples", "operators", "statefulset-controller.yaml"))
	k.eventually(running, ctrlPods...)
	out := k.eventually(func(out string) bool { return countLines(out) == 3 }, stsPods...)
	assert.Equal(t, "web-0 web-0 nginx\nweb-1 web-1 nginx\nweb-2 web-2 nginx", strings.TrimSpace(out))

	// Scaled to zero, the controller's pod is gone and so is the
	// controller: a scale-up of the StatefulSet waits.
	k.ok("scale", "-n", "kube-system", "deployment/statefulset-controller", "--replicas=0")
	k.eventually(func(out string) bool { return countLines(out) == 0 }, ctrlPods...)
	k.ok("scale", "statefulset/web", "--replicas=4")
	time.Sleep(time.Second)
	assert.Equal(t, 3, countLines(k.ok(stsPods...)), "the controller stopped with its pod")
	k.ok("scale", "-n", "kube-system", "deployment/statefulset-controller", "--replicas=1")
	k.eventually(func(out string) bool { return countLines(out) == 4 }, stsPods...)

	// Deleting the pod stops the controller; the ReplicaSet's new pod
	// runs it again.
	old := strings.Fields(k.eventually(running, ctrlPods...))[0]
	k.ok("delete", "pod", "-n", "kube-system", old)
	out = k.eventually(func(out string) bool { return running(out) && !strings.HasPrefix(out, old+" ") }, ctrlPods...)
	require.NotEmpty(t, out)
	k.ok("scale", "statefulset/web", "--replicas=2")
	k.eventually(func(out string) bool { return countLines(out) == 2 }, stsPods...)
}
