package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The API behaviours Kubernetes' conformance specs check, each through the
// real kubectl: what the specs' failures against kubesim were about.

// metadata.generation only where kube-apiserver's strategy sets one: a
// Deployment starts at 1 and counts changes of spec (a scale too) and the
// start of its deletion; a ConfigMap, an Event and an HPA have none (the
// Events specs compare the whole object they wrote with what they read).
func TestKubectlGenerationOnlyWhereKubernetesSetsIt(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)
	gen := func(resource string) string {
		t.Helper()
		return k.jsonpath(resource, "{.metadata.generation}")
	}
	k.ok("create", "configmap", "plain", "--from-literal=a=b")
	assert.Empty(t, gen("configmap/plain"))
	k.ok("label", "configmap", "plain", "x=y")
	assert.Empty(t, gen("configmap/plain"))

	_, errOut, code := k.runIn(`apiVersion: v1
kind: Event
metadata: {name: seen, namespace: default}
involvedObject: {kind: ConfigMap, name: plain, namespace: default}
reason: Seen
message: looked at
type: Normal
`, "create", "-f", "-")
	require.Zero(t, code, errOut)
	assert.Empty(t, gen("event/seen"))

	k.ok("create", "deployment", "web", "--image=nginx")
	assert.Equal(t, "1", gen("deployment/web"))
	k.ok("label", "deployment", "web", "tier=front")
	assert.Equal(t, "1", gen("deployment/web"), "labels are not the desired state")
	k.ok("annotate", "deployment", "web", "note=copied-to-replicasets")
	assert.Equal(t, "2", gen("deployment/web"), "a Deployment's annotations count")
	k.ok("scale", "deployment", "web", "--replicas=3")
	assert.Equal(t, "3", gen("deployment/web"))

	k.ok("autoscale", "deployment", "web", "--min=1", "--max=4", "--cpu-percent=50")
	assert.Empty(t, gen("hpa/web"))
	k.ok("patch", "hpa", "web", "-p", `{"spec":{"maxReplicas":5}}`)
	assert.Empty(t, gen("hpa/web"))

	k.ok("patch", "deployment", "web", "--type=merge", "-p", `{"metadata":{"finalizers":["example.com/hold"]}}`)
	assert.Equal(t, "3", gen("deployment/web"))
	k.ok("delete", "deployment", "web", "--wait=false")
	assert.Equal(t, "4", gen("deployment/web"), "the start of deletion is a new generation")
	k.ok("patch", "deployment", "web", "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
}
