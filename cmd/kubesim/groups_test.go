package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const rcManifest = `apiVersion: v1
kind: ReplicationController
metadata:
  name: nginx
spec:
  replicas: 3
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
`

const runtimeClassesManifest = `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: gvisor
handler: runsc
overhead:
  podFixed:
    cpu: 250m
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: standard
handler: runc
`

const sandboxedPods = `apiVersion: v1
kind: Pod
metadata:
  name: sandboxed
spec:
  runtimeClassName: gvisor
  containers:
  - name: c
    image: nginx
---
apiVersion: v1
kind: Pod
metadata:
  name: plain
spec:
  runtimeClassName: standard
  containers:
  - name: c
    image: nginx
`

// newStyleEvent is what client-go's events.k8s.io recorder
// (k8s.io/client-go/tools/events) posts: a name of the regarding object
// and a hex timestamp, eventTime in microseconds, the reporting
// controller and instance, an action.
func newStyleEvent(at time.Time) string {
	return fmt.Sprintf(`{"apiVersion":"events.k8s.io/v1","kind":"Event",
"metadata":{"name":"web.%x","namespace":"default"},
"eventTime":%q,"reportingController":"example.com/operator","reportingInstance":"operator-7d9f-x",
"action":"Reconciling","reason":"Scaled","type":"Normal","note":"scaled web to 3 replicas",
"regarding":{"apiVersion":"apps/v1","kind":"Deployment","namespace":"default","name":"web"}}`,
		at.UnixNano(), at.UTC().Format("2006-01-02T15:04:05.000000Z07:00"))
}

