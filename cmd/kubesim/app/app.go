package app

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/pki"
)

// ProxyTokenFileName is where `kubesim serve` keeps the aggregator's
// front-proxy credential, for extension API servers run outside it.
const ProxyTokenFileName = "front-proxy-client.token"

// Options are `kubesim serve`'s flags, parsed.
type Options struct {
	// DataDir holds the store, certificates, tokens and kubeconfig.
	DataDir string
	// Addr is the address to listen on; port 0 picks a free port.
	Addr string
	// Kubeconfig is where to write a kubeconfig (default DataDir/kubeconfig).
	Kubeconfig string
	// TokenFile adds users, in kube-apiserver's token CSV format.
	TokenFile string
	// UnsafeNoFsync turns off fsync in the store (demos, tests).
	UnsafeNoFsync bool
	// Nodes is the number of fake nodes, one kubelet each.
	Nodes int
	// APIServerOnly runs the API server without controllers, scheduler or
	// kubelets.
	APIServerOnly bool
	// Controllers selects controllers as --controllers does ("" is "*").
	Controllers string
	// StageDelay is how long a pod spends in each kubelet stage.
	StageDelay time.Duration
	// ProxyClientTokenFile holds the aggregator's credential for extension
	// API servers, created if missing (default DataDir/ProxyTokenFileName).
	ProxyClientTokenFile string
	// ControllerImages are the controllers that pods can run
	// (cluster.Config.ControllerImages).
	ControllerImages map[string]cluster.ControllerFactory
	// Logger receives the control plane's logs (nil: discarded).
	Logger *slog.Logger
}

// Server is a running control plane with its HTTPS listener.
type Server struct {
	// URL is the API server's address, https://HOST:PORT.
	URL string
	// Kubeconfig is the path of the kubeconfig written for clients: the
	// URL, the CA that signed the serving certificate, the admin token.
	Kubeconfig string

	cluster   *cluster.Cluster
	hs        *http.Server
	errc      chan error
	stopLoops context.CancelFunc
	logger    *slog.Logger
}

// Start builds the control plane from o, starts its loops and serves it
// over HTTPS; it returns once the listener accepts connections. The loops
// stop when ctx ends or at Shutdown; call Shutdown in either case to
// finish requests in flight and close the store.
func Start(ctx context.Context, o Options) (*Server, error) {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if o.Nodes < 0 {
		return nil, fmt.Errorf("--nodes must be 0 or more, not %d", o.Nodes)
	}
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return nil, fmt.Errorf("--addr %q: %w", o.Addr, err)
	}
	bundle, err := pki.EnsureServing(o.DataDir, append(pki.DefaultHosts(), host), time.Now(), rand.Reader)
	if err != nil {
		return nil, err
	}
	adminTokens, adminToken, err := authn.EnsureTokenFile(o.DataDir, rand.Reader)
	if err != nil {
		return nil, err
	}
	auths := []authn.Authenticator{}
	admins, err := authn.NewTokenFile(adminTokens)
	if err != nil {
		return nil, err
	}
	auths = append(auths, admins)
	if o.TokenFile != "" {
		extra, err := authn.NewTokenFile(o.TokenFile)
		if err != nil {
			return nil, err
		}
		auths = append(auths, extra)
	}
	if o.ProxyClientTokenFile == "" {
		o.ProxyClientTokenFile = filepath.Join(o.DataDir, ProxyTokenFileName)
	}
	proxyToken, err := EnsureProxyToken(o.ProxyClientTokenFile)
	if err != nil {
		return nil, err
	}

	cfg := cluster.Config{
		DataDir: o.DataDir, NodeCount: o.Nodes, Controllers: o.Controllers,
		Stages:        kubelet.Stages{ContainerCreating: o.StageDelay, Running: o.StageDelay, Ready: o.StageDelay},
		Authenticator: authn.Union(auths...), UnsafeNoFsync: o.UnsafeNoFsync, Logger: logger,
		APIServerOnly: o.APIServerOnly, ProxyClientToken: proxyToken, ControllerImages: o.ControllerImages,
	}
	cl, err := cluster.New(cfg)
	if err != nil {
		return nil, err
	}
	runCtx, stopLoops := context.WithCancel(ctx)
	s := &Server{cluster: cl, stopLoops: stopLoops, logger: logger, errc: make(chan error, 1)}
	if err := cl.Start(runCtx); err != nil {
		s.close()
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		s.close()
		return nil, err
	}
	s.URL = "https://" + ln.Addr().String()
	s.Kubeconfig = o.Kubeconfig
	if s.Kubeconfig == "" {
		s.Kubeconfig = filepath.Join(o.DataDir, "kubeconfig")
	}
	if err := pki.WriteKubeconfig(s.Kubeconfig, s.URL, bundle.CAPEM, adminToken, "admin", "kubesim"); err != nil {
		_ = ln.Close()
		s.close()
		return nil, err
	}
	s.hs = &http.Server{
		Handler:           cl.Server().Handler(),
		TLSConfig:         bundle.ServerTLSConfig(),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
	}
	s.hs.TLSConfig.NextProtos = []string{"h2", "http/1.1"}
	go func() { s.errc <- s.hs.Serve(tls.NewListener(ln, s.hs.TLSConfig)) }()
	return s, nil
}

// Cluster is the control plane behind the listener, for in-process
// clients and checks.
func (s *Server) Cluster() *cluster.Cluster { return s.cluster }

// Err delivers the error that stopped the listener, if it stops before
// Shutdown.
func (s *Server) Err() <-chan error { return s.errc }

// Shutdown stops the control loops, finishes requests in flight (writes
// complete, watches end) within timeout, then commits what was queued and
// closes the store.
func (s *Server) Shutdown(timeout time.Duration) error {
	s.stopLoops()
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := s.hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = nil
	}
	_ = s.hs.Close()
	return errors.Join(err, s.close())
}

func (s *Server) close() error {
	s.stopLoops()
	return s.cluster.Close()
}

// EnsureProxyToken reads the front-proxy token at path, or writes a new
// random one there (owner-only) when the file does not exist: the token
// survives restarts, as a front-proxy client certificate does.
func EnsureProxyToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return "", fmt.Errorf("%s: empty front-proxy token", path)
		}
		return tok, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(raw[:])
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	return tok, os.WriteFile(path, []byte(tok+"\n"), 0o600)
}
