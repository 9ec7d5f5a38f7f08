package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlUserWebhookImage: examples/webhook as a student applies it.
// The image kubesim/webhook runs as a pod behind a Service, writes its CA
// into the configurations' caBundle, and then defaults a User's groups
// and refuses a reserved name, with kube-apiserver's words.
func TestKubectlUserWebhookImage(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "1", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.ok("apply", "-f", filepath.Join("..", "..", "examples", "crd", "users-crd-v1.yaml"))
	out := k.ok("apply", "-f", filepath.Join("..", "..", "examples", "webhook", "webhook.yaml"))
	assert.Equal(t, "namespace/webhook-system created\n"+
		"mutatingwebhookconfiguration.admissionregistration.k8s.io/user-defaults created\n"+
		"validatingwebhookconfiguration.admissionregistration.k8s.io/user-names created\n"+
		"deployment.apps/user-webhook created\n"+
		"service/user-webhook created\n", out)

	// The pod's start puts the CA into both configurations.
	require.Eventually(t, func() bool {
		m, _ := k.run(false, "get", "mutatingwebhookconfiguration", "user-defaults", "-o", "jsonpath={.webhooks[0].clientConfig.caBundle}")
		v, _ := k.run(false, "get", "validatingwebhookconfiguration", "user-names", "-o", "jsonpath={.webhooks[0].clientConfig.caBundle}")
		return m != "" && m == v
	}, 30*time.Second, 100*time.Millisecond)

	// Until the endpoints are there a create may fail; wait for a success.
	var stdout, stderr string
	require.Eventually(t, func() bool {
		cmd := k.cmd("apply", "-f", filepath.Join("..", "..", "examples", "webhook", "users.yaml"))
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		_ = cmd.Run() // root is refused: kubectl exits 1
		stdout, stderr = out.String(), errb.String()
		return strings.Contains(stdout, "user.auth.ilinux.io/alice created")
	}, 30*time.Second, 200*time.Millisecond, "stdout %s stderr %s", stdout, stderr)
	assert.Equal(t, "user.auth.ilinux.io/alice created\n", stdout)
	assert.Contains(t, stderr, `admission webhook "validate.users.auth.ilinux.io" denied the request: the user name "root" is reserved`)
	assert.Equal(t, `["users"]`, k.ok("get", "user", "alice", "-o", "jsonpath={.spec.groups}"))
	errOut := k.fail("get", "user", "root")
	assert.Contains(t, errOut, `users.auth.ilinux.io "root" not found`)
}

// TestKubectlUserConversionWebhook: the two-version User CRD converted by
// the image's /convert: written at v1 (spec.id), stored at v1beta1
// (spec.userID), read back at either version.
func TestKubectlUserConversionWebhook(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--nodes", "1", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	k.ok("apply", "-f", filepath.Join("..", "..", "examples", "webhook", "users-crd-two-versions.yaml"))
	k.ok("apply", "-f", filepath.Join("..", "..", "examples", "webhook", "webhook.yaml"))
	require.Eventually(t, func() bool {
		out, _ := k.run(false, "get", "crd", "users.auth.ilinux.io", "-o", "jsonpath={.spec.conversion.webhook.clientConfig.caBundle}")
		return out != ""
	}, 30*time.Second, 100*time.Millisecond)

	manifest := "apiVersion: auth.ilinux.io/v1\nkind: User\nmetadata:\n  name: dave\n  namespace: default\nspec:\n  id: 42\n"
	var stdout, stderr string
	require.Eventually(t, func() bool {
		cmd := k.cmd("create", "-f", "-")
		cmd.Stdin = strings.NewReader(manifest)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		_ = cmd.Run()
		stdout, stderr = out.String(), errb.String()
		return stdout != "" || strings.Contains(stderr, "AlreadyExists")
	}, 30*time.Second, 200*time.Millisecond, "stdout %s stderr %s", stdout, stderr)
	assert.Equal(t, `{"groups":["users"],"id":42}`, k.ok("get", "users.v1.auth.ilinux.io", "dave", "-o", "jsonpath={.spec}"))
	assert.Equal(t, `{"groups":["users"],"userID":42}`, k.ok("get", "users.v1beta1.auth.ilinux.io", "dave", "-o", "jsonpath={.spec}"))

	// The webhook gone: reading v1 fails with the conversion's error.
	k.ok("scale", "deployment", "-n", "webhook-system", "user-webhook", "--replicas=0")
	var errOut string
	require.Eventually(t, func() bool {
		cmd := k.cmd("get", "users.v1.auth.ilinux.io", "dave")
		var errb strings.Builder
		cmd.Stderr = &errb
		_ = cmd.Run()
		errOut = errb.String()
		return strings.Contains(errOut, "conversion webhook")
	}, 30*time.Second, 200*time.Millisecond)
	assert.Contains(t, errOut, `Error from server (InternalError): Internal error occurred: conversion webhook for auth.ilinux.io/v1beta1, Kind=User failed: Post "https://user-webhook.webhook-system.svc:443/convert?timeout=30s": `)
	assert.Equal(t, `{"groups":["users"],"userID":42}`, k.ok("get", "users.v1beta1.auth.ilinux.io", "dave", "-o", "jsonpath={.spec}"), "the storage version needs no webhook")
}

// TestKubesimWebhookProcess: `kubesim webhook` on the host, registered by
// URL with the caBundle it prints (examples/webhook/outside.yaml).
func TestKubesimWebhookProcess(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), "--api-server-only")
	k := newKubectl(t, s)
	k.ok("apply", "-f", filepath.Join("..", "..", "examples", "crd", "users-crd-v1.yaml"))

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		code := run(ctx, []string{"webhook", "--cert-dir", t.TempDir(), "--port", "0"}, pw, io.Discard)
		_ = pw.Close()
		done <- code
	}()
	t.Cleanup(func() {
		cancel()
		assert.Equal(t, 0, <-done)
	})
	lines := bufio.NewScanner(pr)
	require.True(t, lines.Scan())
	addr, ok := strings.CutPrefix(lines.Text(), "webhook for auth.ilinux.io Users listening on https://")
	require.True(t, ok, lines.Text())
	addr = strings.TrimSuffix(addr, " (/mutate, /validate)")
	require.True(t, lines.Scan())
	ca, ok := strings.CutPrefix(lines.Text(), "caBundle: ")
	require.True(t, ok, lines.Text())
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "webhook", "outside.yaml"))
	require.NoError(t, err)
	manifest := strings.ReplaceAll(strings.ReplaceAll(string(data), `caBundle: ""`, "caBundle: "+ca), "127.0.0.1:9443", addr)
	cmd := k.cmd("apply", "-f", "-")
	cmd.Stdin = strings.NewReader(manifest)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))

	cmd = k.cmd("apply", "-f", filepath.Join("..", "..", "examples", "webhook", "users.yaml"))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.Error(t, cmd.Run())
	assert.Equal(t, "user.auth.ilinux.io/alice created\n", stdout.String())
	assert.Contains(t, stderr.String(), `admission webhook "validate.users.auth.ilinux.io" denied the request: the user name "root" is reserved`)
	assert.Equal(t, `["users"]`, k.ok("get", "user", "alice", "-o", "jsonpath={.spec.groups}"))
}
