package pki

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestKubeconfigRoundTrip(t *testing.T) {
	b, err := EnsureServing(t.TempDir(), nil, t0, rand.Reader)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "sub", "admin.conf")
	require.NoError(t, WriteKubeconfig(path, "https://127.0.0.1:6443", b.CAPEM, "s3cret", "admin", "kubesim"))

	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	// The standard shape, as kubectl expects it.
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &doc))
	assert.Equal(t, "v1", doc["apiVersion"])
	assert.Equal(t, "Config", doc["kind"])
	assert.Equal(t, "kubesim", doc["current-context"])
	cl := doc["clusters"].([]any)[0].(map[string]any)
	assert.Equal(t, "kubesim", cl["name"])
	assert.Equal(t, base64.StdEncoding.EncodeToString(b.CAPEM), cl["cluster"].(map[string]any)["certificate-authority-data"])
	assert.Equal(t, "s3cret", doc["users"].([]any)[0].(map[string]any)["user"].(map[string]any)["token"])
	ctx := doc["contexts"].([]any)[0].(map[string]any)["context"].(map[string]any)
	assert.Equal(t, map[string]any{"cluster": "kubesim", "user": "admin"}, ctx)

	kc, err := LoadKubeconfig(path)
	require.NoError(t, err)
	assert.Equal(t, &Kubeconfig{
		Server: "https://127.0.0.1:6443", CAPEM: b.CAPEM, Token: "s3cret",
		Context: "kubesim", Cluster: "kubesim", User: "admin",
	}, kc)
	tc, err := kc.TLSConfig()
	require.NoError(t, err)
	assert.NotNil(t, tc.RootCAs)
	assert.False(t, tc.InsecureSkipVerify)
}

func TestLoadKubeconfigVariants(t *testing.T) {
	b, err := EnsureServing(t.TempDir(), nil, t0, rand.Reader)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.pem"), b.CAPEM, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte("tok\n"), 0o600))
	write := func(content string) string {
		p := filepath.Join(dir, "config")
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}

	p := write(`apiVersion: v1
kind: Config
clusters:
- name: other
  cluster: {server: "https://other:1"}
- name: c
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority: ca.pem
users:
- name: u
  user: {tokenFile: token}
contexts:
- name: x
  context: {cluster: c, user: u, namespace: dev}
current-context: x
`)
	kc, err := LoadKubeconfig(p)
	require.NoError(t, err)
	assert.Equal(t, "https://10.0.0.1:6443", kc.Server)
	assert.Equal(t, b.CAPEM, kc.CAPEM)
	assert.Equal(t, "tok", kc.Token)
	assert.Equal(t, "dev", kc.Namespace)

	p = write(`clusters:
- name: c
  cluster: {server: "https://h", insecure-skip-tls-verify: true}
contexts:
- name: x
  context: {cluster: c}
current-context: x
`)
	kc, err = LoadKubeconfig(p)
	require.NoError(t, err)
	assert.True(t, kc.InsecureSkipTLSVerify)
	tc, err := kc.TLSConfig()
	require.NoError(t, err)
	assert.True(t, tc.InsecureSkipVerify)

	errCases := []struct{ content, want string }{
		{"current-context: ''\n", "current-context is not set"},
		{"current-context: x\n", `context "x" not found`},
		{"contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n", `cluster "c" of context "x" not found`},
		{"clusters: [{name: c, cluster: {}}]\ncontexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n", `cluster "c" has no server`},
		{"clusters: [{name: c, cluster: {server: s}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n", `user "u" of context "x" not found`},
		{"clusters: [{name: c, cluster: {server: s, certificate-authority-data: '!!'}}]\ncontexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n", "certificate-authority-data"},
		{"clusters: [{name: c, cluster: {server: s, certificate-authority-data: aGVsbG8=}}]\ncontexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n", "no PEM-encoded CERTIFICATE found"},
		{"clusters: [\n", "yaml"},
	}
	for _, c := range errCases {
		p := write(c.content)
		_, err := LoadKubeconfig(p)
		require.Error(t, err, c.content)
		assert.Contains(t, err.Error(), p, c.content)
		assert.Contains(t, err.Error(), c.want, c.content)
	}
	_, err = LoadKubeconfig(filepath.Join(dir, "absent"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "absent"))

	assert.Error(t, WriteKubeconfig(filepath.Join(dir, "k"), "", nil, "t", "u", "c"))
}

// A restart with the same server, CA and token writes nothing (so it
// works on a full disk); a change is written.
func TestKubeconfigUnchangedIsNotRewritten(t *testing.T) {
	b, err := EnsureServing(t.TempDir(), nil, t0, rand.Reader)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, WriteKubeconfig(path, "https://127.0.0.1:6443", b.CAPEM, "tok", "admin", "kubesim"))
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(t, os.Chtimes(path, past, past))

	require.NoError(t, WriteKubeconfig(path, "https://127.0.0.1:6443", b.CAPEM, "tok", "admin", "kubesim"))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.True(t, st.ModTime().Equal(past), "an unchanged kubeconfig was rewritten")

	require.NoError(t, WriteKubeconfig(path, "https://127.0.0.1:7443", b.CAPEM, "tok", "admin", "kubesim"))
	kc, err := LoadKubeconfig(path)
	require.NoError(t, err)
	assert.Equal(t, "https://127.0.0.1:7443", kc.Server)
}

// EnsureServing on a complete, valid directory writes nothing.
func TestEnsureServingDoesNotRewrite(t *testing.T) {
	dir := t.TempDir()
	_, err := EnsureServing(dir, []string{"127.0.0.1"}, t0, rand.Reader)
	require.NoError(t, err)
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, f := range files {
		require.NoError(t, os.Chtimes(filepath.Join(dir, f.Name()), past, past))
	}
	_, err = EnsureServing(dir, []string{"127.0.0.1"}, t0.Add(time.Hour), rand.Reader)
	require.NoError(t, err)
	for _, f := range files {
		st, err := os.Stat(filepath.Join(dir, f.Name()))
		require.NoError(t, err)
		assert.True(t, st.ModTime().Equal(past), "%s was rewritten", f.Name())
	}
}

// The front-proxy CA and client certificate are made once and then read:
// a restart writes nothing, and extension servers keep trusting the CA.
func TestEnsureFrontProxyIsKept(t *testing.T) {
	dir := t.TempDir()
	a, err := EnsureFrontProxy(dir, t0, rand.Reader)
	require.NoError(t, err)
	require.NoError(t, a.ClientCert.Leaf.CheckSignatureFrom(a.CACert))
	assert.Equal(t, FrontProxyClientName, a.ClientCert.Leaf.Subject.CommonName)
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range []string{FrontProxyCACertFile, FrontProxyCAKeyFile, FrontProxyClientCertFile, FrontProxyClientKeyFile} {
		require.NoError(t, os.Chtimes(filepath.Join(dir, f), past, past))
	}
	b, err := EnsureFrontProxy(dir, t0.Add(time.Hour), rand.Reader)
	require.NoError(t, err)
	assert.Equal(t, a.CAPEM, b.CAPEM)
	assert.Equal(t, a.ClientCert.Certificate, b.ClientCert.Certificate)
	for _, f := range []string{FrontProxyCACertFile, FrontProxyCAKeyFile, FrontProxyClientCertFile, FrontProxyClientKeyFile} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.True(t, st.ModTime().Equal(past), "%s was rewritten", f)
	}
	pool, err := ReadCAFile(filepath.Join(dir, FrontProxyCACertFile))
	require.NoError(t, err)
	_, err = b.ClientCert.Leaf.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: t0, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	require.NoError(t, err)
}
