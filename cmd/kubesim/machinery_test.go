package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlFreesAStuckNamespace: the well-known fix for a namespace
// stuck in Terminating works as against kube-apiserver — read the
// namespace, empty spec.finalizers and PUT it to namespaces/finalize with
// kubectl replace --raw; the namespace goes.
func TestKubectlFreesAStuckNamespace(t *testing.T) {
	t.Parallel()
	// No namespace controller: a deleted namespace stays Terminating.
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)
	k.ok("create", "namespace", "stuck")
	k.ok("delete", "namespace", "stuck", "--wait=false")
	out := k.ok("get", "namespace", "stuck", "-o", "json")
	var ns map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &ns))
	require.Equal(t, "Terminating", ns["status"].(map[string]any)["phase"])

	ns["spec"] = map[string]any{"finalizers": []any{}}
	body, err := json.Marshal(ns)
	require.NoError(t, err)
	cmd := k.cmd("replace", "--raw", "/api/v1/namespaces/stuck/finalize", "-f", "-")
	cmd.Stdin = strings.NewReader(string(body))
	answer, err := cmd.CombinedOutput()
	require.NoError(t, err, string(answer))
	var got map[string]any
	require.NoError(t, json.Unmarshal(answer, &got), string(answer))
	assert.Equal(t, "Namespace", got["kind"])
	assert.Equal(t, "stuck", got["metadata"].(map[string]any)["name"])

	errOut := k.fail("get", "namespace", "stuck")
	assert.Contains(t, errOut, `namespaces "stuck" not found`)

	// GET is not served on the subresource, as in Kubernetes.
	errOut = k.fail("get", "--raw", "/api/v1/namespaces/default/finalize")
	assert.Contains(t, errOut, "MethodNotAllowed")
}

// preserveCRDs defines two custom resources that keep unknown fields: one
// under spec (which also declares a field), one at the root.
const preserveCRDs = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.lab.example.com
spec:
  group: lab.example.com
  names: {kind: Gadget, plural: gadgets, singular: gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-preserve-unknown-fields: true
            properties:
              size: {type: integer, default: 1}
          tags:
            type: array
            x-kubernetes-preserve-unknown-fields: true
            items: {type: string}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: blobs.lab.example.com
spec:
  group: lab.example.com
  names: {kind: Blob, plural: blobs, singular: blob}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`

// TestKubectlAppliesAListOfCustomResourcesThatKeepUnknownFields: kubectl
// validates the items of a kind: List itself, against /openapi/v2, before
// sending them. The v2 document gives a schema that keeps unknown fields
// no properties and no type (the CRD builder's ToStructuralOpenAPIV2), so
// kubectl accepts fields the schema does not name, as it does against
// kube-apiserver.
func TestKubectlAppliesAListOfCustomResourcesThatKeepUnknownFields(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)
	crds := filepath.Join(t.TempDir(), "crds.yaml")
	require.NoError(t, os.WriteFile(crds, []byte(preserveCRDs), 0o644))
	k.ok("apply", "-f", crds)
	k.ok("wait", "--for=condition=Established", "crd/gadgets.lab.example.com", "crd/blobs.lab.example.com", "--timeout=60s")

	list := filepath.Join(t.TempDir(), "list.yaml")
	require.NoError(t, os.WriteFile(list, []byte(`apiVersion: v1
kind: List
items:
- apiVersion: lab.example.com/v1
  kind: Gadget
  metadata: {name: g1, namespace: default}
  spec: {size: 3, colour: red, extra: {deep: true}}
  tags: [a, b]
- apiVersion: lab.example.com/v1
  kind: Blob
  metadata: {name: b1, namespace: default}
  anything: {goes: [1, 2]}
`), 0o644))
	out := k.ok("apply", "-f", list)
	assert.Contains(t, out, "gadget.lab.example.com/g1 created")
	assert.Contains(t, out, "blob.lab.example.com/b1 created")
	assert.Equal(t, "red", k.ok("get", "gadget", "g1", "-o", "jsonpath={.spec.colour}"))
	assert.Equal(t, "[1,2]", k.ok("get", "blob", "b1", "-o", "jsonpath={.anything.goes}"))

	// The v2 document says what kube-apiserver's says.
	raw := k.ok("get", "--raw", "/openapi/v2")
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	require.NoError(t, json.Unmarshal([]byte(raw), &doc))
	gadget := doc.Definitions["com.example.lab.v1.Gadget"]
	require.NotNil(t, gadget)
	spec := gadget["properties"].(map[string]any)["spec"].(map[string]any)
	assert.Equal(t, map[string]any{"x-kubernetes-preserve-unknown-fields": true}, spec)
	tags := gadget["properties"].(map[string]any)["tags"].(map[string]any)
	assert.Equal(t, map[string]any{"x-kubernetes-preserve-unknown-fields": true}, tags)
	blob := doc.Definitions["com.example.lab.v1.Blob"]
	assert.Equal(t, "object", blob["type"])
	assert.NotContains(t, blob, "properties", "nothing kubectl could call unknown")
	assert.NotContains(t, blob, "x-kubernetes-preserve-unknown-fields")
}

// TestKubectlExplainShowsTheTypesDocumentation: kubectl explain prints the
// documentation of the Kubernetes types (their generated SwaggerDoc), from
// /openapi/v3 and, with --output=plaintext-openapiv2, from /openapi/v2, and
// a CRD's own descriptions.
func TestKubectlExplainShowsTheTypesDocumentation(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)

	for _, output := range []string{"plaintext", "plaintext-openapiv2"} {
		out := k.ok("explain", "deployment.spec.strategy", "--output="+output)
		assert.NotContains(t, out, "<no description>", output)
		assert.Contains(t, out, "The deployment strategy to use to replace existing pods with new ones.", output)
		assert.Contains(t, out, "Rolling update config params. Present only if DeploymentStrategyType =", output)
		assert.Regexp(t, `Type of deployment. Can be "Recreate" or "RollingUpdate". Default is\s+RollingUpdate.`, out, output)

		out = k.ok("explain", "pods", "--output="+output)
		assert.Contains(t, out, "Pod is a collection of containers that can run on a host.", output)
		assert.Contains(t, out, "APIVersion defines the versioned schema of this representation", output)
		assert.NotContains(t, out, "<no description>", output)

		out = k.ok("explain", "pod.metadata.ownerReferences.controller", "--output="+output)
		assert.Contains(t, out, "If true, this reference points to the managing controller.", output)
	}

	crds := filepath.Join(t.TempDir(), "crd.yaml")
	require.NoError(t, os.WriteFile(crds, []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.lab.example.com
spec:
  group: lab.example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: A Widget is what the lab builds.
        properties:
          spec:
            type: object
            description: What the widget should be.
            properties:
              size: {type: integer, description: How many parts it has.}
`), 0o644))
	k.ok("apply", "-f", crds)
	k.ok("wait", "--for=condition=Established", "crd/widgets.lab.example.com", "--timeout=60s")
	for _, output := range []string{"plaintext", "plaintext-openapiv2"} {
		out := k.ok("explain", "widgets", "--output="+output)
		assert.Contains(t, out, "A Widget is what the lab builds.", output)
		out = k.ok("explain", "widgets.spec", "--output="+output)
		assert.Contains(t, out, "What the widget should be.", output)
		assert.Contains(t, out, "How many parts it has.", output)
	}
}

