package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Through the real kubectl: PodDisruptionBudgets that
// `kubectl drain` respects, ResourceQuota and LimitRange admission,
// PriorityClasses, EndpointSlices, and their imperative creates and
// describers.

func TestKubectlDrainRespectsDisruptionBudget(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "2", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.eventually(func(out string) bool { return countLines(out) == 2 }, "get", "nodes", "--no-headers")
	k.ok("apply", "-f", writeFile(t, "web.yaml", webDeployment))
	k.rolledOut("deployment/web")

	assert.Equal(t, "poddisruptionbudget.policy/web created\n",
		k.ok("create", "poddisruptionbudget", "web", "--selector=app=web", "--min-available=2"))
	// The disruption controller computes the budget: 2 healthy, 2 needed.
	k.eventually(func(out string) bool { return out == "2 2 2 0" }, "get", "pdb", "web", "-o",
		`jsonpath={.status.currentHealthy} {.status.desiredHealthy} {.status.expectedPods} {.status.disruptionsAllowed}`)
	out := k.ok("get", "pdb")
	assert.Regexp(t, `^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\nweb\s+2\s+N/A\s+0\s+`, out)
	assert.Equal(t, "False InsufficientPods", k.jsonpath("pdb/web", `{.status.conditions[?(@.type=="DisruptionAllowed")].status} {.status.conditions[?(@.type=="DisruptionAllowed")].reason}`))

	node := strings.Fields(k.jsonpath("pods", `{.items[0].spec.nodeName}`, "-l", "app=web"))[0]
	// Drain retries the 429 until its timeout, then gives up.
	_, errOut := k.run(true, "drain", node, "--ignore-daemonsets", "--timeout=8s")
	assert.Contains(t, errOut, "Cannot evict pod as it would violate the pod's disruption budget.")
	assert.Equal(t, "2", strings.TrimSpace(k.jsonpath("deployment/web", "{.status.readyReplicas}")), "nothing was evicted")

	// Allow one pod down at a time: the drain evicts them one by one as
	// the replacements become ready on the other node.
	k.ok("patch", "pdb", "web", "--type=json", `-p=[{"op":"remove","path":"/spec/minAvailable"},{"op":"add","path":"/spec/maxUnavailable","value":1}]`)
	k.eventually(func(out string) bool { return out == "1" }, "get", "pdb", "web", "-o", "jsonpath={.status.disruptionsAllowed}")
	drained := k.ok("drain", node, "--ignore-daemonsets", "--timeout=90s")
	assert.Contains(t, drained, "node/"+node+" drained")
	k.eventually(func(out string) bool {
		nodes := strings.Fields(out)
		return len(nodes) == 2 && nodes[0] != node && nodes[1] != node
	}, "get", "pods", "-l", "app=web", "--field-selector=status.phase=Running", "-o", "jsonpath={.items[*].spec.nodeName}")
}

