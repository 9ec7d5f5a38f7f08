package sampleapiserver

import (
	"crypto/tls"
	"net"

	"github.com/kubesim/kubesim/pki"
)

func tlsListener(ln net.Listener, b *pki.Bundle) net.Listener {
	return tls.NewListener(ln, b.ServerTLSConfig())
}
