package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/pki"
)

func TestExtensionAPIServerArguments(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no CA", []string{"extension-apiserver"}, "--requestheader-client-ca-file is required"},
		{"missing CA file", []string{"extension-apiserver", "--requestheader-client-ca-file", filepath.Join(t.TempDir(), "nope")}, "no such file"},
		{"extra args", []string{"extension-apiserver", "more"}, `unexpected arguments ["more"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			assert.Equal(t, 1, run(context.Background(), tc.args, &out, &errb))
			assert.Contains(t, errb.String(), tc.want)
		})
	}
}

// startExtensionProcess runs `kubesim extension-apiserver` (this test
// binary run again as kubesim) until the test ends and returns its address.
func startExtensionProcess(t *testing.T, caFile string) string {
	t.Helper()
	line, _ := startKubesimProcess(t, "extension-apiserver", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(),
		"--requestheader-client-ca-file", caFile)
	re := regexp.MustCompile(`^extension API server for wardle\.example\.com/v1alpha1 listening on https://(\S+)$`)
	m := re.FindStringSubmatch(line)
	require.NotNil(t, m, line)
	return m[1]
}

// The extension API server as its own process, outside the cluster: an
// ExternalName Service names its host, the APIService routes the group to
// it, and it trusts the aggregator through the token kubesim serve wrote.
func TestExtensionAPIServerAsItsOwnProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, dir, "--nodes", "1", "--stage-delay", "20ms")
	k := newKubectl(t, s)
	addr := startExtensionProcess(t, filepath.Join(dir, pki.FrontProxyCACertFile))
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)

	// Without the front proxy's client certificate, X-Remote-User is not
	// believed, whatever else the request carries.
	req, err := http.NewRequest("GET", "https://"+addr+"/apis/wardle.example.com/v1alpha1/flunders", nil)
	require.NoError(t, err)
	req.Header.Set("X-Remote-User", "admin")
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: 10 * time.Second}
	resp, err := insecure.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	manifest, err := os.ReadFile(filepath.Join(aggregatorExamples, "outside", "outside.yaml"))
	require.NoError(t, err)
	require.Contains(t, string(manifest), "port: 8443")
	path := filepath.Join(t.TempDir(), "outside.yaml")
	require.NoError(t, os.WriteFile(path, bytes.ReplaceAll(manifest, []byte("port: 8443"), []byte("port: "+port)), 0o600))
	k.ok("apply", "-f", path)
	require.Eventually(t, func() bool {
		out, _ := k.run(false, "get", "apiservice", "v1alpha1.wardle.example.com", "--no-headers")
		return regexpMatch(`^v1alpha1\.wardle\.example\.com\s+wardle/api\s+True\s`, out)
	}, 30*time.Second, 200*time.Millisecond, k.ok("get", "apiservices", "v1alpha1.wardle.example.com", "-o", "yaml"))

	out := k.ok("apply", "-f", filepath.Join(aggregatorExamples, "flunder.yaml"))
	assert.Equal(t, "flunder.wardle.example.com/my-first-flunder created\n", out)
	out = k.ok("get", "flunders")
	assert.Regexp(t, `(?m)^my-first-flunder\s+other-flunder\s+\d+s$`, out)
}