// TestKubectlSeesTheKubernetesService: the kubernetes Service of every
// cluster, with its EndpointSlice at the API server's port, put back when
// deleted; inside a pod the KUBERNETES_* variables, DNS, and a
// request to https://kubernetes.default.svc that reaches the API server as
// an anonymous client.
func TestKubectlSeesTheKubernetesService(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "1", "--stage-delay", "20ms", "--anonymous-auth")
	k := newKubectl(t, s)
	port := s.url[strings.LastIndex(s.url, ":")+1:]

	out := k.eventually(func(out string) bool { return strings.Contains(out, "kubernetes") }, "get", "svc", "kubernetes")
	assert.Regexp(t, `(?m)^kubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443/TCP\s+\d+s$`, out)
	out = k.eventually(func(out string) bool { return strings.Contains(out, "kubernetes") }, "get", "endpointslices", "kubernetes")
	assert.Regexp(t, `(?m)^kubernetes\s+IPv4\s+`+port+`\s+172\.18\.0\.2\s+\d+s$`, out)
	assert.Equal(t, "https "+port, k.ok("get", "svc", "kubernetes", "-o", "jsonpath={.spec.ports[0].name} {.spec.ports[0].targetPort}"))

	k.ok("delete", "svc", "kubernetes")
	k.eventually(func(out string) bool { return strings.Contains(out, "10.96.0.1") }, "get", "svc", "kubernetes", "-o", "jsonpath={.spec.clusterIP}")

	k.ok("run", "box", "--image=busybox", "--restart=Never", "--", "sleep", "3600")
	k.ok("wait", "--for=condition=Ready", "pod/box", "--timeout=90s")
	env := k.ok("exec", "box", "--", "env")
	for _, want := range []string{"KUBERNETES_SERVICE_HOST=10.96.0.1", "KUBERNETES_SERVICE_PORT=443", "KUBERNETES_SERVICE_PORT_HTTPS=443",
		"KUBERNETES_PORT=tcp://10.96.0.1:443", "KUBERNETES_PORT_443_TCP_ADDR=10.96.0.1"} {
		assert.Contains(t, env, want+"\n")
	}
	assert.Contains(t, k.ok("exec", "box", "--", "nslookup", "kubernetes.default"), "Address: 10.96.0.1")
	version := k.ok("exec", "box", "--", "wget", "-qO-", "https://kubernetes.default.svc/version")
	assert.Contains(t, version, `"gitVersion"`)
	// Anonymous may read /version, not the API.
	errOut := k.fail("exec", "box", "--", "wget", "-qO-", "https://kubernetes.default.svc/api/v1/namespaces")
	assert.Contains(t, errOut, "wget: server returned error: HTTP/1.1 403 Forbidden")
}
