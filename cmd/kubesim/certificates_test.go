package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openssl runs the real openssl in dir.
func openssl(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("openssl", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "openssl %s: %s", strings.Join(args, " "), out)
}

const csrManifest = `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: %s
spec:
  request: %s
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  usages:
  - client auth
`

// The "create a user with a certificate" lesson, step by step with the
// real openssl and kubectl: a key and a CSR for CN=jane O=dev, a
// CertificateSigningRequest for kube-apiserver-client, `kubectl
// certificate approve` (through /approval), the certificate the
// csrsigning controller issues, and a kubeconfig with it that logs in to
// the HTTPS port as jane in dev — with RBAC, allowed what a binding
// gives dev and nothing more. Then the refusals: a denied request is
// never signed, and nobody gets a system:masters certificate this way.
func TestKubectlCertificateSigningRequestLesson(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatalf("openssl is required for this test: %v", err)
	}
	dir := t.TempDir()
	s := startServer(t, dir, "--nodes", "0")
	admin := newKubectl(t, s)
	work := t.TempDir()

	openssl(t, work, "genrsa", "-out", "jane.key", "2048")
	openssl(t, work, "req", "-new", "-key", "jane.key", "-subj", "/CN=jane/O=dev", "-out", "jane.csr")
	pemCSR, err := os.ReadFile(filepath.Join(work, "jane.csr"))
	require.NoError(t, err)
	manifest := writeManifest(t, "csr.yaml", fmt.Sprintf(csrManifest, "jane", base64.StdEncoding.EncodeToString(pemCSR)))
	assert.Equal(t, "certificatesigningrequest.certificates.k8s.io/jane created\n", admin.ok("apply", "-f", manifest))

	out := admin.ok("get", "csr")
	assert.Regexp(t, `(?m)^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION$`, out)
	assert.Regexp(t, `(?m)^jane\s+\d+s\s+kubernetes.io/kube-apiserver-client\s+admin\s+24h\s+Pending$`, out, "the requestor is who created it")
	assert.Equal(t, "admin", admin.ok("get", "csr", "jane", "-o", "jsonpath={.spec.username}"))

	assert.Equal(t, "certificatesigningrequest.certificates.k8s.io/jane approved\n", admin.ok("certificate", "approve", "jane"))
	admin.eventually(func(out string) bool { return strings.Contains(out, "Approved,Issued") }, "get", "csr", "jane")
	b64 := admin.ok("get", "csr", "jane", "-o", "jsonpath={.status.certificate}")
	crt, err := base64.StdEncoding.DecodeString(b64)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(work, "jane.crt"), crt, 0o600))
	out = admin.ok("get", "csr", "jane", "-o", "jsonpath={.status.conditions[0].type} {.status.conditions[0].reason}")
	assert.Equal(t, "Approved KubectlApprove", out)

	// A kubeconfig for jane: the admin's cluster, jane's key and certificate.
	kc := filepath.Join(work, "jane.kubeconfig")
	raw, err := os.ReadFile(s.kubeconfig)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(kc, raw, 0o600))
	jane := withKubeconfig(t, s, kc)
	cluster := strings.TrimSpace(jane.ok("config", "view", "-o", "jsonpath={.contexts[0].context.cluster}"))
	jane.ok("config", "set-credentials", "jane", "--client-key="+filepath.Join(work, "jane.key"),
		"--client-certificate="+filepath.Join(work, "jane.crt"), "--embed-certs=true")
	jane.ok("config", "set-context", "jane", "--cluster="+cluster, "--user=jane")
	jane.ok("config", "use-context", "jane")

	whoami := jane.ok("auth", "whoami")
	assert.Regexp(t, `(?m)^Username\s+jane$`, whoami)
	assert.Regexp(t, `(?m)^Groups\s+\[dev system:authenticated\]$`, whoami)
	assert.Contains(t, jane.fail("get", "pods"),
		`Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"`)
	admin.ok("create", "rolebinding", "dev-view", "--clusterrole=view", "--group=dev")
	eventually(t, jane, "get", "pods") // once the authorizer's cache has the binding

	// Denied: never signed.
	openssl(t, work, "req", "-new", "-key", "jane.key", "-subj", "/CN=joe/O=dev", "-out", "joe.csr")
	pemCSR, err = os.ReadFile(filepath.Join(work, "joe.csr"))
	require.NoError(t, err)
	admin.ok("apply", "-f", writeManifest(t, "joe.yaml", fmt.Sprintf(csrManifest, "joe", base64.StdEncoding.EncodeToString(pemCSR))))
	assert.Equal(t, "certificatesigningrequest.certificates.k8s.io/joe denied\n", admin.ok("certificate", "deny", "joe"))
	assert.Regexp(t, `(?m)^joe\s+.*\s+Denied$`, admin.ok("get", "csr", "joe"))
	assert.Contains(t, admin.fail("certificate", "approve", "joe"), `certificate signing request "joe" is already Denied`)

	// Approving takes two grants: update on certificatesigningrequests/approval
	// (RBAC on the request) and "approve" on the signer (the
	// CertificateApproval admission plugin asks RBAC about
	// signers/kubernetes.io/kube-apiserver-client).
	assert.Contains(t, jane.fail("certificate", "approve", "jane", "--force"), `User "jane" cannot get resource "certificatesigningrequests"`)
	openssl(t, work, "req", "-new", "-key", "jane.key", "-subj", "/CN=kim/O=dev", "-out", "kim.csr")
	pemCSR, err = os.ReadFile(filepath.Join(work, "kim.csr"))
	require.NoError(t, err)
	admin.ok("apply", "-f", writeManifest(t, "kim.yaml", fmt.Sprintf(csrManifest, "kim", base64.StdEncoding.EncodeToString(pemCSR))))
	admin.ok("create", "clusterrole", "csr-reviewer", "--verb=get,list,watch,update",
		"--resource=certificatesigningrequests,certificatesigningrequests/approval")
	admin.ok("create", "clusterrolebinding", "dev-csr-reviewer", "--clusterrole=csr-reviewer", "--group=dev")
	var errOut string
	require.Eventually(t, func() bool { // once the authorizer's cache has the binding
		b, _ := jane.cmd("certificate", "approve", "kim").CombinedOutput()
		errOut = string(b)
		return strings.Contains(errOut, "user not permitted to approve")
	}, time.Minute, 100*time.Millisecond, "last: %s", errOut)
	assert.Contains(t, errOut, `certificatesigningrequests.certificates.k8s.io "kim" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"`)
	admin.ok("create", "clusterrolebinding", "dev-approver", "--clusterrole=system:certificates.k8s.io:kube-apiserver-client-approver", "--group=dev")
	eventually(t, jane, "certificate", "approve", "kim")
	admin.eventually(func(out string) bool { return strings.Contains(out, "Approved,Issued") }, "get", "csr", "kim")

	// Nobody gets a system:masters certificate this way.
	openssl(t, work, "req", "-new", "-key", "jane.key", "-subj", "/CN=eve/O=system:masters", "-out", "eve.csr")
	pemCSR, err = os.ReadFile(filepath.Join(work, "eve.csr"))
	require.NoError(t, err)
	assert.Contains(t, admin.fail("apply", "-f", writeManifest(t, "eve.yaml", fmt.Sprintf(csrManifest, "eve", base64.StdEncoding.EncodeToString(pemCSR)))),
		"use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed")
}
