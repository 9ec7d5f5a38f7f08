package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/serving"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/pki"
)

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", ".data", "directory for the store, certificates, tokens and kubeconfig")
	addr := fs.String("addr", "127.0.0.1:6443", "address to listen on (port 0 picks a free port)")
	kubeconfig := fs.String("kubeconfig", "", "where to write a kubeconfig for kubectl (default DATA-DIR/kubeconfig)")
	tokenFile := fs.String("token-file", "", "extra users, in kube-apiserver's token CSV format (token,user,uid,\"group1,group2\")")
	noFsync := fs.Bool("unsafe-no-fsync", false, "UNSAFE: do not fsync the store; acknowledged writes can be lost on a crash (demos only)")
	nodes := fs.Int("nodes", 3, "number of fake nodes (one kubelet each)")
	apiOnly := fs.Bool("api-server-only", false, "run the API server alone, without controllers, scheduler or kubelets")
	ctrls := fs.String("controllers", "*", "controllers to run: \"*\" for all, \"-name\" to turn one off ("+strings.Join(cluster.ControllerNames, ", ")+")")
	stageDelay := fs.Duration("stage-delay", time.Second, "how long a pod spends in each kubelet stage (ContainerCreating, Running, Ready)")
	maxInFlight := fs.Int("max-requests-inflight", serving.DefaultMaxRequestsInFlight, "the most read-only requests served at once; beyond it clients get 429 with Retry-After (negative: no limit)")
	maxMutatingInFlight := fs.Int("max-mutating-requests-inflight", serving.DefaultMaxMutatingRequestsInFlight, "the most mutating requests served at once; beyond it clients get 429 with Retry-After (negative: no limit)")
	verbose := fs.Bool("v", false, "log every request")
	if err := fs.Parse(args); err != nil {
		return err
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", *addr, err)
	}
	bundle, err := pki.EnsureServing(*dataDir, append(pki.DefaultHosts(), host), time.Now(), rand.Reader)
	if err != nil {
		return err
	}
	adminTokens, adminToken, err := authn.EnsureTokenFile(*dataDir, rand.Reader)
	if err != nil {
		return err
	}
	auths := []authn.Authenticator{}
	admins, err := authn.NewTokenFile(adminTokens)
	if err != nil {
		return err
	}
	auths = append(auths, admins)
	if *tokenFile != "" {
		extra, err := authn.NewTokenFile(*tokenFile)
		if err != nil {
			return err
		}
		auths = append(auths, extra)
	}

	// The aggregator's identity toward extension API servers; an extension
	// server run on its own trusts DATA-DIR/front-proxy-ca.crt.
	frontProxy, err := pki.EnsureFrontProxy(*dataDir, time.Now(), rand.Reader)
	if err != nil {
		return err
	}

	if *nodes < 0 {
		return fmt.Errorf("--nodes must be 0 or more, not %d", *nodes)
	}
	cfg := cluster.Config{
		DataDir: *dataDir, NodeCount: *nodes, Controllers: *ctrls,
		Stages:        kubelet.Stages{ContainerCreating: *stageDelay, Running: *stageDelay, Ready: *stageDelay},
		Authenticator: authn.Union(auths...), UnsafeNoFsync: *noFsync, Logger: logger,
		APIServerOnly: *apiOnly, FrontProxy: frontProxy, ControllerImages: controllerImages(),
	}
	cl, err := cluster.New(cfg)
	if err != nil {
		return err
	}
	defer cl.Close()
	runCtx, stopLoops := context.WithCancel(ctx)
	defer stopLoops()
	if err := cl.Start(runCtx); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	url := "https://" + ln.Addr().String()
	if *kubeconfig == "" {
		*kubeconfig = filepath.Join(*dataDir, "kubeconfig")
	}
	if err := pki.WriteKubeconfig(*kubeconfig, url, bundle.CAPEM, adminToken, "admin", "kubesim"); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "kubesim API server listening on %s\n", url)
	fmt.Fprintf(stdout, "kubeconfig written to %s; try:\n  KUBECONFIG=%s kubectl get namespaces\n", *kubeconfig, *kubeconfig)

	hs := serving.NewServer(cl.Server().Handler(), bundle.ServerTLSConfig(), serving.Options{
		MaxRequestsInFlight: *maxInFlight, MaxMutatingRequestsInFlight: *maxMutatingInFlight, Logger: logger,
	})
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(tls.NewListener(ln, hs.TLSConfig)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Stop the control loops, finish requests in flight (writes complete,
	// watches end), then the deferred cl.Close() commits what was queued
	// and closes the store.
	logger.Info("shutting down")
	stopLoops()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	_ = hs.Close()
	return nil
}
