package authn

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/pki"
)

const kubectlPath = "/usr/bin/kubectl"

// startDiscoveryServer serves /version, /api and /apis over TLS with the
// bundle, behind token authentication, and records who called.
func startDiscoveryServer(t *testing.T, b *pki.Bundle, auth Authenticator) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var callers []string
	mux := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, `{"major":"1","minor":"32","gitVersion":"v1.32.0","platform":"linux/amd64"}`)
	})
	mux.HandleFunc("GET /api", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"`+r.Host+`"}]}`)
	})
	mux.HandleFunc("GET /apis", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, `{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`)
	})
	record := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := UserFrom(r.Context())
		mu.Lock()
		callers = append(callers, u.Name+" "+r.URL.Path)
		mu.Unlock()
		mux.ServeHTTP(w, r)
	})
	srv := httptest.NewUnstartedServer(WithAuthentication(record, auth, nil))
	srv.TLS = b.ServerTLSConfig()
	// The untrusted-CA case makes the server log a handshake error; keep
	// test output clean.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), callers...)
	}
}

func runKubectl(t *testing.T, kubeconfig string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, kubectlPath, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	// A fresh cache and home keep the user's ~/.kube out of the test.
	cmd.Env = append(os.Environ(), "KUBECACHEDIR="+t.TempDir(), "HOME="+home, "KUBECONFIG=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// TestRealKubectlAcceptsKubeconfig proves that the kubeconfig, the CA and
// serving certificate, the bearer token and the 401 body are all what the
// real kubectl expects.
func TestRealKubectlAcceptsKubeconfig(t *testing.T) {
	_, err := os.Stat(kubectlPath)
	require.NoError(t, err, "this test needs the real kubectl at %s", kubectlPath)

	dataDir := t.TempDir()
	bundle, err := pki.EnsureServing(filepath.Join(dataDir, "pki"), nil, time.Now(), rand.Reader)
	require.NoError(t, err)
	tokenPath, token, err := EnsureTokenFile(dataDir, rand.Reader)
	require.NoError(t, err)
	auth, err := NewTokenFile(tokenPath)
	require.NoError(t, err)
	srv, callers := startDiscoveryServer(t, bundle, auth)

	kubeconfig := filepath.Join(dataDir, "admin.conf")
	require.NoError(t, pki.WriteKubeconfig(kubeconfig, srv.URL, bundle.CAPEM, token, AdminUser, "kubesim"))

	stdout, stderr, err := runKubectl(t, kubeconfig, "version", "-o", "json")
	require.NoError(t, err, "stdout: %s\nstderr: %s", stdout, stderr)
	var v struct {
		ServerVersion struct {
			Major, Minor, GitVersion string
		} `json:"serverVersion"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &v), stdout)
	assert.Equal(t, "1", v.ServerVersion.Major)
	assert.Equal(t, "32", v.ServerVersion.Minor)
	assert.Equal(t, "v1.32.0", v.ServerVersion.GitVersion)
	assert.Contains(t, callers(), AdminUser+" /version", "kubectl authenticated as the admin")

	// Our own reader understands the same file.
	kc, err := pki.LoadKubeconfig(kubeconfig)
	require.NoError(t, err)
	assert.Equal(t, srv.URL, kc.Server)
	assert.Equal(t, token, kc.Token)

	// With a wrong token kubectl reports the 401 in its usual words. Where
	// kubectl decodes the body (get --raw), the Status message shows
	// through; `version` and discovery read only the status code and say
	// "the server has asked for the client to provide credentials", as they
	// do against a real kube-apiserver.
	wrong := filepath.Join(dataDir, "wrong.conf")
	require.NoError(t, pki.WriteKubeconfig(wrong, srv.URL, bundle.CAPEM, "not-the-token", AdminUser, "kubesim"))
	stdout, stderr, err = runKubectl(t, wrong, "get", "--raw", "/api")
	require.Error(t, err)
	assert.Contains(t, stdout+stderr, "You must be logged in to the server (Unauthorized)")
	stdout, stderr, err = runKubectl(t, wrong, "version", "-o", "json")
	require.Error(t, err)
	assert.Contains(t, stdout+stderr, "You must be logged in to the server (the server has asked for the client to provide credentials)")
	stdout, stderr, err = runKubectl(t, kubeconfig, "get", "--raw", "/api")
	require.NoError(t, err, stderr)
	assert.Contains(t, stdout, `"kind":"APIVersions"`)

	// A kubeconfig trusting another CA fails verification.
	other, err := pki.EnsureServing(t.TempDir(), nil, time.Now(), rand.Reader)
	require.NoError(t, err)
	untrusted := filepath.Join(dataDir, "untrusted.conf")
	require.NoError(t, pki.WriteKubeconfig(untrusted, srv.URL, other.CAPEM, token, AdminUser, "kubesim"))
	stdout, stderr, err = runKubectl(t, untrusted, "version", "-o", "json")
	require.Error(t, err)
	assert.Contains(t, stdout+stderr, "certificate signed by unknown authority")
}
