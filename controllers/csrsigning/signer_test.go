package csrsigning

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api/certificates"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/pki"
	"github.com/kubesim/kubesim/runmode"
)

func request(t *testing.T, tmpl *x509.CertificateRequest) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.CreateCertificateRequest(rand.Reader, tmpl, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

type harness struct {
	t    *testing.T
	ctx  context.Context
	env  *apiservertest.Env
	ctrl *Controller
	ca   *pki.Bundle
}

func newHarness(t *testing.T) *harness {
	env := apiservertest.New(t)
	ca, err := pki.NewCA(apiservertest.Start.Add(-time.Hour), rand.Reader)
	require.NoError(t, err)
	c, err := New(Config{Client: env.Client, Clock: env.Clock, Mode: runmode.Step, CA: ca})
	require.NoError(t, err)
	return &harness{t: t, ctx: context.Background(), env: env, ctrl: c, ca: ca}
}

func (h *harness) settle() {
	h.t.Helper()
	c := h.ctrl.Controllers()[0]
	for range 20 {
		require.NoError(h.t, c.Sync(h.ctx))
		stepped := false
		for {
			info, ok := c.Step(h.ctx)
			if !ok {
				break
			}
			require.NoError(h.t, info.Err)
			stepped = true
		}
		if !stepped {
			return
		}
	}
	h.t.Fatal("did not settle")
}

// create makes the CSR and approves it through /approval, as kubectl
// certificate approve does.
func (h *harness) createApproved(name, signer string, req []byte, usages []certificatesv1.KeyUsage, seconds *int32) {
	h.t.Helper()
	csrs := h.env.Client.CertificateSigningRequests()
	csr, err := csrs.Create(h.ctx, &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: certificatesv1.CertificateSigningRequestSpec{Request: req, SignerName: signer, Usages: usages, ExpirationSeconds: seconds}})
	require.NoError(h.t, err)
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateApproved,
		Status: corev1.ConditionTrue, Reason: "KubectlApprove", Message: "This CSR was approved by kubectl certificate approve.",
		LastUpdateTime: metav1.NewTime(h.env.Clock.Now())})
	_, err = csrs.UpdateSubresource(h.ctx, csr, "approval")
	require.NoError(h.t, err)
}

func (h *harness) get(name string) *certificatesv1.CertificateSigningRequest {
	h.t.Helper()
	csr, err := h.env.Client.CertificateSigningRequests().Get(h.ctx, "", name)
	require.NoError(h.t, err)
	return csr
}

