package cluster

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// writeKind names a write of the trace by what it wrote: "pods/status",
// "events", "replicasets/status"... (the resource after the namespace,
// and the subresource, if any).
func writeKind(w stepper.Write) string {
	parts := strings.Split(strings.Trim(w.Path, "/"), "/")
	// /api/v1/namespaces/NS/RES[/NAME[/SUB]] or /apis/G/V/namespaces/...
	for i, p := range parts {
		if p == "namespaces" && i+2 < len(parts) {
			rest := parts[i+2:]
			kind := rest[0]
			if len(rest) == 3 {
				kind += "/" + rest[2]
			}
			return kind
		}
	}
	if len(parts) >= 3 {
		// cluster-scoped: /api/v1/RES[/NAME[/SUB]]
		i := 2
		if parts[0] == "apis" {
			i = 3
		}
		if i < len(parts) {
			kind := parts[i]
			if len(parts) == i+3 {
				kind += "/" + parts[i+2]
			}
			return kind
		}
	}
	return w.Path
}

// TestWritesPerPod counts the API writes that bring a ReplicaSet of 30
// pods to Running in step mode (3 nodes, the nodes' own heartbeats left
// out) and holds them under a bound, so that a change that writes more
// per pod fails here instead of slowing the live figures silently
// (docs/performance.md, "Writes per pod").
func TestWritesPerPod(t *testing.T) {
	const pods = 30
	c, err := New(Config{Mode: runmode.Step, Seed: 1, NodeCount: 3})
	require.NoError(t, err)
	defer c.Close()
	_, err = c.RunUntilStable(bg, stepper.Limits{})
	require.NoError(t, err)
	before := len(c.Trace())
	_, err = c.Client("test").ReplicaSets().Create(bg, rs("web", pods))
	require.NoError(t, err)
	_, err = c.RunUntilStable(bg, stepper.Limits{MaxSteps: 100000})
	require.NoError(t, err)
	require.Len(t, runningPods(t, c.Client("test"), "app=web"), pods)

	byKind := map[string]int{}
	total := 0
	for _, e := range c.Trace()[before:] {
		for _, w := range e.Writes {
			k := writeKind(w)
			if k == "leases" || k == "nodes/status" {
				continue // heartbeats: per node, not per pod
			}
			byKind[k]++
			total++
		}
	}
	var kinds []string
	for k, n := range byKind {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(kinds)
	perPod := float64(total) / pods
	t.Logf("%d writes for %d pods: %.2f per pod (%s)", total, pods, perPod, strings.Join(kinds, " "))

	// Each pod: its create, its binding, and two status writes by its
	// kubelet (ContainerCreating; Running and ready in one).
	assert.Equal(t, pods, byKind["pods"])
	assert.Equal(t, pods, byKind["pods/binding"])
	assert.Equal(t, 2*pods, byKind["pods/status"], "one status write per stage, not per condition")
	// Events: Scheduled and the kubelet's Pulling, Pulled, Created and
	// Started per pod (each pulls nginx:1.25: they start together,
	// before a first pull has put it on their node); the ReplicaSet's
	// SuccessfulCreate capped by the spam filter at 25 about one object
	// (client-go's burst); and a few creates tried again under another
	// name, which another component's recorder took at the same instant
	// of the fake clock.
	assert.LessOrEqual(t, byKind["events"], 5*pods+25+5, "events per pod")
	// The ReplicaSet writes its status at most once per sync, and the
	// queue merges the syncs of many pod events.
	assert.LessOrEqual(t, byKind["replicasets/status"], pods, "ReplicaSet status writes")
	// 10.83 per pod before the kubelet folded readiness into the Running
	// write and events were correlated like client-go's; 9.50 after;
	// 10.30 once images are pulled (Pulling and Pulled events).
	assert.LessOrEqual(t, perPod, 10.5, "writes per pod")
}
