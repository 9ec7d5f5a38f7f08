package kinds_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
)

// `kubectl get csr --field-selector spec.signerName=...` selects the
// requests of one signer, as kube-apiserver's CSR registry allows; a
// field it does not index is refused.
func TestCSRFieldSelectorSignerName(t *testing.T) {
	cl := newServer(t, openStore(t))
	for name, signer := range map[string]string{"a": "example.com/one", "b": "example.com/two"} {
		_, err := cl.CertificateSigningRequests().Create(bg, &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: certificatesv1.CertificateSigningRequestSpec{Request: testCSR(), SignerName: signer,
				Usages: []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature}}})
		require.NoError(t, err)
	}
	list, err := cl.CertificateSigningRequests().List(bg, "", client.ListOptions{FieldSelector: "spec.signerName=example.com/two"})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, "b", list.Items[0].Name)
	_, err = cl.CertificateSigningRequests().List(bg, "", client.ListOptions{FieldSelector: "spec.usages=x"})
	require.Error(t, err)
	assert.True(t, api.IsBadRequest(err), "%v", err)
}