func TestKubectlQuotaAndLimitRange(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "1", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.eventually(func(out string) bool { return countLines(out) == 1 }, "get", "nodes", "--no-headers")

	assert.Equal(t, "resourcequota/q created\n", k.ok("create", "quota", "q", "--hard=pods=2,limits.cpu=1,configmaps=10"))
	k.eventually(func(out string) bool { return strings.Contains(out, "pods: 0/2") }, "get", "quota", "q")
	out := k.ok("get", "quota", "q")
	assert.Regexp(t, `NAME\s+AGE\s+REQUEST\s+LIMIT\nq\s+\S+\s+configmaps: \d+/10, pods: 0/2\s+limits.cpu: 0/1\n`, out)

	podWith := func(name, resources string) string {
		return writeFile(t, name+".yaml", `apiVersion: v1
kind: Pod
metadata:
  name: `+name+`
spec:
  containers:
  - name: c
    image: nginx
`+resources)
	}
	limited := "    resources:\n      limits:\n        cpu: 300m\n"
	// A quota on limits.cpu: each container must state it.
	assert.Contains(t, k.fail("apply", "-f", podWith("bare", "")), `pods "bare" is forbidden: failed quota: q: must specify limits.cpu for: c`)
	k.ok("apply", "-f", podWith("a", limited))
	k.ok("apply", "-f", podWith("b", limited))
	assert.Contains(t, k.fail("apply", "-f", podWith("c", limited)),
		`pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`)
	k.eventually(func(out string) bool {
		return strings.Contains(out, "pods: 2/2") && strings.Contains(out, "limits.cpu: 600m/1")
	}, "get", "quota", "q")
	desc := k.ok("describe", "quota", "q")
	assert.Regexp(t, `Resource\s+Used\s+Hard`, desc)
	assert.Regexp(t, `limits.cpu\s+600m\s+1`, desc)
	assert.Regexp(t, `pods\s+2\s+2`, desc)
	// Deleting a pod gives its share back (the controller recounts).
	k.ok("delete", "pod", "a", "--wait=false")
	k.eventually(func(out string) bool { return strings.Contains(out, "pods: 1/2") }, "get", "quota", "q")
	k.ok("delete", "quota", "q")
	k.ok("create", "quota", "be", "--hard=pods=5", "--scopes=BestEffort")
	assert.Regexp(t, `Scopes:\s+BestEffort\n \* Matches all pods that do not have resource requirements set`, k.ok("describe", "quota", "be"))
	k.eventually(func(out string) bool { return out == "0" }, "get", "quota", "be", "-o", "jsonpath={.status.used.pods}")
	k.ok("run", "besteffort", "--image=nginx")
	k.eventually(func(out string) bool { return out == "1" }, "get", "quota", "be", "-o", "jsonpath={.status.used.pods}")
	k.ok("delete", "quota", "be")

	// A LimitRange gives containers their defaults and refuses the
	// containers beyond its bounds.
	k.ok("apply", "-f", writeFile(t, "lr.yaml", `apiVersion: v1
kind: LimitRange
metadata:
  name: limits
spec:
  limits:
  - type: Container
    default:
      cpu: 500m
      memory: 256Mi
    defaultRequest:
      cpu: 100m
    max:
      cpu: "1"
`))
	out = k.ok("get", "limits")
	assert.Regexp(t, `NAME\s+CREATED AT\nlimits\s+\d{4}-\d\d-\d\dT`, out)
	desc = k.ok("describe", "limitrange", "limits")
	assert.Regexp(t, `Type\s+Resource\s+Min\s+Max\s+Default Request\s+Default Limit\s+Max Limit/Request Ratio`, desc)
	assert.Regexp(t, `Container\s+cpu\s+-\s+1\s+100m\s+500m\s+-`, desc)
	assert.Regexp(t, `Container\s+memory\s+-\s+-\s+256Mi\s+256Mi\s+-`, desc)
	k.ok("run", "d", "--image=nginx")
	assert.Equal(t, "500m 100m 256Mi", k.jsonpath("pod/d",
		`{.spec.containers[0].resources.limits.cpu} {.spec.containers[0].resources.requests.cpu} {.spec.containers[0].resources.limits.memory}`))
	assert.Equal(t, "LimitRanger plugin set: cpu, memory request for container d; cpu, memory limit for container d",
		k.jsonpath("pod/d", `{.metadata.annotations.kubernetes\.io/limit-ranger}`))
	assert.Contains(t, k.fail("apply", "-f", podWith("big", "    resources:\n      limits:\n        cpu: \"2\"\n")),
		`pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2.`)
}

