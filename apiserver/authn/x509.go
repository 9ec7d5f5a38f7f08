package authn

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"
)

// ClientCertAuthenticator accepts TLS client certificates signed by one of
// Roots, like kube-apiserver's --client-ca-file authenticator
// (k8s.io/apiserver/pkg/authentication/request/x509): the subject's
// CommonName is the user, its Organizations the groups.
//
// The TLS server only requests a certificate (pki.Bundle.ServerTLSConfig);
// the chain is verified here, so that a certificate from another CA gets
// a 401 Status instead of a failed handshake.
type ClientCertAuthenticator struct {
	// Roots are the CAs trusted to sign client certificates.
	Roots *x509.CertPool
	// Now is the time certificates are checked at (the cluster's clock).
	Now func() time.Time
}

// AuthenticateRequest implements Authenticator.
func (a *ClientCertAuthenticator) AuthenticateRequest(req *http.Request) (*UserInfo, bool, error) {
	if req.TLS == nil || len(req.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	return a.AuthenticateChain(req.TLS.PeerCertificates)
}

// AuthenticateChain checks a presented chain (leaf first, then the
// intermediates the client sent) and returns its user.
func (a *ClientCertAuthenticator) AuthenticateChain(chain []*x509.Certificate) (*UserInfo, bool, error) {
	if len(chain) == 0 || chain[0] == nil {
		return nil, false, nil
	}
	leaf := chain[0]
	opts := x509.VerifyOptions{
		Roots:         a.Roots,
		Intermediates: x509.NewCertPool(),
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if a.Now != nil {
		opts.CurrentTime = a.Now()
	}
	for _, c := range chain[1:] {
		if c != nil {
			opts.Intermediates.AddCert(c)
		}
	}
	if _, err := leaf.Verify(opts); err != nil {
		// Kubernetes words it "verifying certificate SN=..., SKID=...,
		// AKID=... failed: x509: ...".
		return nil, false, fmt.Errorf("verifying certificate SN=%s failed: %w", leaf.SerialNumber, err)
	}
	if leaf.Subject.CommonName == "" {
		return nil, false, errors.New("certificate has no common name")
	}
	return &UserInfo{Name: leaf.Subject.CommonName, Groups: slices.Clone(leaf.Subject.Organization)}, true, nil
}
