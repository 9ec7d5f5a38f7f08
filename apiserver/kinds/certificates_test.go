package kinds

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/authn"
)

// csrPEM makes a PEM CERTIFICATE REQUEST for cn in orgs.
func csrPEM(t *testing.T, cn string, orgs ...string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}}, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func newCSR(t *testing.T) *certificatesv1.CertificateSigningRequest {
	return &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "jane"},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request: csrPEM(t, "jane", "dev"), SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}, ExpirationSeconds: ptr(int32(86400)),
		},
	}
}

func TestCSRValidation(t *testing.T) {
	st := csrStrategy{}
	assert.Empty(t, st.Validate(newCSR(t)))
	fieldsOf := func(csr *certificatesv1.CertificateSigningRequest) []string {
		var out []string
		for _, e := range st.Validate(csr) {
			out = append(out, e.Field)
		}
		return out
	}
	bad := newCSR(t)
	bad.Spec.Request = []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
	bad.Spec.SignerName = ""
	bad.Spec.Usages = nil
	bad.Spec.ExpirationSeconds = ptr(int32(60))
	assert.Equal(t, []string{"spec.request", "spec.usages", "spec.signerName", "spec.expirationSeconds"}, fieldsOf(bad))
	errs := st.Validate(bad)
	assert.Contains(t, errs[0].Error(), "PEM block type must be CERTIFICATE REQUEST")
	assert.Contains(t, errs[3].Error(), "may not specify a duration less than 600 seconds (10 minutes)")

	usages := newCSR(t)
	usages.Spec.Usages = []certificatesv1.KeyUsage{"client auth", "client auth", "flying"}
	assert.Equal(t, []string{"spec.usages[1]", "spec.usages[2]"}, fieldsOf(usages))

	legacy := newCSR(t)
	legacy.Spec.SignerName = "kubernetes.io/legacy-unknown"
	errs = st.Validate(legacy)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "the legacy signerName is not allowed via this API version")

	for name, want := range map[string]string{
		"example.com/my-signer": "",
		"example/signer":        "should be a domain with at least two segments separated by dots",
		"noslash":               "must be a fully qualified domain and path of the form 'example.com/signer-name'",
		"Example.com/x":         `validating label "Example"`,
	} {
		c := newCSR(t)
		c.Spec.SignerName = name
		errs := st.Validate(c)
		if want == "" {
			assert.Empty(t, errs, name)
			continue
		}
		require.NotEmpty(t, errs, name)
		assert.Contains(t, errs[0].Error(), want, name)
	}
}

