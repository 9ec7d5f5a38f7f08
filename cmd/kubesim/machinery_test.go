package main

import (
	"encoding/json"
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
