package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/pki"
	"github.com/kubesim/kubesim/store/etcdstore/etcdtest"
)

// do sends one request to s as the kubeconfig's admin and returns the
// status code and body.
func do(t *testing.T, s *Server, method, path, body string) (int, string) {
	t.Helper()
	kc, err := pki.LoadKubeconfig(s.Kubeconfig)
	require.NoError(t, err)
	tlsCfg, err := kc.TLSConfig()
	require.NoError(t, err)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg}, Timeout: 30 * time.Second}
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+kc.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// Two kubesim servers (controllers, scheduler and a node included)
// started one after the other on the same etcd and prefix, each with its
// own data directory (certificates and tokens stay local), are one
// cluster: what the first wrote, the second serves. A third on another
// prefix is another cluster.
func TestServeOnEtcdKeepsDataAcrossServers(t *testing.T) {
	e, err := etcdtest.Start()
	require.NoError(t, err)
	defer e.Stop()
	ctx := context.Background()
	start := func(prefix string) *Server {
		s, err := Start(ctx, Options{DataDir: t.TempDir(), Addr: "127.0.0.1:0", Nodes: 1, StageDelay: time.Millisecond,
			Etcd: EtcdOptions{Servers: []string{e.URL}, Prefix: prefix}})
		require.NoError(t, err)
		return s
	}

	first := start("/registry")
	code, body := do(t, first, http.MethodPost, "/api/v1/namespaces/default/configmaps",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kept"},"data":{"k":"from the first server"}}`)
	require.Equal(t, http.StatusCreated, code, body)
	require.NoError(t, first.Shutdown(5*time.Second))

	second := start("/registry")
	defer second.Shutdown(5 * time.Second)
	code, body = do(t, second, http.MethodGet, "/api/v1/namespaces/default/configmaps/kept", "")
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, "from the first server")

	other := start("/other")
	defer other.Shutdown(5 * time.Second)
	code, body = do(t, other, http.MethodGet, "/api/v1/namespaces/default/configmaps/kept", "")
	assert.Equal(t, http.StatusNotFound, code, body)
}

// etcd unreachable at start: Start fails within the dial timeout with an
// error that names the endpoints, and serves nothing.
func TestServeOnUnreachableEtcdFails(t *testing.T) {
	port, err := etcdtest.FreePort()
	require.NoError(t, err)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	began := time.Now()
	_, err = Start(context.Background(), Options{DataDir: t.TempDir(), Addr: "127.0.0.1:0", APIServerOnly: true,
		Etcd: EtcdOptions{Servers: []string{url}, DialTimeout: 500 * time.Millisecond}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "etcd at "+url+" is unreachable")
	assert.Less(t, time.Since(began), 30*time.Second, "bounded by the dial timeout")
}

func TestEtcdTLSFlagsAreChecked(t *testing.T) {
	_, err := EtcdOptions{Servers: []string{"https://127.0.0.1:1"}, CertFile: "c.pem"}.Open(nil)
	assert.EqualError(t, err, "--etcd-certfile and --etcd-keyfile go together")
	_, err = EtcdOptions{Servers: []string{"https://127.0.0.1:1"}, CAFile: "/nonexistent/ca.pem"}.Open(nil)
	assert.ErrorContains(t, err, "--etcd-cafile")
}
