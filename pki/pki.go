package pki

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// File names inside the PKI directory, as kubeadm names them under
// /etc/kubernetes/pki.
const (
	CACertFile      = "ca.crt"
	CAKeyFile       = "ca.key"
	ServingCertFile = "apiserver.crt"
	ServingKeyFile  = "apiserver.key"
)

// Lifetimes of the generated certificates; kubeadm uses ten years for the
// CA and one year for leaf certificates.
const (
	CAValidity      = 10 * 365 * 24 * time.Hour
	ServingValidity = 365 * 24 * time.Hour
	// RenewBefore is how close to expiry a serving certificate is renewed.
	RenewBefore = 24 * time.Hour
	// backdate tolerates clocks a little behind ours.
	backdate = time.Hour
)

// DefaultHosts are always in the serving certificate, so that a local
// kubectl can reach the server by any of the usual loopback names.
func DefaultHosts() []string { return []string{"127.0.0.1", "::1", "localhost"} }

// Bundle is the API server's TLS material.
type Bundle struct {
	// Dir is where the files live.
	Dir string
	// CACert is the cluster CA, which clients trust.
	CACert *x509.Certificate
	// CAPEM is CACert PEM-encoded, for kubeconfig
	// certificate-authority-data.
	CAPEM []byte
	// ServingCert is the server's certificate and key.
	ServingCert tls.Certificate
	// Serving is the parsed leaf of ServingCert.
	Serving *x509.Certificate
	// caKey signs serving certificates; it never leaves the package.
	caKey *ecdsa.PrivateKey
}

// ServerTLSConfig returns a new TLS configuration for the API server:
// the serving certificate, TLS 1.2 or later. It asks clients for a
// certificate but lets the handshake succeed without one, or with one it
// cannot verify, as kube-apiserver does (tls.RequestClientCert): the
// x509 authenticator checks the chain against the cluster CA, so that a
// bad certificate gets a 401 Status rather than a broken handshake.
func (b *Bundle) ServerTLSConfig() *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{b.ServingCert},
		MinVersion:   tls.VersionTLS12,
		ClientAuth:   tls.RequestClientCert,
	}
}

// CertPool returns a pool holding only the cluster CA.
func (b *Bundle) CertPool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(b.CACert)
	return pool
}

// ClientTLSConfig returns a new TLS configuration for clients of the API
// server that trusts the cluster CA (and nothing else).
func (b *Bundle) ClientTLSConfig() *tls.Config {
	return &tls.Config{RootCAs: b.CertPool(), MinVersion: tls.VersionTLS12}
}

// EnsureServing returns the TLS bundle kept in dir, creating what is
// missing. On the first start (neither ca.crt nor ca.key exists) it
// generates an ECDSA P-256 CA; it then loads or creates the serving
// certificate apiserver.crt/apiserver.key for hosts plus DefaultHosts,
// issuing a new one when a host is missing, when it expires within
// RenewBefore, or when it was not signed by the CA. Files that exist but
// cannot be read or parsed are reported by name and never overwritten.
// now fixes the validity period; rand feeds serial numbers.
func EnsureServing(dir string, hosts []string, now time.Time, rand io.Reader) (*Bundle, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pki: create directory %s: %w", dir, err)
	}
	hosts = mergeHosts(hosts)
	b := &Bundle{Dir: dir}

	caCertPath, caKeyPath := filepath.Join(dir, CACertFile), filepath.Join(dir, CAKeyFile)
	certExists, err := exists(caCertPath)
	if err != nil {
		return nil, err
	}
	keyExists, err := exists(caKeyPath)
	if err != nil {
		return nil, err
	}
	switch {
	case certExists && keyExists:
		if b.CACert, err = readCert(caCertPath); err != nil {
			return nil, err
		}
		if b.caKey, err = readKey(caKeyPath); err != nil {
			return nil, err
		}
		if !b.caKey.PublicKey.Equal(b.CACert.PublicKey) {
			return nil, fmt.Errorf("pki: %s does not match the certificate in %s", caKeyPath, caCertPath)
		}
	case certExists != keyExists:
		// Half a CA is a broken installation; creating a new CA would
		// silently invalidate every kubeconfig, so stop instead.
		present, missing := caCertPath, caKeyPath
		if keyExists {
			present, missing = caKeyPath, caCertPath
		}
		return nil, fmt.Errorf("pki: %s exists but %s is missing; restore it or remove both to create a new CA", present, missing)
	default:
		if err := b.newCA(now, rand); err != nil {
			return nil, err
		}
		if err := writeKey(caKeyPath, b.caKey); err != nil {
			return nil, err
		}
		if err := writeFile(caCertPath, encodeCert(b.CACert), 0o644); err != nil {
			return nil, err
		}
	}
	b.CAPEM = encodeCert(b.CACert)

	certPath, keyPath := filepath.Join(dir, ServingCertFile), filepath.Join(dir, ServingKeyFile)
	certExists, err = exists(certPath)
	if err != nil {
		return nil, err
	}
	keyExists, err = exists(keyPath)
	if err != nil {
		return nil, err
	}
	if certExists && keyExists {
		leaf, err := readCert(certPath)
		if err != nil {
			return nil, err
		}
		key, err := readKey(keyPath)
		if err != nil {
			return nil, err
		}
		if !key.PublicKey.Equal(leaf.PublicKey) {
			return nil, fmt.Errorf("pki: %s does not match the certificate in %s", keyPath, certPath)
		}
		if b.servingUsable(leaf, hosts, now) {
			b.Serving = leaf
			b.ServingCert = tls.Certificate{Certificate: [][]byte{leaf.Raw}, PrivateKey: key, Leaf: leaf}
			return b, nil
		}
	}
	// Missing, half-present, stale, or issued by another CA: the serving
	// certificate is derived data, so issuing a new one loses nothing.
	leaf, key, err := b.issueServing(hosts, now, rand)
	if err != nil {
		return nil, err
	}
	if err := writeKey(keyPath, key); err != nil {
		return nil, err
	}
	if err := writeFile(certPath, encodeCert(leaf), 0o644); err != nil {
		return nil, err
	}
	b.Serving = leaf
	b.ServingCert = tls.Certificate{Certificate: [][]byte{leaf.Raw}, PrivateKey: key, Leaf: leaf}
	return b, nil
}

