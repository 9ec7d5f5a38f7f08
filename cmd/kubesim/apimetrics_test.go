package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/metrics/metricstest"
	"github.com/kubesim/kubesim/pki"
)

// `kubectl get --raw /metrics` through the real kubectl over HTTPS: 401
// without credentials the server knows (anonymous is off), 403 for a user
// outside the group system:monitoring, the Prometheus text for one inside
// it; and the counts move with what kubectl does. (kubectl with no
// credentials at all asks for a username instead of sending the request;
// that request is made here with Go's client.)
func TestKubectlGetRawMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	require.NoError(t, os.WriteFile(tokens, []byte("prom-token,prometheus,prom-uid,system:monitoring\nbob-token,bob,bob-uid\n"), 0o600))
	s := startServer(t, dir, "--api-server-only", "--token-file", tokens)
	admin := newKubectl(t, s)
	prom, bob := asUser(t, s, "prom-token"), asUser(t, s, "bob-token")
	stranger := asUser(t, s, "nobody-knows-this-token")
	assert.Contains(t, stranger.fail("get", "--raw", "/metrics"), "error: You must be logged in to the server (Unauthorized)")
	caPEM, err := os.ReadFile(filepath.Join(dir, pki.CACertFile))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(caPEM))
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := hc.Get(s.url + "/metrics")
	require.NoError(t, err)
	var st metav1.Status
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
		Message: "Unauthorized", Reason: metav1.StatusReasonUnauthorized, Code: http.StatusUnauthorized}, st)
	assert.Contains(t, bob.fail("get", "--raw", "/metrics"), `Error from server (Forbidden): forbidden: User "bob" cannot get path "/metrics"`)
	assert.Equal(t, "yes\n", prom.ok("auth", "can-i", "get", "/metrics"))
	out, _ := bob.run(true, "auth", "can-i", "get", "/metrics")
	assert.Equal(t, "no\n", out)

	scrape := func() metricstest.Families {
		t.Helper()
		out := prom.ok("get", "--raw", "/metrics")
		require.True(t, strings.HasPrefix(out, "# HELP "), out[:min(len(out), 200)])
		f, err := metricstest.ParseString(out)
		require.NoError(t, err)
		return f
	}
	before := scrape()
	for _, name := range []string{"p1", "p2", "p3"} {
		admin.ok("run", name, "--image=nginx")
	}
	after := scrape()
	created := map[string]string{"verb": "POST", "resource": "pods", "code": "201", "component": "apiserver"}
	assert.Equal(t, 3.0, after.Sum("apiserver_request_total", created)-before.Sum("apiserver_request_total", created))
	assert.GreaterOrEqual(t, after.Sum("apiserver_request_total", map[string]string{"verb": "GET", "subresource": "/metrics", "code": "200"}), 1.0,
		"the scrape before")
	assert.True(t, after.Has("apiserver_storage_objects", map[string]string{"resource": "pods"}), "counted at most once a minute")
	for _, name := range []string{"apiserver_request_duration_seconds", "apiserver_current_inflight_requests", "etcd_request_duration_seconds",
		"apiserver_storage_size_bytes", "go_goroutines", "process_resident_memory_bytes"} {
		assert.Contains(t, after, name)
	}
	// Each admission plugin call is timed under the plugin's name.
	limitRanger := map[string]string{"name": "LimitRanger", "type": "admit", "operation": "CREATE", "rejected": "false"}
	assert.GreaterOrEqual(t, after.Sum("apiserver_admission_controller_admission_duration_seconds", limitRanger)-
		before.Sum("apiserver_admission_controller_admission_duration_seconds", limitRanger), 3.0)

	// The health checks, as kube-apiserver answers them, and their
	// results at /metrics/slis, authorized as /metrics is.
	assert.Equal(t, "[+]ping ok\n[+]etcd ok\n[+]poststarthook/rbac/bootstrap-roles ok\nreadyz check passed\n",
		bob.ok("get", "--raw", "/readyz?verbose"))
	assert.Equal(t, "ok", prom.ok("get", "--raw", "/livez/etcd"))
	assert.Contains(t, bob.fail("get", "--raw", "/livez/etcd"), `Error from server (Forbidden): forbidden: User "bob" cannot get path "/livez/etcd"`)
	assert.Contains(t, stranger.fail("get", "--raw", "/metrics/slis"), "error: You must be logged in to the server (Unauthorized)")
	assert.Contains(t, bob.fail("get", "--raw", "/metrics/slis"), `Error from server (Forbidden): forbidden: User "bob" cannot get path "/metrics/slis"`)
	slis, err := metricstest.ParseString(prom.ok("get", "--raw", "/metrics/slis"))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, slis.Sum("kubernetes_healthchecks_total", map[string]string{"name": "etcd", "type": "readyz", "status": "success"}), 1.0)
	assert.Equal(t, 1.0, slis.Sum("kubernetes_healthcheck", map[string]string{"name": "etcd", "type": "readyz"}))
}
