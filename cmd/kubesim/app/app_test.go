package app

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
