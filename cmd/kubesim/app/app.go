package app

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/serving"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/pki"
	schedconfig "github.com/kubesim/kubesim/scheduler/config"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/ui"
)

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
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight cap concurrent
	// requests (serving.Options; 0 is kube-apiserver's default, negative
	// no limit).
	MaxRequestsInFlight, MaxMutatingRequestsInFlight int
	// ListMemoryBudget bounds the memory LIST requests hold at once, in
	// bytes (apiserver.Config; 0 the default, negative none).
	ListMemoryBudget int64
	// ControllerImages are the controllers that pods can run
	// (cluster.Config.ControllerImages).
	ControllerImages map[string]cluster.InitFunc
	// Logger receives the control plane's logs (nil: discarded).
	Logger *slog.Logger
	// AuthorizationMode is authz.ModeRBAC or authz.ModeAlwaysAllow ("",
	// as for a cluster); serve's flag defaults to RBAC.
	AuthorizationMode string
	// AuditLogPath, when set, is the file the audit log is appended to
	// (--audit-log-path); AuditPolicyFile picks the levels
	// (--audit-policy-file; "" logs every request at Metadata).
	AuditLogPath, AuditPolicyFile string
	// AnonymousAuth lets requests without credentials in as
	// system:anonymous (--anonymous-auth; RBAC then decides).
	AnonymousAuth bool
	// NoUI turns off the web page at /ui/ (package ui); it is served by
	// default, behind the same authentication as the API.
	NoUI bool
	// Etcd, when its Servers are set, is the store instead of the bbolt
	// file in DataDir (which then holds only certificates, tokens and the
	// kubeconfig).
	Etcd EtcdOptions
	// LeaderElection, when set, runs the controllers and the scheduler
	// only in the holder of their Leases (--leader-elect; multi.go).
	LeaderElection *cluster.LeaderElection
	// SchedulerConfig is the scheduler's KubeSchedulerConfiguration
	// (--scheduler-config; nil: the default profile).
	SchedulerConfig *schedconfig.Config
	// LocalImages maps image names to binaries on the host that pods run
	// as processes (--local-image NAME=PATH; kubelet/localimage.go).
	LocalImages map[string]string
	// InProcessImages maps image names to programs compiled into kubesim
	// that pods of those images run in the kubelet's process, as local
	// images otherwise (kube-scheduler's image runs kubesim's scheduler;
	// kubelet.LocalImages.InProcess).
	InProcessImages map[string]kubelet.InProcessMain
	// CNI, when set, gives pods their network through CNI plugins
	// (--cni-conf-dir, --cni-bin-dir; kubelet/cni); its RootDir defaults
	// to DATA-DIR/kubelet.
	CNI *cluster.CNIConfig
	// DevicePlugins, when set, has every kubelet serve the device plugin
	// Registration service (--device-plugins; kubelet/deviceplugin); its
	// RootDir defaults to DATA-DIR/kubelet.
	DevicePlugins *cluster.DevicePluginsConfig
	// CSI, when set, lets CSI drivers register with the kubelets under
	// their node directories and runs the drivers' sidecars (cluster/csi.go);
	// its RootDir defaults to DATA-DIR/kubelet.
	CSI *cluster.CSIConfig
	// NodeMonitorGracePeriod, DefaultNotReadyTolerationSeconds and
	// DefaultUnreachableTolerationSeconds tune node failure
	// (cluster.Config's fields of those names).
	NodeMonitorGracePeriod                                                time.Duration
	DefaultNotReadyTolerationSeconds, DefaultUnreachableTolerationSeconds *int64
}

