package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The kubectl suite as a limited user: a client-certificate
// user with the built-in edit role in one namespace works there as a
// student would — apply, get, scale, rollout, exec-free commands, delete —
// while the control plane's own components do the rest under their own
// roles; outside the namespace, and for cluster-scoped kinds, the real
// 403s.
func TestKubectlAsALimitedUser(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, dir, "--nodes", "2", "--stage-delay", "20ms")
	admin := newKubectl(t, s)
	path := filepath.Join(dir, "dev.kubeconfig")
	require.Equal(t, 0, run(context.Background(), []string{"kubeconfig", "--user", "dev", "--data-dir", dir, "--out", path}, io.Discard, io.Discard))
	admin.ok("create", "namespace", "team")
	admin.ok("create", "rolebinding", "dev-edit", "-n", "team", "--clusterrole=edit", "--user=dev")
	dev := withKubeconfig(t, s, path)

	assert.Equal(t, "deployment.apps/shop created", strings.TrimSpace(dev.ok("apply", "-n", "team", "-f", "testdata/web-deploy.yaml")))
	dev.ok("rollout", "status", "-n", "team", "deployment/shop", "--timeout=60s")
	out := dev.eventually(func(out string) bool { return countLines(out) == 4 }, "get", "pods", "-n", "team", "-l", "app=shop", "--no-headers")
	assert.Contains(t, out, "Running")
	dev.ok("scale", "-n", "team", "deployment/shop", "--replicas=2")
	dev.eventually(func(out string) bool { return countLines(out) == 2 }, "get", "pods", "-n", "team", "-l", "app=shop", "--no-headers")
	dev.ok("set", "image", "-n", "team", "deployment/shop", "shop=nginx:1.26")
	dev.ok("rollout", "status", "-n", "team", "deployment/shop", "--timeout=60s")
	assert.Contains(t, dev.ok("get", "replicasets", "-n", "team"), "shop-")
	dev.ok("create", "configmap", "settings", "-n", "team", "--from-literal=a=1")
	assert.Contains(t, dev.ok("get", "events", "-n", "team"), "ScalingReplicaSet")
	assert.Equal(t, "yes", strings.TrimSpace(dev.ok("auth", "can-i", "delete", "deployments", "-n", "team")))

	assert.Contains(t, dev.fail("get", "pods", "-n", "default"),
		`Error from server (Forbidden): pods is forbidden: User "dev" cannot list resource "pods" in API group "" in the namespace "default"`)
	assert.Contains(t, dev.fail("get", "nodes"),
		`Error from server (Forbidden): nodes is forbidden: User "dev" cannot list resource "nodes" in API group "" at the cluster scope`)
	assert.Contains(t, dev.fail("create", "rolebinding", "me-admin", "-n", "team", "--clusterrole=admin", "--user=dev"),
		`User "dev" cannot create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "team"`)
	assert.Contains(t, dev.fail("delete", "namespace", "team"),
		`User "dev" cannot delete resource "namespaces" in API group "" in the namespace "team"`)

	dev.ok("delete", "-n", "team", "deployment/shop")
	dev.eventually(func(out string) bool { return countLines(out) == 0 }, "get", "pods", "-n", "team", "-l", "app=shop", "--no-headers")
}