// The kinds and groups kube-apiserver serves besides the common ones,
// through the real kubectl against a running cluster: ReplicationControllers
// and their controller, events.k8s.io Events read as core Events,
// RuntimeClasses with their admission and the kubelet's handlers, and
// API Priority and Fairness's bootstrap objects.
func TestKubectlGroups(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "1", "--stage-delay", "20ms")
	k := newKubectl(t, s)

	t.Run("replicationcontroller", func(t *testing.T) {
		assert.Equal(t, "replicationcontroller/nginx created\n", k.ok("apply", "-f", writeManifest(t, "rc.yaml", rcManifest)))
		out := k.eventually(func(out string) bool { return strings.Contains(out, "nginx   3         3         3") }, "get", "rc")
		assert.Regexp(t, `(?m)^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$`, out)
		assert.Regexp(t, `(?m)^nginx\s+3\s+3\s+3\s+\d+s\s+nginx\s+nginx:1.27\s+app=nginx$`, k.ok("get", "rc", "-o", "wide"))
		assert.Contains(t, k.ok("get", "all"), "replicationcontroller/nginx")
		pods := strings.Fields(k.ok("get", "pods", "-l", "app=nginx", "-o", "jsonpath={.items[*].metadata.name}"))
		require.Len(t, pods, 3)
		assert.Equal(t, "ReplicationController", k.ok("get", "pod", pods[0], "-o", "jsonpath={.metadata.ownerReferences[0].kind}"))

		// kubectl scale rc goes through /scale.
		assert.Equal(t, "replicationcontroller/nginx scaled\n", k.ok("scale", "rc", "nginx", "--replicas=2"))
		k.eventually(func(out string) bool { return countLines(out) == 2 }, "get", "pods", "-l", "app=nginx", "--no-headers")
		var scale struct {
			Status struct{ Selector string } `json:"status"`
		}
		require.NoError(t, json.Unmarshal([]byte(k.ok("get", "--raw", "/api/v1/namespaces/default/replicationcontrollers/nginx/scale")), &scale))
		assert.Equal(t, "app=nginx", scale.Status.Selector)

		// A deleted pod comes back.
		pods = strings.Fields(k.ok("get", "pods", "-l", "app=nginx", "-o", "jsonpath={.items[*].metadata.name}"))
		k.ok("delete", "pod", pods[0], "--wait=false")
		out = k.eventually(func(out string) bool { return countLines(out) == 2 && !strings.Contains(out, pods[0]) },
			"get", "pods", "-l", "app=nginx", "--no-headers")
		assert.Contains(t, out, "nginx-")
		assert.Contains(t, k.ok("describe", "rc", "nginx"), "SuccessfulCreate")

		// Deleting the RC deletes its pods (the garbage collector).
		k.ok("delete", "rc", "nginx")
		k.eventually(func(out string) bool { return countLines(out) == 0 }, "get", "pods", "-l", "app=nginx", "--no-headers")
	})

	t.Run("podtemplate", func(t *testing.T) {
		k.ok("apply", "-f", writeManifest(t, "pt.yaml", `apiVersion: v1
kind: PodTemplate
metadata:
  name: web
template:
  metadata:
    labels: {app: web}
  spec:
    containers:
    - name: nginx
      image: nginx:1.27
`))
		out := k.ok("get", "podtemplates")
		assert.Regexp(t, `(?m)^NAME\s+CONTAINERS\s+IMAGES\s+POD LABELS$`, out)
		assert.Regexp(t, `(?m)^web\s+nginx\s+nginx:1.27\s+app=web$`, out)
		assert.Equal(t, "Always", k.ok("get", "podtemplate", "web", "-o", "jsonpath={.template.spec.restartPolicy}"), "a pod's defaults")
	})

	t.Run("events.k8s.io", func(t *testing.T) {
		at := time.Now().Add(-30 * time.Second)
		k.ok("create", "--raw", "/apis/events.k8s.io/v1/namespaces/default/events", "-f", writeManifest(t, "event.json", newStyleEvent(at)))
		name := fmt.Sprintf("web.%x", at.UnixNano())

		// Read through core/v1: note is message, regarding is the object.
		out := k.ok("get", "events", "--field-selector=involvedObject.name=web")
		assert.Regexp(t, `(?m)^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$`, out)
		assert.Regexp(t, `(?m)^\d+s\s+Normal\s+Scaled\s+deployment/web\s+scaled web to 3 replicas$`, out)
		assert.Equal(t, "scaled web to 3 replicas example.com/operator operator-7d9f-x",
			k.ok("get", "event", name, "-o", "jsonpath={.message} {.reportingComponent} {.reportingInstance}"))
		out = k.ok("events", "--for", "deployment/web")
		assert.Regexp(t, `(?m)^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$`, out)
		assert.Regexp(t, `(?m)^\d+s\s+Normal\s+Scaled\s+Deployment/web\s+scaled web to 3 replicas$`, out)

		// The recorder's next occurrence patches the series, in its group.
		k.ok("patch", "events.v1.events.k8s.io", name, "--type=merge", "-p",
			fmt.Sprintf(`{"series":{"count":2,"lastObservedTime":%q}}`, time.Now().UTC().Format("2006-01-02T15:04:05.000000Z07:00")))
		assert.Equal(t, "2", k.ok("get", "event", name, "-o", "jsonpath={.series.count}"))

		// And the other way: the control plane's core Events read as
		// events.k8s.io ones.
		notes := k.ok("get", "events.v1.events.k8s.io", "-o", "jsonpath={range .items[*]}{.regarding.kind} {.note}{\"\\n\"}{end}")
		assert.Contains(t, notes, "Node Node node-1 status is now: NodeReady")

		// Its strict validation: no eventTime.
		errOut := k.fail("create", "--raw", "/apis/events.k8s.io/v1/namespaces/default/events", "-f", writeManifest(t, "bad.json",
			`{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"bad","namespace":"default"},"reason":"X","type":"Normal"}`))
		assert.Contains(t, errOut, "eventTime: Required value")
	})

	t.Run("runtimeclass", func(t *testing.T) {
		k.ok("apply", "-f", writeManifest(t, "rc.yaml", runtimeClassesManifest))
		out := k.ok("get", "runtimeclass")
		assert.Regexp(t, `(?m)^NAME\s+HANDLER\s+AGE$`, out)
		assert.Regexp(t, `(?m)^gvisor\s+runsc\s+\d+s$`, out)
		k.ok("apply", "-f", writeManifest(t, "pods.yaml", sandboxedPods))
		assert.Equal(t, "250m", k.ok("get", "pod", "sandboxed", "-o", "jsonpath={.spec.overhead.cpu}"), "the class's overhead")
		k.eventually(func(out string) bool { return strings.Contains(out, "Running") }, "get", "pod", "plain")
		k.eventually(func(out string) bool { return strings.Contains(out, "FailedCreatePodSandBox") }, "describe", "pod", "sandboxed")
		assert.Contains(t, k.ok("get", "pod", "sandboxed"), "ContainerCreating")
		assert.Contains(t, k.ok("events", "--for", "pod/sandboxed"), `RuntimeHandler "runsc" not supported`)
		errOut := k.fail("run", "ghost", "--image=nginx", `--overrides={"spec":{"runtimeClassName":"kata"}}`)
		assert.Contains(t, errOut, `pods "ghost" is forbidden: pod rejected: RuntimeClass "kata" not found`)
	})

	t.Run("flowcontrol", func(t *testing.T) {
		out := k.ok("get", "flowschemas")
		assert.Regexp(t, `(?m)^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL$`, out)
		assert.Regexp(t, `(?m)^exempt\s+exempt\s+1\s+<none>\s+\S+\s+False$`, out)
		assert.Regexp(t, `(?m)^global-default\s+global-default\s+9900\s+ByUser\s+\S+\s+False$`, out)
		out = k.ok("get", "prioritylevelconfigurations")
		assert.Regexp(t, `(?m)^NAME\s+TYPE\s+NOMINALCONCURRENCYSHARES\s+QUEUES\s+HANDSIZE\s+QUEUELENGTHLIMIT\s+AGE$`, out)
		assert.Regexp(t, `(?m)^workload-low\s+Limited\s+100\s+128\s+6\s+50\s+\S+$`, out)
		k.ok("apply", "-f", writeManifest(t, "fs.yaml", `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata:
  name: batch
spec:
  priorityLevelConfiguration:
    name: batch
  rules:
  - subjects:
    - kind: Group
      group:
        name: batch
    resourceRules:
    - verbs: ["*"]
      apiGroups: ["*"]
      resources: ["*"]
      clusterScope: true
      namespaces: ["*"]
`))
		k.eventually(func(out string) bool { return strings.Contains(out, "True") }, "get", "flowschema", "batch")
	})
}
