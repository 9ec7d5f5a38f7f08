package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// ServiceAccountKeyFile is the key that signs ServiceAccount tokens
// (kubeadm's sa.key; kube-apiserver's --service-account-signing-key-file
// and, for its public half, --service-account-key-file).
const ServiceAccountKeyFile = "sa.key"

// IssueClientCert signs a client certificate with the cluster CA for user
// name in groups (the subject's CN and O, as kube-apiserver's x509
// authenticator reads them) and returns it and its key PEM-encoded, for a
// kubeconfig (`kubesim kubeconfig --user`).
func (b *Bundle) IssueClientCert(name string, groups []string, now time.Time, rand io.Reader) (certPEM, keyPEM []byte, err error) {
	if name == "" {
		return nil, nil, errors.New("pki: a client certificate needs a user name")
	}
	cert, key, err := IssueClient(b.CACert, b.caKey, name, groups, now, rand)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: encode client key: %w", err)
	}
	return encodeCert(cert), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// EnsureServiceAccountKey loads DIR/sa.key, creating a P-256 key on the
// first start. Tokens signed before a restart stay valid because the key
// stays.
func EnsureServiceAccountKey(dir string) (*ecdsa.PrivateKey, error) {
	path := filepath.Join(dir, ServiceAccountKeyFile)
	ok, err := exists(path)
	if err != nil {
		return nil, err
	}
	if ok {
		return readKey(path)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	if err != nil {
		return nil, fmt.Errorf("pki: generate service account key: %w", err)
	}
	if err := writeKey(path, key); err != nil {
		return nil, err
	}
	return key, nil
}

// LoadCA reads the cluster CA (ca.crt and ca.key) that EnsureServing
// created in dir, to sign client certificates outside the server.
func LoadCA(dir string) (*Bundle, error) {
	b := &Bundle{Dir: dir}
	var err error
	if b.CACert, err = readCert(filepath.Join(dir, CACertFile)); err != nil {
		return nil, err
	}
	if b.caKey, err = readKey(filepath.Join(dir, CAKeyFile)); err != nil {
		return nil, err
	}
	if !b.caKey.PublicKey.Equal(b.CACert.PublicKey) {
		return nil, fmt.Errorf("pki: %s does not match the certificate in %s", CAKeyFile, CACertFile)
	}
	b.CAPEM = encodeCert(b.CACert)
	return b, nil
}
