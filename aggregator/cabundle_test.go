package aggregator_test

import (
	"context"
	crand "crypto/rand"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/pki"
)

// An APIService with a caBundle and insecureSkipTLSVerify false: the
// proxy checks the backend's certificate against the bundle, for the
// Service's DNS name api.wardle.svc, as an admission webhook's is.
func TestProxyVerifiesTheBackendAgainstCABundle(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hosts []string
		other bool // a bundle of another CA
		want  string
	}{
		{"verified", []string{"api.wardle.svc"}, false, ""},
		{"unknown authority", []string{"api.wardle.svc"}, true, "x509: certificate signed by unknown authority"},
		{"wrong name", []string{"elsewhere.wardle.svc"}, false, "x509: certificate is valid for elsewhere.wardle.svc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			b, err := pki.EnsureServing(t.TempDir(), tc.hosts, time.Now(), crand.Reader)
			require.NoError(t, err)
			backend := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"kind":"FlunderList","apiVersion":"wardle.example.com/v1alpha1","items":[]}`))
			}))
			backend.TLS = b.ServerTLSConfig()
			backend.StartTLS()
			t.Cleanup(backend.Close)
			e.net.Register("10.244.0.5:8443", backend.Listener.Addr().String())
			e.createService(t, true)
			bundle := b.CAPEM
			if tc.other {
				o, err := pki.EnsureServing(t.TempDir(), nil, time.Now(), crand.Reader)
				require.NoError(t, err)
				bundle = o.CAPEM
			}
			port := int32(443)
			_, err = apiServices(e.client).Create(context.Background(), &apiregistrationv1.APIService{
				ObjectMeta: metav1.ObjectMeta{Name: "v1alpha1.wardle.example.com"},
				Spec: apiregistrationv1.APIServiceSpec{Group: "wardle.example.com", Version: "v1alpha1", GroupPriorityMinimum: 1000, VersionPriority: 15,
					CABundle: bundle, Service: &apiregistrationv1.ServiceReference{Namespace: "wardle", Name: "api", Port: &port}}})
			require.NoError(t, err)
			req := httptest.NewRequest(http.MethodGet, "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", nil)
			rec := httptest.NewRecorder()
			e.srv.Handler().ServeHTTP(rec, req)
			if tc.want == "" {
				assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
				assert.Contains(t, rec.Body.String(), "FlunderList")
				return
			}
			assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
			assert.Contains(t, rec.Body.String(), tc.want)
		})
	}
}
