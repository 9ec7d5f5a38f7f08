package app

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/kubesim/kubesim/store/etcdstore"
)

// DefaultEtcdPrefix is where kubesim's keys go in etcd. kube-apiserver's
// default is /registry, but kubesim's keys already begin with /registry/
// (/registry/core/configmaps/NS/NAME), so its prefix names kubesim instead
// of repeating it.
const DefaultEtcdPrefix = "/kubesim"

// EtcdOptions are kube-apiserver's etcd flags. With Servers empty the
// store is the bbolt file in the data directory.
type EtcdOptions struct {
	// Servers are etcd's client URLs (--etcd-servers).
	Servers []string
	// Prefix is put before every key (--etcd-prefix, default /registry).
	Prefix string
	// CAFile verifies etcd's serving certificate (--etcd-cafile);
	// CertFile and KeyFile are the client certificate kubesim presents
	// (--etcd-certfile, --etcd-keyfile).
	CAFile, CertFile, KeyFile string
	// DialTimeout bounds the first connection (etcdstore's default: 5 s).
	DialTimeout time.Duration
	// RequestTimeout bounds each etcd request (etcdstore's default: 10 s;
	// tests shorten it).
	RequestTimeout time.Duration
}

// Enabled reports whether etcd was asked for.
func (o EtcdOptions) Enabled() bool { return len(o.Servers) > 0 }

// Open connects to etcd; unreachable at start, it fails within the dial
// timeout with an error naming the endpoints.
func (o EtcdOptions) Open(logger *slog.Logger) (*etcdstore.Store, error) {
	tlsCfg, err := o.tlsConfig()
	if err != nil {
		return nil, err
	}
	prefix := o.Prefix
	if prefix == "" {
		prefix = DefaultEtcdPrefix
	}
	return etcdstore.Open(etcdstore.Config{Endpoints: o.Servers, Prefix: prefix, TLS: tlsCfg,
		DialTimeout: o.DialTimeout, RequestTimeout: o.RequestTimeout, Logger: logger})
}

// tlsConfig is nil when no TLS file is given (plain http:// endpoints).
func (o EtcdOptions) tlsConfig() (*tls.Config, error) {
	if o.CAFile == "" && o.CertFile == "" && o.KeyFile == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("--etcd-cafile: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--etcd-cafile %s: no PEM certificate in it", o.CAFile)
		}
		cfg.RootCAs = pool
	}
	if (o.CertFile == "") != (o.KeyFile == "") {
		return nil, errors.New("--etcd-certfile and --etcd-keyfile go together")
	}
	if o.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("--etcd-certfile/--etcd-keyfile: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}
