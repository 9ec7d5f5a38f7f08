package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlWebhookEquivalentVersion: `kubectl autoscale` creates an
// autoscaling/v1 HorizontalPodAutoscaler. A mutating webhook registered for
// autoscaling/v2 with matchPolicy Equivalent is called with the object
// converted to v2 (requestKind says v1), and its patch, written against v2,
// lands in the v1 object; one with matchPolicy Exact is not called.
func TestKubectlWebhookEquivalentVersion(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)

	var mu sync.Mutex
	seen := map[string][]map[string]any{} // path → requests
	hook := startWebhook(t, reviewHandler(func(path string, req map[string]any) map[string]any {
		mu.Lock()
		seen[path] = append(seen[path], req)
		mu.Unlock()
		return map[string]any{"uid": req["uid"], "allowed": true,
			"patchType": "JSONPatch",
			"patch":     base64.StdEncoding.EncodeToString([]byte(`[{"op":"replace","path":"/spec/minReplicas","value":2}]`))}
	}))
	webhook := func(name, policy string) string {
		return fmt.Sprintf(`
- name: %s.example.com
  clientConfig: {url: %s/%s, caBundle: %s}
  rules:
  - {operations: ["CREATE"], apiGroups: ["autoscaling"], apiVersions: ["v2"], resources: ["horizontalpodautoscalers"]}
  matchPolicy: %s
  sideEffects: None
  admissionReviewVersions: ["v1"]`, name, hook.URL, name, hook.CABundle, policy)
	}
	k.ok("apply", "-f", writeManifest(t, "hooks.yaml", "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: hpa\nwebhooks:"+
		webhook("equivalent", "Equivalent")+webhook("exact", "Exact")+"\n"))

	k.ok("create", "deployment", "web", "--image=nginx")
	assert.Equal(t, "horizontalpodautoscaler.autoscaling/web autoscaled\n", k.ok("autoscale", "deployment", "web", "--cpu-percent=50", "--min=1", "--max=3"))
	assert.Equal(t, "2", k.ok("get", "horizontalpodautoscalers.v1.autoscaling", "web", "-o", "jsonpath={.spec.minReplicas}"), "the v2 patch landed")
	assert.Equal(t, "50", k.ok("get", "horizontalpodautoscalers.v1.autoscaling", "web", "-o", "jsonpath={.spec.targetCPUUtilizationPercentage}"))

	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, seen["/exact"], "Exact: a v1 request does not match a v2 rule")
	require.Len(t, seen["/equivalent"], 1)
	r := seen["/equivalent"][0]
	assert.Equal(t, map[string]any{"group": "autoscaling", "version": "v2", "kind": "HorizontalPodAutoscaler"}, r["kind"])
	assert.Equal(t, map[string]any{"group": "autoscaling", "version": "v2", "resource": "horizontalpodautoscalers"}, r["resource"])
	assert.Equal(t, map[string]any{"group": "autoscaling", "version": "v1", "kind": "HorizontalPodAutoscaler"}, r["requestKind"])
	assert.Equal(t, map[string]any{"group": "autoscaling", "version": "v1", "resource": "horizontalpodautoscalers"}, r["requestResource"])
	obj := r["object"].(map[string]any)
	assert.Equal(t, "autoscaling/v2", obj["apiVersion"])
	spec := obj["spec"].(map[string]any)
	assert.NotContains(t, spec, "targetCPUUtilizationPercentage", "the v2 shape")
	metrics, _ := json.Marshal(spec["metrics"])
	assert.True(t, strings.Contains(string(metrics), `"averageUtilization":50`), string(metrics))
}