func TestKubectlPriorityClassesAndSlices(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "1", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.eventually(func(out string) bool { return countLines(out) == 1 }, "get", "nodes", "--no-headers")

	assert.Equal(t, "priorityclass.scheduling.k8s.io/high created\n",
		k.ok("create", "priorityclass", "high", "--value=1000", "--description=important"))
	out := k.ok("get", "pc")
	assert.Regexp(t, `NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\n`, out)
	assert.Regexp(t, `\nhigh\s+1000\s+false\s+\S+\s+PreemptLowerPriority\n`, out)
	assert.Regexp(t, `\nsystem-cluster-critical\s+2000000000\s+false\s+`, out)
	assert.Regexp(t, `\nsystem-node-critical\s+2000001000\s+false\s+`, out)

	k.ok("run", "vip", "--image=nginx", `--overrides={"spec":{"priorityClassName":"high"}}`)
	assert.Equal(t, "high 1000 PreemptLowerPriority", k.jsonpath("pod/vip", `{.spec.priorityClassName} {.spec.priority} {.spec.preemptionPolicy}`))
	assert.Contains(t, k.fail("run", "x", "--image=nginx", `--overrides={"spec":{"priorityClassName":"y"}}`),
		`pods "x" is forbidden: no PriorityClass with name y was found`)
	assert.Contains(t, k.fail("create", "priorityclass", "system-mine", "--value=5"), "priority class names with 'system-' prefix are reserved for system use only")
	k.ok("create", "priorityclass", "default-prio", "--value=5", "--global-default")
	assert.Contains(t, k.fail("create", "priorityclass", "another", "--value=1", "--global-default"),
		`priorityclasses.scheduling.k8s.io "another" is forbidden: PriorityClass default-prio is already marked as default. Only one default can exist`)
	assert.Regexp(t, `Value:\s+1000\nGlobalDefault:\s+false\nPreemptionPolicy:\s+PreemptLowerPriority\nDescription:\s+important`, k.ok("describe", "pc", "high"))
	k.ok("run", "plain", "--image=nginx")
	assert.Equal(t, "default-prio 5", k.jsonpath("pod/plain", `{.spec.priorityClassName} {.spec.priority}`), "the global default")

	// EndpointSlices beside Endpoints.
	k.ok("apply", "-f", writeFile(t, "web.yaml", webDeployment))
	k.rolledOut("deployment/web")
	k.ok("expose", "deployment", "web", "--port=8080", "--target-port=80")
	out = k.eventually(func(out string) bool { return strings.Count(out, ",") == 1 }, "get", "endpointslices", "-l", "kubernetes.io/service-name=web", "--no-headers")
	assert.Regexp(t, `^web-\S{5}\s+IPv4\s+80\s+\S+,\S+\s+\S+\n$`, out)
	assert.Equal(t, "endpointslice-controller.k8s.io true true Pod", k.jsonpath("endpointslices", `{.items[0].metadata.labels.endpointslice\.kubernetes\.io/managed-by} {.items[0].endpoints[0].conditions.ready} {.items[0].endpoints[0].conditions.serving} {.items[0].endpoints[0].targetRef.kind}`,
		"-l", "kubernetes.io/service-name=web"))
	desc := k.ok("describe", "endpointslice", "-l", "kubernetes.io/service-name=web")
	assert.Contains(t, desc, "AddressType:  IPv4")
	require.Contains(t, desc, "Endpoints:")
}

func TestKubectlPreemption(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "1", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.eventually(func(out string) bool { return countLines(out) == 1 }, "get", "nodes", "--no-headers")
	k.ok("create", "priorityclass", "low", "--value=10")
	k.ok("create", "priorityclass", "high", "--value=1000")
	pod := func(name, class string) string {
		return writeFile(t, name+".yaml", `apiVersion: v1
kind: Pod
metadata:
  name: `+name+`
spec:
  priorityClassName: `+class+`
  terminationGracePeriodSeconds: 0
  containers:
  - name: c
    image: nginx
    resources:
      requests:
        cpu: "3"
`)
	}
	k.ok("apply", "-f", pod("filler", "low"))
	assert.Equal(t, "pod/filler condition met\n", k.ok("wait", "--for=condition=Ready", "pod/filler", "--timeout=60s"))
	k.ok("apply", "-f", pod("vip", "high"))
	// The node's 4 cpu hold one of them: the low one is preempted.
	k.eventually(func(out string) bool { return out == "node-1 Running" }, "get", "pod", "vip", "-o", "jsonpath={.spec.nodeName} {.status.phase}")
	assert.Equal(t, "node-1", k.jsonpath("pod/vip", "{.status.nominatedNodeName}"))
	k.eventually(func(out string) bool { return strings.Contains(out, "NotFound") || out == "" }, "get", "pod", "filler", "--ignore-not-found")
	events := k.ok("get", "events", "--field-selector=reason=Preempted", "-o", "jsonpath={.items[*].message}")
	uid := k.jsonpath("pod/vip", "{.metadata.uid}")
	assert.Equal(t, "Preempted by pod "+uid+" on node node-1", events)
}
