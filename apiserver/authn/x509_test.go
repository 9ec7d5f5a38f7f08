package authn

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/pki"
)

// newCA makes a cluster CA in a temporary directory.
func newCA(t testing.TB) *pki.Bundle {
	t.Helper()
	b, err := pki.EnsureServing(t.TempDir(), nil, time.Now(), rand.Reader)
	require.NoError(t, err)
	return b
}

func clientCert(t testing.TB, ca *pki.Bundle, user string, groups ...string) *x509.Certificate {
	t.Helper()
	certPEM, _, err := ca.IssueClientCert(user, groups, time.Now(), rand.Reader)
	require.NoError(t, err)
	c, err := pki.ParseCertPEM("test", certPEM)
	require.NoError(t, err)
	return c
}

func TestClientCertAuthenticator(t *testing.T) {
	ca, other := newCA(t), newCA(t)
	a := &ClientCertAuthenticator{Roots: ca.CertPool(), Now: time.Now}
	tests := []struct {
		name    string
		chain   []*x509.Certificate
		want    *UserInfo
		wantErr string
	}{
		{"no certificate: not mine", nil, nil, ""},
		{"user and groups", []*x509.Certificate{clientCert(t, ca, "alice", "dev", "ops")}, &UserInfo{Name: "alice", Groups: []string{"dev", "ops"}}, ""},
		{"no groups", []*x509.Certificate{clientCert(t, ca, "bob")}, &UserInfo{Name: "bob", Groups: []string{}}, ""},
		{"another CA", []*x509.Certificate{clientCert(t, other, "mallory", "system:masters")}, nil, "unknown authority"},
		// A serving certificate is no client certificate.
		{"wrong usage", []*x509.Certificate{ca.Serving}, nil, "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/api", nil)
			if tt.chain != nil {
				req.TLS = &tls.ConnectionState{PeerCertificates: tt.chain}
			}
			u, ok, err := a.AuthenticateRequest(req)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.False(t, ok)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want != nil, ok)
			if tt.want != nil {
				assert.Equal(t, tt.want.Name, u.Name)
				assert.ElementsMatch(t, tt.want.Groups, u.Groups)
			}
		})
	}

	t.Run("expired", func(t *testing.T) {
		late := &ClientCertAuthenticator{Roots: ca.CertPool(), Now: func() time.Time { return time.Now().Add(2 * 365 * 24 * time.Hour) }}
		_, ok, err := late.AuthenticateChain([]*x509.Certificate{clientCert(t, ca, "alice")})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "expired")
		assert.False(t, ok)
	})
}

func TestAnonymous(t *testing.T) {
	tokens := NewTokenAuthenticator(map[string]UserInfo{"good": {Name: "alice"}})
	a := FailOnError(Union(tokens), AnonymousAuthenticator())
	req := httptest.NewRequest("GET", "/api", nil)
	u, ok, err := a.AuthenticateRequest(req)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, &UserInfo{Name: Anonymous, Groups: []string{AllUnauthenticated}}, u)

	// A bad credential is refused, not let in as anonymous.
	req.Header.Set("Authorization", "Bearer bad")
	_, ok, err = a.AuthenticateRequest(req)
	assert.Error(t, err)
	assert.False(t, ok)

	req.Header.Set("Authorization", "Bearer good")
	u, ok, err = a.AuthenticateRequest(req)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "alice", u.Name)
}

// FuzzClientCertAuthenticator feeds arbitrary DER as the client's
// certificate: whatever parses, only a chain to the cluster CA passes.
func FuzzClientCertAuthenticator(f *testing.F) {
	ca, other := newCA(f), newCA(f)
	good := clientCert(f, ca, "alice", "dev")
	f.Add(good.Raw)
	f.Add(clientCert(f, other, "mallory").Raw)
	f.Add(ca.Serving.Raw)
	f.Add([]byte{0x30, 0x03, 0x02, 0x01, 0x01})
	a := &ClientCertAuthenticator{Roots: ca.CertPool(), Now: time.Now}
	f.Fuzz(func(t *testing.T, der []byte) {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return
		}
		u, ok, err := a.AuthenticateChain([]*x509.Certificate{c})
		if ok {
			require.NoError(t, err)
			// A signature cannot be forged: it is the seed itself.
			require.Equal(t, good.Raw, der)
			require.Equal(t, "alice", u.Name)
		}
	})
}
