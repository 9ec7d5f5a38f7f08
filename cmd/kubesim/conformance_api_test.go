package main

import (
	"encoding/json"
	"strings"
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

// TokenReview and LocalSubjectAccessReview are served and discovered: a
// token from the TokenRequest API is reviewed as its service account with
// system:authenticated; a LocalSubjectAccessReview is asked in a namespace
// and about that namespace only.
func TestKubectlTokenReviewAndLocalSubjectAccessReview(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)
	resources := k.ok("api-resources", "-o", "name")
	assert.Contains(t, resources, "tokenreviews.authentication.k8s.io\n")
	assert.Contains(t, resources, "localsubjectaccessreviews.authorization.k8s.io\n")
	assert.Regexp(t, `(?m)^localsubjectaccessreviews\s+authorization.k8s.io/v1\s+true\s+LocalSubjectAccessReview$`, k.ok("api-resources", "--api-group=authorization.k8s.io"))

	k.ok("create", "serviceaccount", "robot")
	token := strings.TrimSpace(k.ok("create", "token", "robot"))
	review := func(token string, audiences ...string) map[string]any {
		t.Helper()
		spec := map[string]any{"token": token}
		if len(audiences) > 0 {
			spec["audiences"] = audiences
		}
		body, err := json.Marshal(map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": spec})
		require.NoError(t, err)
		out, errOut, code := k.runIn(string(body), "create", "-f", "-", "-o", "json")
		require.Zero(t, code, errOut)
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		return got["status"].(map[string]any)
	}
	st := review(token)
	assert.Equal(t, true, st["authenticated"], st)
	user := st["user"].(map[string]any)
	assert.Equal(t, "system:serviceaccount:default:robot", user["username"])
	assert.ElementsMatch(t, []any{"system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"}, user["groups"])
	assert.Equal(t, k.jsonpath("serviceaccount/robot", "{.metadata.uid}"), user["uid"])
	assert.NotEmpty(t, st["audiences"])

	st = review(token, "https://elsewhere.example.com")
	assert.Nil(t, st["authenticated"], "false, so omitted")
	assert.Contains(t, st["error"], `is invalid for the target audiences ["https://elsewhere.example.com"]`)

	_, errOut, code := k.runIn(`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{}}`, "create", "-f", "-")
	assert.NotZero(t, code)
	assert.Contains(t, errOut, "token is required for TokenReview in authentication")

	lsar := func(ns, attrNS string) (map[string]any, string) {
		t.Helper()
		body := `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","metadata":{"namespace":"` + ns + `"},` +
			`"spec":{"user":"system:serviceaccount:default:robot","resourceAttributes":{"namespace":"` + attrNS + `","verb":"list","resource":"pods"}}}`
		out, errOut, code := k.runIn(body, "create", "-f", "-", "-o", "json")
		if code != 0 {
			return nil, errOut
		}
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		return got, ""
	}
	got, errOut := lsar("default", "default")
	require.Empty(t, errOut)
	assert.Equal(t, false, got["status"].(map[string]any)["allowed"])
	assert.Equal(t, "default", got["metadata"].(map[string]any)["namespace"])
	k.ok("create", "rolebinding", "robot-view", "--clusterrole=view", "--serviceaccount=default:robot")
	got, _ = lsar("default", "default")
	assert.Equal(t, true, got["status"].(map[string]any)["allowed"])
	_, errOut = lsar("default", "kube-system")
	assert.Contains(t, errOut, `The LocalSubjectAccessReview "" is invalid: spec.resourceAttributes.namespace: Invalid value: "kube-system": must match metadata.namespace`)
}
