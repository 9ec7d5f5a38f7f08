package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/pki"
)

// withKubeconfig is a kubectl using another kubeconfig on the same server.
func withKubeconfig(t *testing.T, s *server, path string) *kubectl {
	k := newKubectl(t, s)
	k.kubeconfig = path
	return k
}

// eventually runs kubectl until it succeeds (a controller's work).
func eventually(t *testing.T, k *kubectl, args ...string) string {
	t.Helper()
	var out string
	require.Eventually(t, func() bool {
		cmd := k.cmd(args...)
		b, err := cmd.Output()
		out = string(b)
		return err == nil
	}, time.Minute, 100*time.Millisecond, "kubectl %s", strings.Join(args, " "))
	return out
}

// TestKubectlServiceAccounts: service accounts through the real kubectl —
// the default account of every namespace, `kubectl create
// token`, the token's identity and its limits, the ServiceAccount
// admission plugin, bound tokens revoked with their pod.
func TestKubectlServiceAccounts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, dir, "--nodes", "1", "--stage-delay", "0s")
	admin := newKubectl(t, s)

	assert.Regexp(t, `(?m)^default\s+0\s+\d+s$`, eventually(t, admin, "get", "serviceaccounts", "-n", "default"))
	admin.ok("create", "namespace", "team")
	eventually(t, admin, "get", "sa", "default", "-n", "team")
	ca := eventually(t, admin, "get", "configmap", "kube-root-ca.crt", "-n", "team", "-o", "jsonpath={.data.ca\\.crt}")
	caPEM, err := os.ReadFile(filepath.Join(dir, pki.CACertFile))
	require.NoError(t, err)
	assert.Equal(t, string(caPEM), ca)

	token := strings.TrimSpace(admin.ok("create", "token", "default"))
	assert.Equal(t, 2, strings.Count(token, "."), "a compact JWT")
	sa := asUser(t, s, token)
	who := sa.ok("auth", "whoami")
	assert.Regexp(t, `(?m)^Username\s+system:serviceaccount:default:default$`, who)
	assert.Regexp(t, `(?m)^Groups\s+\[system:serviceaccounts system:serviceaccounts:default system:authenticated\]$`, who)
	list := sa.ok("auth", "can-i", "--list")
	assert.Contains(t, list, "selfsubjectaccessreviews.authorization.k8s.io")
	assert.NotContains(t, list, "pods ")
	assert.Equal(t, `Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:default:default" cannot list resource "pods" in API group "" in the namespace "default"`+"\n",
		sa.fail("get", "pods"))
	// A RoleBinding to the account (kind ServiceAccount) lets it in.
	admin.ok("create", "rolebinding", "sa-view", "--clusterrole=view", "--serviceaccount=default:default")
	sa.ok("get", "pods")

	t.Run("duration and audience", func(t *testing.T) {
		assert.Contains(t, admin.fail("create", "token", "default", "--duration", "1m"),
			`error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes`)
		admin.ok("create", "token", "default", "--duration", "2h")
		vault := strings.TrimSpace(admin.ok("create", "token", "default", "--audience", "vault"))
		assert.Contains(t, asUser(t, s, vault).fail("auth", "whoami"), "Unauthorized")
		assert.Contains(t, admin.fail("create", "token", "nobody"), `serviceaccounts "nobody" not found`)
	})

	t.Run("admission plugin", func(t *testing.T) {
		admin.ok("run", "web", "--image=nginx")
		assert.Equal(t, "default", admin.ok("get", "pod", "web", "-o", "jsonpath={.spec.serviceAccountName}"))
		assert.Regexp(t, `^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$`, admin.ok("get", "pod", "web", "-o", "jsonpath={.spec.volumes[0].name}"))
		assert.Equal(t, "/var/run/secrets/kubernetes.io/serviceaccount", admin.ok("get", "pod", "web", "-o", "jsonpath={.spec.containers[0].volumeMounts[0].mountPath}"))
		assert.Equal(t, "3607 kube-root-ca.crt metadata.namespace", admin.ok("get", "pod", "web", "-o",
			"jsonpath={.spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds} {.spec.volumes[0].projected.sources[1].configMap.name} {.spec.volumes[0].projected.sources[2].downwardAPI.items[0].fieldRef.fieldPath}"))

		assert.Equal(t, `Error from server (Forbidden): pods "lost" is forbidden: error looking up service account default/nope: serviceaccount "nope" not found`+"\n",
			admin.fail("run", "lost", "--image=nginx", `--overrides={"spec":{"serviceAccountName":"nope"}}`))

		admin.ok("create", "serviceaccount", "quiet")
		admin.ok("patch", "serviceaccount", "quiet", "-p", `{"automountServiceAccountToken":false}`)
		admin.ok("run", "calm", "--image=nginx", `--overrides={"spec":{"serviceAccountName":"quiet"}}`)
		assert.Empty(t, admin.ok("get", "pod", "calm", "-o", "jsonpath={.spec.volumes}"))
	})

	t.Run("bound token dies with its pod, a token with its account", func(t *testing.T) {
		admin.ok("run", "bound", "--image=nginx")
		tok := strings.TrimSpace(admin.ok("create", "token", "default", "--bound-object-kind", "Pod", "--bound-object-name", "bound"))
		k := asUser(t, s, tok)
		// (whoami would show the pod in Extra rows, but kubesim's
		// SelfSubjectReview keeps no extra yet.)
		assert.Regexp(t, `(?m)^Username\s+system:serviceaccount:default:default$`, k.ok("auth", "whoami"))
		admin.ok("delete", "pod", "bound", "--wait=false")
		assert.Contains(t, k.fail("auth", "whoami"), "Unauthorized")

		admin.ok("create", "serviceaccount", "robot")
		robot := asUser(t, s, strings.TrimSpace(admin.ok("create", "token", "robot")))
		assert.Regexp(t, `(?m)^Username\s+system:serviceaccount:default:robot$`, robot.ok("auth", "whoami"))
		admin.ok("delete", "serviceaccount", "robot")
		assert.Contains(t, robot.fail("auth", "whoami"), "Unauthorized")
	})
}

