package app

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/pki"
)

// TestStartServesOverHTTPS starts the API server alone on a free port and
// reaches it as a client would from the kubeconfig Start wrote: its URL,
// the CA that signed the serving certificate and the admin token.
func TestStartServesOverHTTPS(t *testing.T) {
	dir := t.TempDir()
	s, err := Start(context.Background(), Options{DataDir: dir, Addr: "127.0.0.1:0", APIServerOnly: true, UnsafeNoFsync: true})
	require.NoError(t, err)
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = s.Shutdown(time.Second)
		}
	})
	assert.Equal(t, filepath.Join(dir, "kubeconfig"), s.Kubeconfig)
	assert.Regexp(t, `^https://127\.0\.0\.1:[1-9][0-9]*$`, s.URL)

	kc, err := pki.LoadKubeconfig(s.Kubeconfig)
	require.NoError(t, err)
	assert.Equal(t, s.URL, kc.Server)
	tlsCfg, err := kc.TLSConfig()
	require.NoError(t, err)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg}, Timeout: 10 * time.Second}
	get := func(token string) int {
		req, err := http.NewRequest(http.MethodGet, s.URL+"/api/v1/namespaces/default", nil)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusOK, get(kc.Token), "the kubeconfig's token is admin")
	assert.Equal(t, http.StatusUnauthorized, get("not-a-token"))

	require.NoError(t, s.Shutdown(5*time.Second))
	stopped = true
	_, err = hc.Get(s.URL + "/healthz")
	assert.Error(t, err, "the listener is closed after Shutdown")
}

// TestStartRefusesBadOptions checks the errors `kubesim serve` reports
// for its flags before anything is started.
func TestStartRefusesBadOptions(t *testing.T) {
	_, err := Start(context.Background(), Options{DataDir: t.TempDir(), Addr: "127.0.0.1:0", Nodes: -1})
	assert.EqualError(t, err, "--nodes must be 0 or more, not -1")
	_, err = Start(context.Background(), Options{DataDir: t.TempDir(), Addr: "no-port"})
	assert.ErrorContains(t, err, `--addr "no-port"`)
}

// A kubeconfig that cannot be written (a full disk after a restart on a
// new port, here a path under a regular file) does not stop the server:
// it starts, serves, and says why there is no kubeconfig.
func TestStartWithoutAWritableKubeconfig(t *testing.T) {
	dir := t.TempDir()
	notADir := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(notADir, nil, 0o600))
	s, err := Start(context.Background(), Options{DataDir: dir, Addr: "127.0.0.1:0", APIServerOnly: true, UnsafeNoFsync: true,
		Kubeconfig: filepath.Join(notADir, "kubeconfig")})
	require.NoError(t, err, "the server starts without its kubeconfig")
	defer func() { require.NoError(t, s.Shutdown(5*time.Second)) }()
	assert.Empty(t, s.Kubeconfig)
	require.Error(t, s.KubeconfigErr)
	assert.Contains(t, s.KubeconfigErr.Error(), notADir)

	ca, err := pki.ReadCAFile(filepath.Join(dir, pki.CACertFile))
	require.NoError(t, err)
	_, token, err := authn.EnsureTokenFile(dir, rand.Reader) // the admin token Start made
	require.NoError(t, err)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca}}, Timeout: 10 * time.Second}
	req, err := http.NewRequest(http.MethodGet, s.URL+"/api/v1/namespaces/default", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "it serves")
}
