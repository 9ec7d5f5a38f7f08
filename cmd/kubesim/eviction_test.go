package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// farPods are the pods the test puts on the node of the kubelet process:
// one with only the tolerations every pod gets, one that tolerates the
// unreachable taint for an hour, and a Deployment's (node-1 is cordoned
// while it is scheduled).
const farPods = `apiVersion: v1
kind: Pod
metadata:
  name: plain
spec:
  nodeName: far-1
  containers:
  - name: app
    image: busybox
    command: ["sleep", "infinity"]
---
apiVersion: v1
kind: Pod
metadata:
  name: patient
spec:
  nodeName: far-1
  tolerations:
  - key: node.kubernetes.io/unreachable
    operator: Exists
    effect: NoExecute
    tolerationSeconds: 3600
  containers:
  - name: app
    image: busybox
    command: ["sleep", "infinity"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx
`

// Taint-based eviction as kube-controller-manager does it, through the
// real kubectl: every pod gets the DefaultTolerationSeconds plugin's two
// tolerations (here 6 seconds, kube-apiserver's flags); when a node's
// kubelet dies the node lifecycle controller makes it Unknown and taints
// it unreachable, and the taint eviction controller deletes each pod
// once its toleration runs out — the plain pod and the Deployment's
// (whose replacement runs elsewhere), not the one that tolerates it for
// an hour. The other direction: the kubelet comes back, the taints go,
// and the pending eviction is cancelled.
func TestTaintBasedEvictionThroughKubectl(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "1", "--stage-delay", "20ms", "--node-monitor-grace-period", "15s",
		"--default-unreachable-toleration-seconds", "6", "--default-not-ready-toleration-seconds", "6")
	k := newKubectl(t, s)
	_, proc := startProc(t, "kubelet", "--kubeconfig", s.kubeconfig, "--nodes", "1", "--node-prefix", "far", "--stage-delay", "20ms")
	k.eventually(func(out string) bool { return out == "True" }, "get", "node", "far-1", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
	k.ok("cordon", "node-1")
	_, errOut, code := k.runIn(farPods, "apply", "-f", "-")
	require.Equal(t, 0, code, errOut)
	k.ok("wait", "--for=condition=Ready", "pod/plain", "pod/patient", "--timeout=60s")
	k.ok("rollout", "status", "deployment/web", "--timeout=60s")
	k.ok("uncordon", "node-1")
	webPod := k.eventually(func(out string) bool { return strings.HasPrefix(out, "web-") }, "get", "pods", "-l", "app=web", "-o", "jsonpath={.items[0].metadata.name}")
	assert.Equal(t, "far-1", k.jsonpath("pod/"+webPod, "{.spec.nodeName}"))

	// The admission plugin's tolerations, and a pod's own kept.
	assert.Equal(t, `node.kubernetes.io/not-ready NoExecute 6 node.kubernetes.io/unreachable NoExecute 6 `,
		k.jsonpath("pod/plain", `{range .spec.tolerations[*]}{.key}{" "}{.effect}{" "}{.tolerationSeconds}{" "}{end}`))
	assert.Equal(t, `node.kubernetes.io/unreachable 3600 node.kubernetes.io/not-ready 6 `,
		k.jsonpath("pod/patient", `{range .spec.tolerations[*]}{.key}{" "}{.tolerationSeconds}{" "}{end}`))
	assert.Regexp(t, `(?m)^Tolerations:\s+node.kubernetes.io/not-ready:NoExecute op=Exists for 6s$`, k.ok("describe", "pod", "plain"))

	// The node fails.
	_ = proc.Kill()
	_, _ = proc.Wait()
	k.eventually(func(out string) bool { return out == "Unknown" }, "get", "node", "far-1", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
	desc := k.eventually(func(out string) bool { return strings.Contains(out, "node.kubernetes.io/unreachable:NoExecute") }, "describe", "node", "far-1")
	assert.Contains(t, desc, "node.kubernetes.io/unreachable:NoSchedule")
	assert.Contains(t, desc, "Kubelet stopped posting node status.")

	events := k.eventually(func(out string) bool {
		return strings.Contains(out, "Marking for deletion Pod default/plain") && strings.Contains(out, "Marking for deletion Pod default/"+webPod)
	}, "get", "events", "--field-selector", "reason=TaintManagerEviction")
	assert.NotContains(t, events, "default/patient")
	assert.Equal(t, "DeletionByTaintManager True Taint manager: deleting due to NoExecute taint",
		k.jsonpath("pod/plain", `{.status.conditions[?(@.type=="DisruptionTarget")].reason} {.status.conditions[?(@.type=="DisruptionTarget")].status} {.status.conditions[?(@.type=="DisruptionTarget")].message}`))
	assert.NotEmpty(t, k.jsonpath("pod/plain", "{.metadata.deletionTimestamp}"), "Terminating: its kubelet is down")
	assert.Empty(t, k.jsonpath("pod/patient", "{.metadata.deletionTimestamp}"))
	// The Deployment's replacement runs on the node that is up.
	k.eventually(func(out string) bool { return strings.Contains(out, "node-1") }, "get", "pods", "-l", "app=web",
		"--field-selector", "status.phase=Running", "-o", "jsonpath={.items[*].spec.nodeName}")

	// The kubelet comes back: the node is Ready, its taints go, the
	// patient pod's eviction is cancelled, the evicted pod is finished.
	startProc(t, "kubelet", "--kubeconfig", s.kubeconfig, "--nodes", "1", "--node-prefix", "far", "--stage-delay", "20ms")
	k.eventually(func(out string) bool { return out == "True" }, "get", "node", "far-1", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
	k.eventually(func(out string) bool { return out == "" }, "get", "node", "far-1", "-o", "jsonpath={.spec.taints}")
	k.eventually(func(out string) bool { return strings.Contains(out, "Cancelling deletion of Pod default/patient") },
		"get", "events", "--field-selector", "reason=TaintManagerEviction")
	k.eventually(func(out string) bool { return !strings.Contains(out, "plain") }, "get", "pods", "-o", "name")
	assert.Equal(t, "Running", k.jsonpath("pod/patient", "{.status.phase}"))
}

// dbOnFar is a StatefulSet whose pod goes to the kubelet process's node
// (node-1 is cordoned), where its claim's volume is then made
// (WaitForFirstConsumer).
const dbOnFar = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  replicas: 1
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: busybox
        command: ["sleep", "infinity"]
        volumeMounts:
        - {name: data, mountPath: /data}
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
`

// A volume whose node is gone, through the real kubectl: a StatefulSet's
// pod and its claim's volume are on a node whose kubelet dies and whose
// Node an administrator deletes. The pod garbage collector removes the
// orphaned pod after its 40-second quarantine; the StatefulSet makes it
// again, and it stays Pending: its volume's node affinity names the node
// that is gone. The way out is Kubernetes' too: delete the claim (its
// volume goes with it, reclaimed) and the pod, and the StatefulSet starts
// over on a node that exists, with an empty volume.
func TestVolumeWhoseNodeIsGone(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "1", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	_, proc := startProc(t, "kubelet", "--kubeconfig", s.kubeconfig, "--nodes", "1", "--node-prefix", "far", "--stage-delay", "20ms")
	k.eventually(func(out string) bool { return out == "True" }, "get", "node", "far-1", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
	k.ok("cordon", "node-1")
	_, errOut, code := k.runIn(dbOnFar, "apply", "-f", "-")
	require.Equal(t, 0, code, errOut)
	k.ok("rollout", "status", "statefulset/db", "--timeout=60s")
	k.ok("uncordon", "node-1")
	require.Equal(t, "far-1", k.jsonpath("pod/db-0", "{.spec.nodeName}"))
	k.ok("exec", "db-0", "--", "sh", "-c", "echo precious > /data/row")
	pv := k.jsonpath("pvc/data-db-0", "{.spec.volumeName}")
	assert.Regexp(t, `(?s)Node Affinity:\s+Required Terms:\s+Term 0:\s+kubernetes.io/hostname in \[far-1\]`, k.ok("describe", "pv", pv))

	// The node dies and is deleted.
	_ = proc.Kill()
	_, _ = proc.Wait()
	k.ok("delete", "node", "far-1")
	uid := k.jsonpath("pod/db-0", "{.metadata.uid}")
	k.eventually(func(out string) bool { return out != "" && out != uid }, "get", "pod", "db-0", "-o", "jsonpath={.metadata.uid}")
	desc := k.eventually(func(out string) bool { return strings.Contains(out, "FailedScheduling") }, "describe", "pod", "db-0")
	assert.Regexp(t, `(?m)^Status:\s+Pending$`, desc)
	assert.Regexp(t, `(?m)^Node:\s+<none>$`, desc)
	assert.Contains(t, desc, "0/1 nodes are available: 1 node(s) had volume node affinity conflict.")
	assert.Regexp(t, `(?m)^`+pv+`\s+1Gi\s+RWO\s+Delete\s+Bound\s+default/data-db-0\s+standard`, k.ok("get", "pv"), "the volume is still there, bound")

	// The way out: a new claim.
	k.ok("delete", "pvc", "data-db-0", "--wait=false")
	k.ok("delete", "pod", "db-0", "--wait=false")
	k.eventually(func(out string) bool { return out == "Running node-1" }, "get", "pod", "db-0", "-o", "jsonpath={.status.phase} {.spec.nodeName}")
	assert.NotEqual(t, pv, k.jsonpath("pvc/data-db-0", "{.spec.volumeName}"))
	k.eventually(func(out string) bool { return !strings.Contains(out, pv) }, "get", "pv", "-o", "name")
	assert.Equal(t, "", k.ok("exec", "db-0", "--", "ls", "/data"), "a new, empty volume")
}