// mergeHosts adds DefaultHosts to hosts, dropping duplicates and empty
// names, keeping the order.
func mergeHosts(hosts []string) []string {
	var out []string
	for _, h := range append(slices.Clone(hosts), DefaultHosts()...) {
		if h != "" && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// servingUsable reports whether leaf can keep serving: signed by our CA,
// valid now and for RenewBefore more, and naming every host.
func (b *Bundle) servingUsable(leaf *x509.Certificate, hosts []string, now time.Time) bool {
	if leaf.CheckSignatureFrom(b.CACert) != nil {
		return false
	}
	if now.Before(leaf.NotBefore) || now.Add(RenewBefore).After(leaf.NotAfter) {
		return false
	}
	for _, h := range hosts {
		if leaf.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

func serialNumber(rand io.Reader) (*big.Int, error) {
	limit := new(big.Int).Lsh(big.NewInt(1), 127)
	n, err := randInt(rand, limit)
	if err != nil {
		return nil, fmt.Errorf("pki: generate serial number: %w", err)
	}
	return n.Add(n, big.NewInt(1)), nil // serials must be positive
}

// randInt reads a uniform number below max from r.
func randInt(r io.Reader, max *big.Int) (*big.Int, error) {
	buf := make([]byte, (max.BitLen()+7)/8)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	n := new(big.Int).SetBytes(buf)
	return n.Mod(n, max), nil
}

func (b *Bundle) newCA(now time.Time, rand io.Reader) error {
	cert, key, err := newCA("kubesim-ca", now, rand)
	if err != nil {
		return err
	}
	b.CACert, b.caKey = cert, key
	return nil
}

// newCA makes a self-signed CA named cn.
func newCA(cn string, now time.Time, rand io.Reader) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: generate %s key: %w", cn, err)
	}
	serial, err := serialNumber(rand)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             now.Add(-backdate).UTC(),
		NotAfter:              now.Add(CAValidity).UTC(),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: create %s certificate: %w", cn, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: parse new %s certificate: %w", cn, err)
	}
	return cert, key, nil
}

func (b *Bundle) issueServing(hosts []string, now time.Time, rand io.Reader) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	tmpl := &x509.Certificate{
		// kube-apiserver's serving certificate is named like this by kubeadm.
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return issueLeaf(b.CACert, b.caKey, tmpl, "serving", now, rand)
}

// issueLeaf signs a leaf certificate of ServingValidity from tmpl (its
// subject, usages and names) with the CA, on a new P-256 key; what names
// it in errors.
func issueLeaf(ca *x509.Certificate, caKey *ecdsa.PrivateKey, tmpl *x509.Certificate, what string, now time.Time, rand io.Reader) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: generate %s key: %w", what, err)
	}
	if tmpl.SerialNumber, err = serialNumber(rand); err != nil {
		return nil, nil, err
	}
	tmpl.NotBefore, tmpl.NotAfter = now.Add(-backdate).UTC(), now.Add(ServingValidity).UTC()
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: create %s certificate: %w", what, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: parse new %s certificate: %w", what, err)
	}
	return leaf, key, nil
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("pki: %w", err)
}

func encodeCert(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

// readCert reads the first certificate of a PEM file.
func readCert(path string) (*x509.Certificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err) // *PathError names the file
	}
	return ParseCertPEM(path, data)
}

// ParseCertPEM parses the first CERTIFICATE block of data; name says where
// the data came from in errors.
func ParseCertPEM(name string, data []byte) (*x509.Certificate, error) {
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, fmt.Errorf("pki: %s: no PEM-encoded CERTIFICATE found", name)
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("pki: %s: %w", name, err)
		}
		return c, nil
	}
}

// readKey reads an ECDSA key in SEC 1 ("EC PRIVATE KEY") or PKCS #8
// ("PRIVATE KEY") form, the two that openssl and kubeadm write.
func readKey(path string) (*ecdsa.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, fmt.Errorf("pki: %s: no PEM-encoded private key found", path)
		}
		switch block.Type {
		case "EC PRIVATE KEY":
			k, err := x509.ParseECPrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("pki: %s: %w", path, err)
			}
			return k, nil
		case "PRIVATE KEY":
			k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("pki: %s: %w", path, err)
			}
			ek, ok := k.(*ecdsa.PrivateKey)
			if !ok {
				return nil, fmt.Errorf("pki: %s: key is %T, want an ECDSA key", path, k)
			}
			return ek, nil
		}
	}
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return fmt.Errorf("pki: encode key for %s: %w", path, err)
	}
	return writeFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}

// writeFile writes through a temporary file and a rename, so a crash
// leaves either the old file or the new one, never half of one.
func writeFile(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("pki: write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fmt.Errorf("pki: write %s: %w", path, err)
	}
	if _, err := io.Copy(tmp, bytes.NewReader(data)); err != nil {
		tmp.Close()
		return fmt.Errorf("pki: write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("pki: write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("pki: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("pki: write %s: %w", path, err)
	}
	return nil
}
