package pki

import (
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// The front proxy's files, as kubeadm names them: the CA that extension
// API servers trust (--requestheader-client-ca-file) and the client
// certificate the aggregator presents (--proxy-client-cert-file).
const (
	FrontProxyCACertFile     = "front-proxy-ca.crt"
	FrontProxyCAKeyFile      = "front-proxy-ca.key"
	FrontProxyClientCertFile = "front-proxy-client.crt"
	FrontProxyClientKeyFile  = "front-proxy-client.key"
	// FrontProxyClientName is the client certificate's common name, the
	// one name extension servers allow by default
	// (--requestheader-allowed-names).
	FrontProxyClientName = "front-proxy-client"
)

// FrontProxy is the aggregator's identity toward extension API servers: a
// client certificate from a CA of its own, so that an extension server
// trusts X-Remote-User only from a TLS peer that proves it holds the key.
// Unlike a bearer token, nothing the extension server receives lets it
// act as the aggregator elsewhere.
type FrontProxy struct {
	// CACert and CAPEM are the front-proxy CA.
	CACert *x509.Certificate
	CAPEM  []byte
	// ClientCert is the aggregator's client certificate and key.
	ClientCert tls.Certificate
}

// CAPool is a pool holding only the front-proxy CA.
func (f *FrontProxy) CAPool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(f.CACert)
	return pool
}

// EnsureFrontProxy returns the front-proxy CA and client certificate kept
// in dir, creating what is missing (and nothing else: files that exist are
// read, never rewritten; a client certificate near expiry or from another
// CA is reissued).
func EnsureFrontProxy(dir string, now time.Time, rand io.Reader) (*FrontProxy, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pki: create directory %s: %w", dir, err)
	}
	caCertPath, caKeyPath := filepath.Join(dir, FrontProxyCACertFile), filepath.Join(dir, FrontProxyCAKeyFile)
	caCert, caKey, err := loadOrCreateCA(caCertPath, caKeyPath, "front-proxy-ca", now, rand)
	if err != nil {
		return nil, err
	}
	f := &FrontProxy{CACert: caCert, CAPEM: encodeCert(caCert)}
	certPath, keyPath := filepath.Join(dir, FrontProxyClientCertFile), filepath.Join(dir, FrontProxyClientKeyFile)
	if ok, _ := exists(certPath); ok {
		leaf, err := readCert(certPath)
		if err != nil {
			return nil, err
		}
		key, err := readKey(keyPath)
		if err != nil {
			return nil, err
		}
		if leaf.CheckSignatureFrom(caCert) == nil && key.PublicKey.Equal(leaf.PublicKey) && now.Add(RenewBefore).Before(leaf.NotAfter) {
			f.ClientCert = tls.Certificate{Certificate: [][]byte{leaf.Raw}, PrivateKey: key, Leaf: leaf}
			return f, nil
		}
	}
	leaf, key, err := IssueClient(caCert, caKey, FrontProxyClientName, nil, now, rand)
	if err != nil {
		return nil, err
	}
	if err := writeKey(keyPath, key); err != nil {
		return nil, err
	}
	if err := writeFile(certPath, encodeCert(leaf), 0o644); err != nil {
		return nil, err
	}
	f.ClientCert = tls.Certificate{Certificate: [][]byte{leaf.Raw}, PrivateKey: key, Leaf: leaf}
	return f, nil
}

// NewFrontProxy makes a front-proxy CA and client certificate in memory,
// for a control plane with no data directory of its own (tests).
func NewFrontProxy(now time.Time, rand io.Reader) (*FrontProxy, error) {
	caCert, caKey, err := newCA("front-proxy-ca", now, rand)
	if err != nil {
		return nil, err
	}
	leaf, key, err := IssueClient(caCert, caKey, FrontProxyClientName, nil, now, rand)
	if err != nil {
		return nil, err
	}
	return &FrontProxy{CACert: caCert, CAPEM: encodeCert(caCert),
		ClientCert: tls.Certificate{Certificate: [][]byte{leaf.Raw}, PrivateKey: key, Leaf: leaf}}, nil
}

// loadOrCreateCA reads a CA pair, or creates it when both files are
// missing; half a pair is an error (a new CA would silently distrust every
// certificate the old one signed).
func loadOrCreateCA(certPath, keyPath, cn string, now time.Time, rand io.Reader) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	certExists, err := exists(certPath)
	if err != nil {
		return nil, nil, err
	}
	keyExists, err := exists(keyPath)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case certExists && keyExists:
		cert, err := readCert(certPath)
		if err != nil {
			return nil, nil, err
		}
		key, err := readKey(keyPath)
		if err != nil {
			return nil, nil, err
		}
		if !key.PublicKey.Equal(cert.PublicKey) {
			return nil, nil, fmt.Errorf("pki: %s does not match the certificate in %s", keyPath, certPath)
		}
		return cert, key, nil
	case certExists != keyExists:
		present, missing := certPath, keyPath
		if keyExists {
			present, missing = keyPath, certPath
		}
		return nil, nil, fmt.Errorf("pki: %s exists but %s is missing; restore it or remove both to create a new CA", present, missing)
	}
	cert, key, err := newCA(cn, now, rand)
	if err != nil {
		return nil, nil, err
	}
	if err := writeKey(keyPath, key); err != nil {
		return nil, nil, err
	}
	if err := writeFile(certPath, encodeCert(cert), 0o644); err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}

// IssueClient signs a client certificate for user cn in groups orgs (the
// subject's O), as the Kubernetes x509 authenticators read them.
func IssueClient(ca *x509.Certificate, caKey *ecdsa.PrivateKey, cn string, orgs []string, now time.Time, rand io.Reader) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	return issueLeaf(ca, caKey, &x509.Certificate{
		Subject:     pkix.Name{CommonName: cn, Organization: orgs},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, "client", now, rand)
}

// ReadCAFile reads a PEM file of CA certificates into a pool (the
// --requestheader-client-ca-file of an extension API server).
func ReadCAFile(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}
