package userwebhook

import (
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/kubesim/kubesim/pki"
)

// ImageName is the image the fake kubelet runs as this server.
const ImageName = "kubesim/webhook"

// Options configure a server.
type Options struct {
	// Addr is where to listen (default 127.0.0.1:0, a free port).
	Addr string
	// CertDir keeps the CA and the serving certificate (pki.EnsureServing);
	// empty uses a temporary directory removed by Stop.
	CertDir string
	// Hosts are the names the certificate is for, e.g.
	// user-webhook.webhook-system.svc (loopback names are always added).
	Hosts []string
	// Now is the time certificates are issued at (default time.Now).
	Now    func() time.Time
	Logger *slog.Logger
}

// Server is a running webhook server.
type Server struct {
	addr    string
	ca      []byte
	http    *http.Server
	cleanup func()
	once    sync.Once
	done    chan struct{}
}

// Start serves Handler over HTTPS until Stop.
func Start(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	dir, cleanup := opts.CertDir, func() {}
	if dir == "" {
		d, err := os.MkdirTemp("", "kubesim-webhook-")
		if err != nil {
			return nil, err
		}
		dir, cleanup = d, func() { _ = os.RemoveAll(d) }
	}
	bundle, err := pki.EnsureServing(dir, opts.Hosts, opts.Now(), rand.Reader)
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("webhook: %w", err)
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("webhook: %w", err)
	}
	logger := opts.Logger
	h := Handler()
	s := &Server{addr: ln.Addr().String(), ca: bundle.CAPEM, cleanup: cleanup, done: make(chan struct{}),
		http: &http.Server{
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				logger.Debug("request", "method", r.Method, "path", r.URL.Path)
				h.ServeHTTP(w, r)
			}),
			ReadHeaderTimeout: 10 * time.Second,
			// The API server's certificate check is the caller's; the
			// webhook only serves (no client certificates asked).
			TLSConfig: &tls.Config{Certificates: []tls.Certificate{bundle.ServingCert}, MinVersion: tls.VersionTLS12},
		}}
	go func() {
		defer close(s.done)
		if err := s.http.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("serving", "err", err)
		}
	}()
	return s, nil
}

// Addr is the real address the server listens on.
func (s *Server) Addr() string { return s.addr }

// CABundle is the PEM of the CA that signed the serving certificate: a
// webhook configuration's clientConfig.caBundle.
func (s *Server) CABundle() []byte { return s.ca }

// Stop closes the server; it is safe to call more than once.
func (s *Server) Stop() {
	s.once.Do(func() {
		_ = s.http.Close()
		<-s.done
		s.cleanup()
	})
}
