package sampleapiserver

import (
	"crypto/tls"
	"net"

	"github.com/kubesim/kubesim/pki"
)

func tlsListener(ln net.Listener, b *pki.Bundle) net.Listener {
	cfg := b.ServerTLSConfig()
	// Ask for a client certificate without requiring one: the front proxy
	// presents its own, verified by RequestHeaderAuthenticator; anyone
	// else gets a 401 rather than a failed handshake.
	cfg.ClientAuth = tls.RequestClientCert
	return tls.NewListener(ln, cfg)
}