// TestKubectlClientCertificates: `kubesim kubeconfig --user alice --group
// dev` writes a kubeconfig with a client certificate of the cluster CA;
// kubectl is alice with it, and a certificate of another CA is refused.
func TestKubectlClientCertificates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, dir, "--api-server-only")
	path := filepath.Join(t.TempDir(), "alice.kubeconfig")
	var stderr strings.Builder
	require.Equal(t, 0, run(context.Background(), []string{"kubeconfig", "--user", "alice", "--group", "dev", "--group", "ops",
		"--data-dir", dir, "--out", path}, io.Discard, &stderr), stderr.String())
	alice := withKubeconfig(t, s, path)
	who := alice.ok("auth", "whoami")
	assert.Regexp(t, `(?m)^Username\s+alice$`, who)
	assert.Regexp(t, `(?m)^Groups\s+\[dev ops system:authenticated\]$`, who)
	assert.Equal(t, `Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"`+"\n",
		alice.fail("get", "pods"))

	// Printed to standard output without --out.
	var out strings.Builder
	require.Equal(t, 0, run(context.Background(), []string{"kubeconfig", "--user", "bob", "--data-dir", dir}, &out, io.Discard))
	assert.Contains(t, out.String(), "client-certificate-data: ")
	assert.Equal(t, 1, run(context.Background(), []string{"kubeconfig", "--data-dir", dir}, io.Discard, io.Discard), "--user is required")

	// The same kubeconfig, but the certificate of another CA.
	other, err := pki.EnsureServing(t.TempDir(), nil, time.Now(), rand.Reader)
	require.NoError(t, err)
	certPEM, keyPEM, err := other.IssueClientCert("mallory", []string{"system:masters"}, time.Now(), rand.Reader)
	require.NoError(t, err)
	caPEM, err := os.ReadFile(filepath.Join(dir, pki.CACertFile))
	require.NoError(t, err)
	forged := filepath.Join(t.TempDir(), "forged.kubeconfig")
	require.NoError(t, pki.WriteCertKubeconfig(forged, s.url, caPEM, certPEM, keyPEM, "mallory", "kubesim"))
	assert.Contains(t, withKubeconfig(t, s, forged).fail("get", "--raw", "/api/v1/namespaces"), "Unauthorized")
}

// TestAnonymous: a request without credentials is refused with 401
// unless --anonymous-auth=true; then RBAC decides, as for system:anonymous
// (system:public-info-viewer lets everyone read /version). Plain HTTP:
// kubectl without credentials would prompt for a user name.
func TestAnonymous(t *testing.T) {
	t.Parallel()
	for _, anonymous := range []bool{false, true} {
		dir := t.TempDir()
		args := []string{"--api-server-only"}
		if anonymous {
			args = append(args, "--anonymous-auth=true")
		}
		s := startServer(t, dir, args...)
		caPEM, err := os.ReadFile(filepath.Join(dir, pki.CACertFile))
		require.NoError(t, err)
		pool := x509.NewCertPool()
		require.True(t, pool.AppendCertsFromPEM(caPEM))
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
		get := func(path string) (int, string) {
			resp, err := hc.Get(s.url + path)
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			return resp.StatusCode, string(body)
		}
		if !anonymous {
			code, body := get("/version")
			assert.Equal(t, http.StatusUnauthorized, code)
			assert.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`, body)
			continue
		}
		code, body := get("/version")
		assert.Equal(t, http.StatusOK, code)
		assert.Contains(t, body, `"gitVersion"`)
		code, body = get("/api/v1/namespaces/default/pods")
		assert.Equal(t, http.StatusForbidden, code)
		assert.Contains(t, body, `"message":"pods is forbidden: User \"system:anonymous\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\""`)
	}
}
