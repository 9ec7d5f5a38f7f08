package admission

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
)

// signerGrants allows user verb on the signers named.
type signerGrants map[string][]string // "user verb" -> signer names

func (g signerGrants) Authorize(_ context.Context, a authz.Attributes) (authz.Decision, string, error) {
	if a.APIGroup != "certificates.k8s.io" || a.Resource != "signers" {
		return authz.DecisionNoOpinion, "", nil
	}
	for _, n := range g[a.User.Name+" "+a.Verb] {
		if n == a.Name {
			return authz.DecisionAllow, "", nil
		}
	}
	return authz.DecisionNoOpinion, "", nil
}

func csrRequest(t *testing.T, cn string, orgs ...string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}}, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func csrWrite(op Operation, sub, user string, obj, old *certificatesv1.CertificateSigningRequest) *Attributes {
	a := &Attributes{Operation: op, Resource: schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests"},
		Subresource: sub, Name: "jane", User: &authn.UserInfo{Name: user}}
	if obj != nil {
		a.Object = obj
	}
	if old != nil {
		a.OldObject = old
	}
	return a
}

// Approving needs "approve" on the signer (or its domain/*); signing
// needs "sign"; nobody may ask kube-apiserver-client for system:masters.
func TestCertificatePlugins(t *testing.T) {
	ctx := context.Background()
	grants := signerGrants{
		"approver approve": {"kubernetes.io/kube-apiserver-client"},
		"domain approve":   {"kubernetes.io/*"},
		"signer sign":      {"kubernetes.io/kube-apiserver-client"},
	}
	csr := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "jane"},
		Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: "kubernetes.io/kube-apiserver-client", Request: csrRequest(t, "jane", "dev")}}

	approval := &CertificateApproval{Authorizer: grants}
	require.NoError(t, approval.Validate(ctx, csrWrite(Update, "approval", "approver", csr, csr)))
	require.NoError(t, approval.Validate(ctx, csrWrite(Update, "approval", "domain", csr, csr)))
	err := approval.Validate(ctx, csrWrite(Update, "approval", "bob", csr, csr))
	require.True(t, api.IsForbidden(err), "%v", err)
	assert.Equal(t, `certificatesigningrequests.certificates.k8s.io "jane" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"`, err.Error())
	require.NoError(t, approval.Validate(ctx, csrWrite(Update, "status", "bob", csr, csr)), "only /approval is checked")

	signing := &CertificateSigning{Authorizer: grants}
	issued := csr.DeepCopy()
	issued.Status.Certificate = []byte("cert")
	require.NoError(t, signing.Validate(ctx, csrWrite(Update, "status", "signer", issued, csr)))
	require.NoError(t, signing.Validate(ctx, csrWrite(Update, "status", "bob", csr, csr)), "no new certificate, nothing to check")
	err = signing.Validate(ctx, csrWrite(Update, "status", "approver", issued, csr))
	require.True(t, api.IsForbidden(err))
	assert.Contains(t, err.Error(), `user not permitted to sign requests with signerName "kubernetes.io/kube-apiserver-client"`)

	restrict := CertificateSubjectRestriction{}
	require.NoError(t, restrict.Validate(ctx, csrWrite(Create, "", "bob", csr, nil)))
	masters := csr.DeepCopy()
	masters.Spec.Request = csrRequest(t, "eve", "system:masters")
	err = restrict.Validate(ctx, csrWrite(Create, "", "bob", masters, nil))
	require.True(t, api.IsForbidden(err))
	assert.Contains(t, err.Error(), "use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed")
	other := masters.DeepCopy()
	other.Spec.SignerName = "example.com/signer"
	require.NoError(t, restrict.Validate(ctx, csrWrite(Create, "", "bob", other, nil)), "other signers decide for themselves")
}
