package pki

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func verifyFor(t *testing.T, b *Bundle, host string) error {
	t.Helper()
	_, err := b.Serving.Verify(x509.VerifyOptions{
		DNSName:     host,
		Roots:       b.CertPool(),
		CurrentTime: t0,
		KeyUsages:   []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	return err
}

func TestEnsureServingCreatesChainForEachHost(t *testing.T) {
	dir := t.TempDir()
	b, err := EnsureServing(dir, []string{"kubesim.local", "10.1.2.3"}, t0, rand.Reader)
	require.NoError(t, err)

	for _, h := range []string{"kubesim.local", "10.1.2.3", "127.0.0.1", "::1", "localhost"} {
		assert.NoError(t, verifyFor(t, b, h), h)
	}
	assert.Error(t, verifyFor(t, b, "example.com"), "a host not asked for must not verify")
	assert.True(t, b.CACert.IsCA)
	assert.Equal(t, "kube-apiserver", b.Serving.Subject.CommonName)
	assert.Equal(t, t0.Add(ServingValidity), b.Serving.NotAfter)

	for name, mode := range map[string]os.FileMode{CAKeyFile: 0o600, ServingKeyFile: 0o600, CACertFile: 0o644, ServingCertFile: 0o644} {
		st, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err, name)
		assert.Equal(t, mode, st.Mode().Perm(), name)
	}
	caPEM, err := os.ReadFile(filepath.Join(dir, CACertFile))
	require.NoError(t, err)
	assert.Equal(t, caPEM, b.CAPEM)
}

func TestEnsureServingReloads(t *testing.T) {
	dir := t.TempDir()
	first, err := EnsureServing(dir, nil, t0, rand.Reader)
	require.NoError(t, err)

	second, err := EnsureServing(dir, nil, t0.Add(time.Hour), rand.Reader)
	require.NoError(t, err)
	assert.Equal(t, first.CACert.Raw, second.CACert.Raw, "CA must be loaded, not regenerated")
	assert.Equal(t, first.Serving.Raw, second.Serving.Raw, "a good serving cert is kept")

	// A new host forces a new serving certificate from the same CA.
	third, err := EnsureServing(dir, []string{"node-1.example"}, t0.Add(time.Hour), rand.Reader)
	require.NoError(t, err)
	assert.Equal(t, first.CACert.Raw, third.CACert.Raw)
	assert.NotEqual(t, first.Serving.Raw, third.Serving.Raw)
	assert.NoError(t, verifyFor(t, third, "node-1.example"))

	// Near expiry (less than a day left) it is renewed too.
	late := t0.Add(time.Hour).Add(ServingValidity - 12*time.Hour)
	fourth, err := EnsureServing(dir, []string{"node-1.example"}, late, rand.Reader)
	require.NoError(t, err)
	assert.NotEqual(t, third.Serving.Raw, fourth.Serving.Raw)
	assert.Equal(t, late.Add(ServingValidity).UTC(), fourth.Serving.NotAfter)

	// ... and a serving certificate from a different CA is replaced.
	other, err := EnsureServing(t.TempDir(), nil, t0, rand.Reader)
	require.NoError(t, err)
	for _, f := range []string{ServingCertFile, ServingKeyFile} {
		data, err := os.ReadFile(filepath.Join(other.Dir, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), data, 0o600))
	}
	fifth, err := EnsureServing(dir, nil, t0, rand.Reader)
	require.NoError(t, err)
	assert.NoError(t, fifth.Serving.CheckSignatureFrom(first.CACert))
}

func TestEnsureServingCorruptFiles(t *testing.T) {
	tests := []struct {
		file    string
		content string
		want    string
	}{
		{CACertFile, "garbage", "no PEM-encoded CERTIFICATE found"},
		{CACertFile, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "x509"},
		{CAKeyFile, "garbage", "no PEM-encoded private key found"},
		{CAKeyFile, "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n", "x509"},
		{ServingCertFile, "garbage", "no PEM-encoded CERTIFICATE found"},
		{ServingKeyFile, "garbage", "no PEM-encoded private key found"},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.want, func(t *testing.T) {
			dir := t.TempDir()
			_, err := EnsureServing(dir, nil, t0, rand.Reader)
			require.NoError(t, err)
			path := filepath.Join(dir, tt.file)
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o600))

			_, err = EnsureServing(dir, nil, t0, rand.Reader)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path)
			assert.Contains(t, err.Error(), tt.want)
			got, rerr := os.ReadFile(path)
			require.NoError(t, rerr)
			assert.Equal(t, tt.content, string(got), "a corrupt file must be left as it is")
		})
	}
}

func TestEnsureServingHalfCAOrMismatch(t *testing.T) {
	dir := t.TempDir()
	_, err := EnsureServing(dir, nil, t0, rand.Reader)
	require.NoError(t, err)
	keyPath := filepath.Join(dir, CAKeyFile)
	require.NoError(t, os.Remove(keyPath))
	_, err = EnsureServing(dir, nil, t0, rand.Reader)
	require.Error(t, err)
	assert.Contains(t, err.Error(), keyPath+" is missing")
	_, statErr := os.Stat(keyPath)
	assert.True(t, os.IsNotExist(statErr), "no new CA key may be created")

	// A CA key from another installation does not match the certificate.
	other := t.TempDir()
	_, err = EnsureServing(other, nil, t0, rand.Reader)
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(other, CAKeyFile))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(keyPath, data, 0o600))
	_, err = EnsureServing(dir, nil, t0, rand.Reader)
	require.Error(t, err)
	assert.Contains(t, err.Error(), keyPath+" does not match the certificate in "+filepath.Join(dir, CACertFile))
}

func TestEnsureServingUnreadable(t *testing.T) {
	dir := t.TempDir()
	// A directory where the certificate should be is unreadable as a
	// file even for root, unlike a chmod 000 file.
	require.NoError(t, os.Mkdir(filepath.Join(dir, CACertFile), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, CAKeyFile), []byte("x"), 0o600))
	_, err := EnsureServing(dir, nil, t0, rand.Reader)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, CACertFile))
}

func TestEnsureServingFailingRand(t *testing.T) {
	_, err := EnsureServing(t.TempDir(), nil, t0, strings.NewReader("short"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "serial number")
}

func TestHTTPSRoundTrip(t *testing.T) {
	b, err := EnsureServing(t.TempDir(), nil, time.Now(), rand.Reader)
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "hello "+r.TLS.ServerName)
	}))
	srv.TLS = b.ServerTLSConfig()
	srv.StartTLS()
	defer srv.Close()

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: b.ClientTLSConfig()}}
	resp, err := client.Get(srv.URL)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, "hello ", string(body))

	// By name, through the same listener.
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	require.NoError(t, err)
	resp, err = client.Get("https://localhost:" + port)
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, "hello localhost", string(body))

	// A client that does not trust the CA is refused.
	plain := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12}}}
	_, err = plain.Get(srv.URL)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate signed by unknown authority")

	// TLS 1.1 is refused.
	old := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: b.CertPool(), MaxVersion: tls.VersionTLS11, MinVersion: tls.VersionTLS10}}}
	_, err = old.Get(srv.URL)
	require.Error(t, err)
}