// Server is a running control plane with its HTTPS listener.
type Server struct {
	// URL is the API server's address, https://HOST:PORT.
	URL string
	// UILoginURL is the web page's one-time login link ("" with NoUI).
	UILoginURL string
	// Kubeconfig is the path of the kubeconfig written for clients: the
	// URL, the CA that signed the serving certificate, the admin token.
	// It is "" when the kubeconfig could not be written (KubeconfigErr).
	Kubeconfig string
	// KubeconfigErr says why the kubeconfig was not written, a full disk
	// say: the server runs all the same, and clients need its URL, the CA
	// (DATA-DIR/ca.crt) and the admin token (DATA-DIR/tokens.csv).
	KubeconfigErr error

	cluster   *cluster.Cluster
	etcd      store.Interface // closed after the cluster, which does not own it
	hs        *http.Server
	errc      chan error
	stopLoops context.CancelFunc
	logger    *slog.Logger
	auditLog  *os.File // nil without --audit-log-path
	// openAPIBuilt is closed when the OpenAPI documents built at start
	// are (or the build stopped).
	openAPIBuilt chan struct{}
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
	// Client certificates signed by the cluster CA: CN is the
	// user, O the groups (`kubesim kubeconfig --user`).
	auths := []authn.Authenticator{&authn.ClientCertAuthenticator{Roots: bundle.CertPool(), Now: time.Now}}
	// The key that signs ServiceAccount tokens (kubeadm's sa.key).
	saKey, err := pki.EnsureServiceAccountKey(o.DataDir)
	if err != nil {
		return nil, err
	}
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
	// The aggregator's identity toward extension API servers; an extension
	// server run on its own trusts DATA-DIR/front-proxy-ca.crt.
	frontProxy, err := pki.EnsureFrontProxy(o.DataDir, time.Now(), rand.Reader)
	if err != nil {
		return nil, err
	}

	auditLog, auditFile, err := openAudit(o)
	if err != nil {
		return nil, err
	}
	// Listen first: the address is the in-cluster configuration of the
	// local images' processes, which may start as soon as the kubelets do.
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		if auditFile != nil {
			_ = auditFile.Close()
		}
		return nil, err
	}
	cfg := cluster.Config{
		// The kubernetes Service targets the port served; its endpoint is
		// the address listened on unless that is loopback (Endpoints may
		// not name one) or any address.
		SecurePort: int32(ln.Addr().(*net.TCPAddr).Port), AdvertiseAddress: advertiseAddress(host),
		DataDir: o.DataDir, NodeCount: o.Nodes, Controllers: o.Controllers,
		Stages:        kubelet.Stages{ContainerCreating: o.StageDelay, Running: o.StageDelay, Ready: o.StageDelay, Stop: o.StageDelay},
		Authenticator: authn.Union(auths...), UnsafeNoFsync: o.UnsafeNoFsync, Logger: logger,
		APIServerOnly: o.APIServerOnly, FrontProxy: frontProxy, ControllerImages: o.ControllerImages,
		AuthorizationMode: o.AuthorizationMode, Audit: auditLog, ListMemoryBudget: o.ListMemoryBudget,
		ServiceAccountKey: saKey, RootCA: bundle.CAPEM, AnonymousAuth: o.AnonymousAuth,
		SigningCA:       bundle, // approved CSRs are signed by the CA the authenticator trusts
		LeaderElection:  o.LeaderElection,
		SchedulerConfig: o.SchedulerConfig,
	}
	cfg.NodeMonitorGracePeriod = o.NodeMonitorGracePeriod
	cfg.DefaultNotReadyTolerationSeconds, cfg.DefaultUnreachableTolerationSeconds = o.DefaultNotReadyTolerationSeconds, o.DefaultUnreachableTolerationSeconds
	cfg.CNI = o.CNI
	cfg.DevicePlugins = o.DevicePlugins
	cfg.CSI = o.CSI
	if len(o.LocalImages) > 0 || len(o.InProcessImages) > 0 {
		cfg.LocalImages = &kubelet.LocalImages{Paths: o.LocalImages, InProcess: o.InProcessImages,
			Server: "https://" + ln.Addr().String(), CA: bundle.CAPEM}
	}
	var activity *ui.Activity
	if !o.NoUI {
		activity = ui.NewActivity(clock.Real{})
		cfg.OnWrite = activity // the page's row of loops lights up as they write; "why" follows their causes
	}
	var etcd store.Interface
	if o.Etcd.Enabled() {
		st, err := o.Etcd.Open(logger)
		if err != nil {
			_ = ln.Close()
			if auditFile != nil {
				_ = auditFile.Close()
			}
			return nil, err
		}
		etcd, cfg.Storage = st, st
	}
	cl, err := cluster.New(cfg)
	if err != nil {
		_ = ln.Close()
		if etcd != nil {
			_ = etcd.Close()
		}
		if auditFile != nil {
			_ = auditFile.Close()
		}
		return nil, err
	}
	runCtx, stopLoops := context.WithCancel(ctx)
	s := &Server{cluster: cl, etcd: etcd, stopLoops: stopLoops, logger: logger, errc: make(chan error, 1), auditLog: auditFile}
	if err := cl.Start(runCtx); err != nil {
		_ = ln.Close()
		s.close()
		return nil, err
	}
	s.URL = "https://" + ln.Addr().String()
	s.Kubeconfig = o.Kubeconfig
	if s.Kubeconfig == "" {
		s.Kubeconfig = filepath.Join(o.DataDir, "kubeconfig")
	}
	if err := pki.WriteKubeconfig(s.Kubeconfig, s.URL, bundle.CAPEM, adminToken, "admin", "kubesim"); err != nil {
		// A restart on a full disk writes nothing it has written before,
		// but a new port (--addr :0) changes the kubeconfig. The server
		// needs no space to serve, so this does not stop it: the log and
		// serve's banner say how to reach it instead.
		logger.Warn("kubeconfig not written: give clients the server's URL, CA and admin token yourself",
			"err", err, "server", s.URL, "ca", filepath.Join(o.DataDir, pki.CACertFile), "tokens", adminTokens)
		s.Kubeconfig, s.KubeconfigErr = "", err
	}
	var handler http.Handler = cl.Server().Handler()
	if !o.NoUI {
		// The page and the API share the port and the authentication:
		// a session opened by the login link carries the admin token.
		page, err := ui.New(ui.Config{API: handler, Cluster: cl, LinkCredential: adminToken, Activity: activity,
			Clock: clock.Real{}, Rand: rand.Reader, Logger: logger})
		if err != nil {
			_ = ln.Close()
			s.close()
			return nil, err
		}
		handler = page
		s.UILoginURL = s.URL + page.LoginPath()
	}
	// The in-flight pools report to the cluster's /metrics.
	inflight := &serving.Inflight{}
	if err := cl.Metrics().Register(inflight); err != nil {
		_ = ln.Close()
		s.close()
		return nil, err
	}
	s.hs = serving.NewServer(handler, bundle.ServerTLSConfig(), serving.Options{
		MaxRequestsInFlight: o.MaxRequestsInFlight, MaxMutatingRequestsInFlight: o.MaxMutatingRequestsInFlight, Logger: logger,
		Inflight: inflight,
	})
	go func() { s.errc <- s.hs.Serve(tls.NewListener(ln, s.hs.TLSConfig)) }()
	// The OpenAPI documents now rather than on kubectl's first apply
	// (apiserver.Server.BuildOpenAPI), while the server already answers.
	s.openAPIBuilt = make(chan struct{})
	go func() {
		defer close(s.openAPIBuilt)
		if err := cl.Server().Delegate().BuildOpenAPI(runCtx); err != nil && runCtx.Err() == nil {
			logger.Warn("building the OpenAPI documents", "err", err)
		}
	}()
	return s, nil
}