func TestSignsAnApprovedClientCertificate(t *testing.T) {
	h := newHarness(t)
	// A pending request is left alone.
	_, err := h.env.Client.CertificateSigningRequests().Create(h.ctx, &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "pending"},
		Spec: certificatesv1.CertificateSigningRequestSpec{Request: request(t, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "bob"}}),
			SignerName: certificatesv1.KubeAPIServerClientSignerName, Usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}}})
	require.NoError(t, err)
	h.createApproved("jane", certificatesv1.KubeAPIServerClientSignerName,
		request(t, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "jane", Organization: []string{"dev"}}}),
		[]certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth},
		ptrTo(int32(86400)))
	h.settle()

	assert.Empty(t, h.get("pending").Status.Certificate)
	csr := h.get("jane")
	require.NotEmpty(t, csr.Status.Certificate)
	cert, err := pki.ParseCertPEM("status.certificate", csr.Status.Certificate)
	require.NoError(t, err)
	assert.Equal(t, "jane", cert.Subject.CommonName)
	assert.Equal(t, []string{"dev"}, cert.Subject.Organization)
	assert.Equal(t, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, cert.ExtKeyUsage)
	assert.Equal(t, x509.KeyUsageDigitalSignature|x509.KeyUsageKeyEncipherment, cert.KeyUsage)
	assert.False(t, cert.IsCA)
	now := h.env.Clock.Now()
	assert.Equal(t, now.Add(-5*time.Minute).UTC(), cert.NotBefore)
	assert.Equal(t, now.Add(24*time.Hour).UTC(), cert.NotAfter, "the requested day")
	// It chains to the CA, for client auth: what the API server's x509
	// authenticator checks.
	_, err = cert.Verify(x509.VerifyOptions{Roots: h.ca.CertPool(), CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	require.NoError(t, err)
	assert.Equal(t, "Approved,Issued", conditionOf(csr))
}

func conditionOf(csr *certificatesv1.CertificateSigningRequest) string {
	s := "Pending"
	if certificates.IsApproved(csr) {
		s = "Approved"
	}
	if certificates.HasTrueCondition(csr, certificatesv1.CertificateFailed) {
		s += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		s += ",Issued"
	}
	return s
}

func ptrTo[T any](v T) *T { return &v }

// The kubelet signers sign only what a kubelet may hold; a request that
// breaks its signer's rules is marked Failed and never signed; a signer
// the controller does not run is left alone.
func TestSignerRestrictions(t *testing.T) {
	h := newHarness(t)
	nodeClient := []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth}
	serving := []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageServerAuth}
	h.createApproved("kubelet-client", certificatesv1.KubeAPIServerClientKubeletSignerName,
		request(t, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:node-1", Organization: []string{"system:nodes"}}}), nodeClient, nil)
	h.createApproved("kubelet-client-bad", certificatesv1.KubeAPIServerClientKubeletSignerName,
		request(t, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "jane", Organization: []string{"system:nodes"}}}), nodeClient, nil)
	h.createApproved("kubelet-serving", certificatesv1.KubeletServingSignerName,
		request(t, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:node-1", Organization: []string{"system:nodes"}},
			IPAddresses: []net.IP{net.ParseIP("10.0.0.1")}, DNSNames: []string{"node-1"}}), serving, nil)
	h.createApproved("kubelet-serving-no-san", certificatesv1.KubeletServingSignerName,
		request(t, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:node-1", Organization: []string{"system:nodes"}}}), serving, nil)
	h.createApproved("client-server-auth", certificatesv1.KubeAPIServerClientSignerName,
		request(t, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "jane"}}), []certificatesv1.KeyUsage{certificatesv1.UsageServerAuth}, nil)
	h.createApproved("other-signer", "example.com/signer",
		request(t, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "jane"}}), []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}, nil)
	h.settle()

	assert.Equal(t, "Approved,Issued", conditionOf(h.get("kubelet-client")))
	cert, err := pki.ParseCertPEM("serving", h.get("kubelet-serving").Status.Certificate)
	require.NoError(t, err)
	assert.Equal(t, []string{"node-1"}, cert.DNSNames)
	assert.Equal(t, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, cert.ExtKeyUsage)
	assert.Equal(t, now(h).Add(DefaultDuration).UTC(), cert.NotAfter, "no expirationSeconds: the signing duration")
	for name, why := range map[string]string{
		"kubelet-client-bad":     "subject common name does not begin with system:node:",
		"kubelet-serving-no-san": "DNS or IP subjectAltName is required",
		"client-server-auth":     "invalid usage for client certificate: server auth",
	} {
		csr := h.get(name)
		assert.Equal(t, "Approved,Failed", conditionOf(csr), name)
		require.Len(t, csr.Status.Conditions, 2, name)
		assert.Equal(t, "SignerValidationFailure", csr.Status.Conditions[1].Reason, name)
		assert.Equal(t, why, csr.Status.Conditions[1].Message, name)
	}
	assert.Equal(t, "Approved", conditionOf(h.get("other-signer")))
}

func now(h *harness) time.Time { return h.env.Clock.Now() }

func TestCertificateDuration(t *testing.T) {
	year := DefaultDuration
	assert.Equal(t, year, CertificateDuration(year, nil))
	assert.Equal(t, time.Hour, CertificateDuration(year, ptrTo(int32(3600))))
	assert.Equal(t, year, CertificateDuration(year, ptrTo(int32(10*365*24*3600))))
	assert.Equal(t, 10*time.Minute, CertificateDuration(year, ptrTo(int32(60))))
}
