package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// metricsExamples holds the metrics server's manifest and lab 14's
// Deployment.
var metricsExamples = filepath.Join("..", "..", "examples", "metrics-server")

// The metrics server behind its APIService, `kubectl top`, and
// `kubectl autoscale` scaling a Deployment as its pods' usage changes,
// all through the real kubectl.
func TestKubectlTopAndAutoscale(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "2", "--stage-delay", "20ms")
	k := newKubectl(t, s)

	// Before the metrics server is installed.
	_, errOut := k.run(true, "top", "nodes")
	assert.Contains(t, errOut, "error: Metrics API not available")

	out := k.ok("apply", "-f", filepath.Join(metricsExamples, "metrics-server.yaml"))
	assert.Contains(t, out, "apiservice.apiregistration.k8s.io/v1beta1.metrics.k8s.io created")
	k.ok("apply", "-f", filepath.Join(metricsExamples, "web.yaml"))
	// Running before the first scrape (its image takes a moment to
	// pull): until a scrape has seen the pods, kubectl top pods fails
	// ("metrics not available yet"), and the metrics server scrapes again
	// only after its resolution, 15 s.
	k.rolledOut("deployment/web")
	require.Eventually(t, func() bool {
		out, _ := k.run(false, "get", "apiservice", "v1beta1.metrics.k8s.io", "--no-headers")
		return regexpMatch(`^v1beta1\.metrics\.k8s\.io\s+kube-system/metrics-server\s+True\s`, out)
	}, 60*time.Second, 200*time.Millisecond)

	// kubectl top nodes: the node's own 50m and 256Mi plus its pods'.
	var top string
	require.Eventually(t, func() bool {
		top, _ = k.run(false, "top", "nodes")
		return regexpMatch(`(?m)^node-1\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%\s*$`, top) && regexpMatch(`(?m)^node-2\s`, top)
	}, 30*time.Second, 200*time.Millisecond, top)
	assert.Regexp(t, `(?m)^NAME\s+CPU\(cores\)\s+CPU\(%\)\s+MEMORY\(bytes\)\s+MEMORY\(%\)\s*$`, top)

	// kubectl top pods: each web pod uses what its annotation says.
	require.Eventually(t, func() bool {
		top, _ = k.run(false, "top", "pods", "-l", "app=web")
		return strings.Count(top, "50m") == 2
	}, 30*time.Second, 200*time.Millisecond, top)
	assert.Regexp(t, `(?m)^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*$`, top)
	assert.Regexp(t, `(?m)^web-[a-z0-9]+-[a-z0-9]{5}\s+50m\s+32Mi\s*$`, top)
	top = k.ok("top", "pods", "-A")
	assert.Regexp(t, `(?m)^NAMESPACE\s+NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*$`, top)
	assert.Regexp(t, `(?m)^kube-system\s+metrics-server-[a-z0-9]+-[a-z0-9]{5}\s+\d+m\s+\d+Mi\s*$`, top)
	top = k.ok("top", "pods", "-l", "app=web", "--containers")
	assert.Regexp(t, `(?m)^POD\s+NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*$`, top)
	assert.Regexp(t, `(?m)^web-[a-z0-9]+-[a-z0-9]{5}\s+web\s+50m\s+32Mi\s*$`, top)
	_, errOut = k.run(true, "top", "pod", "nope")
	assert.Contains(t, errOut, `podmetrics.metrics.k8s.io "default/nope" not found`)
	// The API itself, as the aggregator passes it on.
	raw := k.ok("get", "--raw", "/apis/metrics.k8s.io/v1beta1/nodes/node-1")
	assert.Contains(t, raw, `"kind":"NodeMetrics"`)
	assert.Contains(t, raw, `"window":"15s"`)

	// kubectl v1.32's autoscale creates an autoscaling/v1 HPA; kubectl
	// get reads it at v2.
	out = k.ok("autoscale", "deployment", "web", "--cpu-percent=50", "--min=2", "--max=6")
	assert.Equal(t, "horizontalpodautoscaler.autoscaling/web autoscaled\n", out)
	var hpa string
	require.Eventually(t, func() bool {
		hpa, _ = k.run(false, "get", "hpa")
		return regexpMatch(`(?m)^web\s+Deployment/web\s+cpu: 25%/50%\s+2\s+6\s+2\s+\d+s$`, hpa)
	}, 60*time.Second, 300*time.Millisecond, hpa)
	assert.Regexp(t, `(?m)^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$`, hpa)
	desc := k.ok("describe", "hpa", "web")
	assert.Regexp(t, `(?m)^Reference:\s+Deployment/web$`, desc)
	assert.Regexp(t, `(?m)^\s+resource cpu on pods\s+\(as a percentage of request\):\s+25% \(50m\) / 50%$`, desc)
	assert.Regexp(t, `(?m)^\s+ScalingActive\s+True\s+ValidMetricFound\s+the HPA was able to successfully calculate a replica count from cpu resource utilization \(percentage of request\)$`, desc)

	// Load rises: 2 → 6.
	k.ok("annotate", "pods", "-l", "app=web", "kubesim.io/usage=cpu=300m,memory=32Mi", "--overwrite")
	require.Eventually(t, func() bool {
		return k.jsonpath("deployment/web", "{.spec.replicas}") == "6"
	}, 90*time.Second, 300*time.Millisecond, k.ok("describe", "hpa", "web"))
	// Events are written behind the controller's back (the recorder's
	// goroutine, as client-go's broadcaster): wait for it.
	var events string
	require.Eventually(t, func() bool {
		events = k.ok("get", "events", "--field-selector", "involvedObject.kind=HorizontalPodAutoscaler")
		return strings.Contains(events, "New size: 6; reason: cpu resource utilization (percentage of request) above target")
	}, 30*time.Second, 300*time.Millisecond, events)
	assert.Regexp(t, `(?m)^\S+\s+Normal\s+SuccessfulRescale\s+horizontalpodautoscaler/web\s+New size: 4; reason: cpu resource utilization \(percentage of request\) above target$`, events,
		"an HPA without behavior at most doubles per sync: 2, 4, 6")
}