// advertiseAddress is the API server's address on the cluster's network
// for a listen host: that address when it is one a pod could be given,
// else "" (cluster.DefaultAdvertiseAddress).
func advertiseAddress(host string) string {
	ip, err := netip.ParseAddr(host)
	if err != nil || ip.IsLoopback() || ip.IsUnspecified() {
		return ""
	}
	return ip.String()
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
	<-s.openAPIBuilt // stops between group-versions once the loops' context ends
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
	err := s.cluster.Close()
	if s.etcd != nil {
		err = errors.Join(err, s.etcd.Close())
	}
	if s.auditLog != nil {
		err = errors.Join(err, s.auditLog.Close())
	}
	return err
}

// openAudit opens the audit log o asks for, appending to the file as
// kube-apiserver does; nil, nil without --audit-log-path.
func openAudit(o Options) (*audit.Log, *os.File, error) {
	if o.AuditLogPath == "" {
		if o.AuditPolicyFile != "" {
			return nil, nil, fmt.Errorf("--audit-policy-file needs --audit-log-path")
		}
		return nil, nil, nil
	}
	policy := audit.DefaultPolicy()
	if o.AuditPolicyFile != "" {
		p, err := audit.LoadPolicy(o.AuditPolicyFile)
		if err != nil {
			return nil, nil, err
		}
		policy = p
	}
	f, err := os.OpenFile(o.AuditLogPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("--audit-log-path: %w", err)
	}
	return &audit.Log{Policy: policy, Out: f, Clock: clock.Real{}, NewID: uuid.NewString}, f, nil
}
