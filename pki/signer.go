package pki

import (
	crand "crypto/rand"
	"crypto/x509"
	"errors"
	"io"
	"time"
)

// The cluster CA as a signer: kube-controller-manager signs the approved
// CertificateSigningRequests with the CA that kube-apiserver's
// --client-ca-file trusts (kubeadm gives both ca.crt and ca.key), so that
// a certificate from an approved kube-apiserver-client request logs in.

// Certificate is the cluster CA's certificate.
func (b *Bundle) Certificate() *x509.Certificate { return b.CACert }

// Sign signs tmpl for the public key pub with the cluster CA's key and
// returns the certificate in DER. tmpl carries everything but the issuer.
func (b *Bundle) Sign(tmpl *x509.Certificate, pub any) ([]byte, error) {
	if b.caKey == nil {
		return nil, errors.New("pki: the bundle has no CA key")
	}
	return x509.CreateCertificate(crand.Reader, tmpl, b.CACert, pub, b.caKey)
}

// NewCA makes a cluster CA in memory, for a control plane without a data
// directory of its own (tests, step mode): what it signs is trusted by
// nothing but itself.
func NewCA(now time.Time, rand io.Reader) (*Bundle, error) {
	cert, key, err := newCA("kubesim-ca", now, rand)
	if err != nil {
		return nil, err
	}
	return &Bundle{CACert: cert, CAPEM: encodeCert(cert), caKey: key}, nil
}