// A new CSR records who asked and starts with no status; the spec never
// changes; /status cannot approve; /approval changes only the approval;
// a certificate once issued stays.
func TestCSRStrategy(t *testing.T) {
	st := csrStrategy{}
	csr := newCSR(t)
	csr.Spec.Username = "mallory"
	csr.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue}}
	st.PrepareForCreate(csr)
	ctx := authn.WithUser(context.Background(), &authn.UserInfo{Name: "alice", UID: "u-1", Groups: []string{"dev", "system:authenticated"},
		Extra: map[string][]string{"scopes": {"a"}}})
	st.PrepareForCreateFromRequest(ctx, csr)
	assert.Equal(t, "alice", csr.Spec.Username)
	assert.Equal(t, "u-1", csr.Spec.UID)
	assert.Equal(t, []string{"dev", "system:authenticated"}, csr.Spec.Groups)
	assert.Equal(t, map[string]certificatesv1.ExtraValue{"scopes": {"a"}}, csr.Spec.Extra)
	assert.Empty(t, csr.Status.Conditions, "no pre-approved requests")

	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	approved := certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue,
		Reason: "KubectlApprove", LastUpdateTime: now}
	// /status may not approve, nor change the spec.
	w := csr.DeepCopy()
	w.Spec.SignerName = "example.com/other"
	w.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{approved}
	st.PrepareForUpdate(w, csr)
	assert.Equal(t, certificatesv1.KubeAPIServerClientSignerName, w.Spec.SignerName)
	errs := st.ValidateUpdate(w, csr)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), `status.conditions: Forbidden: updates may not add a condition of type "Approved"`)

	// /approval may, and its condition gets a transition time.
	a := csr.DeepCopy()
	a.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{approved}
	a.Status.Certificate = []byte("not mine to set")
	csrApprovalPrepareForUpdate(a, csr)
	require.Len(t, a.Status.Conditions, 1)
	assert.Equal(t, now, a.Status.Conditions[0].LastTransitionTime)
	assert.Empty(t, a.Status.Certificate)
	assert.Empty(t, csrApprovalValidateUpdate(a, csr))
	assert.Equal(t, "Approved", CSRCondition(a))

	// Denying it afterwards makes both: refused.
	d := a.DeepCopy()
	d.Status.Conditions = append(d.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue})
	errs = csrApprovalValidateUpdate(d, a)
	require.NotEmpty(t, errs)
	assert.Contains(t, errs[0].Error(), "Approved and Denied conditions are mutually exclusive")
	// And removing the approval is refused too.
	r := a.DeepCopy()
	r.Status.Conditions = nil
	errs = csrApprovalValidateUpdate(r, a)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), `updates may not remove a condition of type "Approved"`)

	// Conditions of a client's own types: /approval takes them all as
	// written; /status adds its own beside the approval, which stays in
	// its place even when the writer changed it (the Certificates API
	// conformance spec's patch and update of both subresources).
	own := a.DeepCopy()
	own.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: "ApprovalPatch", Status: corev1.ConditionTrue, Reason: "e2e"}, approved}
	csrApprovalPrepareForUpdate(own, a)
	assert.Empty(t, csrApprovalValidateUpdate(own, a))
	require.Len(t, own.Status.Conditions, 2)
	assert.Equal(t, certificatesv1.RequestConditionType("ApprovalPatch"), own.Status.Conditions[0].Type)
	st2 := own.DeepCopy()
	st2.Status.Conditions[1].Reason = "Rewritten"
	st2.Status.Conditions = append(st2.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: "StatusUpdate", Status: corev1.ConditionTrue})
	st.PrepareForUpdate(st2, own)
	assert.Empty(t, st.ValidateUpdate(st2, own))
	require.Len(t, st2.Status.Conditions, 3)
	assert.Equal(t, "KubectlApprove", st2.Status.Conditions[1].Reason, "the approval is the stored one")
	assert.Equal(t, certificatesv1.RequestConditionType("StatusUpdate"), st2.Status.Conditions[2].Type)

	// A status with a certificate must hold PEM certificates; once issued
	// it stays.
	s := a.DeepCopy()
	s.Status.Certificate = []byte("garbage")
	errs = st.ValidateUpdate(s, a)
	require.Len(t, errs, 1)
	assert.Equal(t, "status.certificate", errs[0].Field)
}

func TestCSRTable(t *testing.T) {
	r := builtin(t, "certificatesigningrequests")
	assert.Equal(t, []string{"csr"}, r.ShortNames)
	var cols []string
	for _, c := range r.Table.Columns {
		cols = append(cols, c.Name)
	}
	assert.Equal(t, []string{"Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"}, cols)
	csr := newCSR(t)
	csr.CreationTimestamp = ago(3 * time.Hour)
	csr.Spec.Username = "kubernetes-admin"
	csr.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue}}
	csr.Status.Certificate = []byte("x")
	assert.Equal(t, []any{"jane", "3h", "kubernetes.io/kube-apiserver-client", "kubernetes-admin", "24h", "Approved,Issued"}, r.Table.Cells(csr, tableNow))
	assert.Equal(t, []any{"", "<unknown>", "<none>", "", "<none>", "Pending"}, r.Table.Cells(&certificatesv1.CertificateSigningRequest{}, tableNow))
}
