package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const agentDaemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels:
      app: agent
  template:
    metadata:
      labels:
        app: agent
    spec:
      containers:
      - name: agent
        image: fluent/fluent-bit:3.0
`

// TestKubectlDaemonSet: a DaemonSet through kubectl — its table, rollout
// status, history, undo and restart on the ControllerRevisions the
// DaemonSet controller keeps, and the pods following the nodes.
func TestKubectlDaemonSet(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "3", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.eventually(func(out string) bool { return countLines(out) == 3 }, "get", "nodes", "--no-headers")

	assert.Regexp(t, `(?m)^daemonsets\s+ds\s+apps/v1\s+true\s+DaemonSet$`, k.ok("api-resources", "--api-group=apps"))
	assert.Contains(t, k.fail("apply", "-f", writeFile(t, "bad.yaml", strings.Replace(agentDaemonSet, "  selector:", `  updateStrategy:
    rollingUpdate: {maxUnavailable: 0, maxSurge: 0}
  selector:`, 1))), `The DaemonSet "agent" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0`)

	k.ok("apply", "-f", writeFile(t, "ds.yaml", agentDaemonSet))
	assert.Contains(t, k.ok("rollout", "status", "ds/agent", "--timeout=90s"), "daemon set \"agent\" successfully rolled out\n")
	out := k.ok("get", "ds")
	assert.Regexp(t, `(?m)^NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE$`, out)
	assert.Regexp(t, `(?m)^agent\s+3\s+3\s+3\s+3\s+3\s+<none>\s+\d+s$`, out)
	assert.Regexp(t, `(?m)^daemonset.apps/agent\s+3\s+3\s+3\s+3\s+3\s+<none>\s+\d+s$`, k.ok("get", "all"))
	k.eventually(func(out string) bool { return out == "node-1 node-2 node-3 " },
		"get", "pods", "-l", "app=agent", "--sort-by=.spec.nodeName", "-o", `jsonpath={range .items[*]}{.spec.nodeName}{" "}{end}`)
	desc := k.ok("describe", "ds", "agent")
	assert.Regexp(t, `Desired Number of Nodes Scheduled: 3\n`, desc)
	assert.Regexp(t, `Pods Status:\s+3 Running / 0 Waiting / 0 Succeeded / 0 Failed`, desc)
	assert.Regexp(t, `Normal\s+SuccessfulCreate\s+.*daemonset-controller\s+Created pod: agent-`, desc)
	// Each pod is pinned to its node by a matchFields node affinity.
	assert.Equal(t, "metadata.name", k.jsonpath("pods", "{.items[0].spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key}", "-l", "app=agent"))
	rev1 := k.jsonpath("controllerrevisions", "{.items[0].metadata.name}", "-l", "app=agent")
	assert.Regexp(t, `(?m)^`+rev1+`\s+daemonset.apps/agent\s+1\s+`, k.ok("get", "controllerrevisions"))

	// A new image, with its change cause, rolls out node by node.
	k.ok("annotate", "ds", "agent", "kubernetes.io/change-cause=upgrade to 3.1")
	assert.Equal(t, "daemonset.apps/agent image updated\n", k.ok("set", "image", "ds/agent", "agent=fluent/fluent-bit:3.1"))
	assert.Contains(t, k.ok("rollout", "status", "ds/agent", "--timeout=90s"), "daemon set \"agent\" successfully rolled out")
	assert.Equal(t, "daemonset.apps/agent \nREVISION  CHANGE-CAUSE\n1         <none>\n2         upgrade to 3.1\n\n", k.ok("rollout", "history", "ds/agent"))
	assert.Contains(t, k.ok("rollout", "history", "daemonset/agent", "--revision=1"), "Image:\tfluent/fluent-bit:3.0")
	assert.Contains(t, k.ok("rollout", "history", "daemonset/agent", "--revision=2"), "Image:\tfluent/fluent-bit:3.1")

	// undo goes back to revision 1, which comes back as revision 3.
	assert.Equal(t, "daemonset.apps/agent rolled back\n", k.ok("rollout", "undo", "ds/agent"))
	k.ok("rollout", "status", "ds/agent", "--timeout=90s")
	assert.Equal(t, "fluent/fluent-bit:3.0", k.jsonpath("ds/agent", "{.spec.template.spec.containers[0].image}"))
	k.eventually(func(out string) bool {
		return out == "fluent/fluent-bit:3.0 fluent/fluent-bit:3.0 fluent/fluent-bit:3.0 "
	},
		"get", "pods", "-l", "app=agent", "--field-selector=status.phase=Running", "-o", `jsonpath={range .items[*]}{.spec.containers[0].image}{" "}{end}`)
	assert.Regexp(t, `(?m)^`+rev1+`\s+daemonset.apps/agent\s+3\s+`, k.ok("get", "controllerrevisions"))
	assert.Equal(t, "daemonset.apps/agent skipped rollback (current template already matches revision 3)\n",
		k.ok("rollout", "undo", "ds/agent", "--to-revision=3"))
	assert.Equal(t, "daemonset.apps/agent rolled back\n", k.ok("rollout", "undo", "ds/agent", "--to-revision=2"))
	k.ok("rollout", "status", "ds/agent", "--timeout=90s")
	assert.Equal(t, "fluent/fluent-bit:3.1", k.jsonpath("ds/agent", "{.spec.template.spec.containers[0].image}"))
	assert.Contains(t, k.fail("rollout", "undo", "ds/agent", "--to-revision=7"), "unable to find specified revision 7 in history")

	// restart stamps the template: a third revision.
	assert.Equal(t, "daemonset.apps/agent restarted\n", k.ok("rollout", "restart", "ds/agent"))
	k.ok("rollout", "status", "ds/agent", "--timeout=90s")
	assert.Equal(t, 3, countLines(k.ok("get", "controllerrevisions", "-l", "app=agent", "-o", "name")))

	// A node tainted NoExecute loses its daemon; the taint gone, it gets one back.
	k.ok("taint", "node", "node-2", "maintenance=true:NoExecute")
	k.eventually(func(out string) bool { return !strings.Contains(out, "node-2") && countLines(out) == 2 },
		"get", "pods", "-l", "app=agent", "--field-selector=status.phase=Running", "-o", "custom-columns=NODE:.spec.nodeName", "--no-headers")
	k.eventually(func(out string) bool { return out == "2 2" }, "get", "ds", "agent", "-o", "jsonpath={.status.desiredNumberScheduled} {.status.numberReady}")
	k.ok("taint", "node", "node-2", "maintenance=true:NoExecute-")
	k.ok("rollout", "status", "ds/agent", "--timeout=90s")
	k.eventually(func(out string) bool { return out == "3 3" }, "get", "ds", "agent", "-o", "jsonpath={.status.desiredNumberScheduled} {.status.numberReady}")

	// Deleting the set collects its pods and revisions.
	k.ok("delete", "ds", "agent")
	k.eventually(func(out string) bool { return strings.TrimSpace(out) == "" }, "get", "pods,controllerrevisions", "-l", "app=agent", "-o", "name")
	require.NotEmpty(t, rev1)
}
