package main

import (
	crand "crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/kubelet/cni"
	"github.com/kubesim/kubesim/kubelet/deviceplugin"
	kubeletserver "github.com/kubesim/kubesim/kubelet/server"
	"github.com/kubesim/kubesim/pki"
	"github.com/kubesim/kubesim/runmode"
)

// newKubeletCommand is `kubesim kubelet`: fake kubelets as their own
// process, so that nodes outlive an API server: with --server listing
// several API servers, a kubelet whose server stops answering moves to
// the next, as a real kubelet does behind a load balancer. Each kubelet registers its
// Node, renews its Lease, runs its pods (simulated images only) and
// serves the kubelet API — container logs, exec, attach, port-forward,
// /stats/summary — over HTTPS on its own port of --address, which its Node
// reports (status.addresses InternalIP, status.daemonEndpoints
// kubeletEndpoint.port): the API server dials it there for kubectl logs
// and exec, as kube-apiserver dials a kubelet on port 10250. Each node
// has its own port, as kubelets sharing a machine do.
func newKubeletCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kubelet --nodes N --kubeconfig FILE [--server URL[,URL]] [--address IP] [--port P]",
		Short: "run fake kubelets as their own process (nodes outlive an API server)",
		Long: `Run fake kubelets as their own process (nodes outlive an API server),
each serving the kubelet API (logs, exec) on its own port.`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the API server (default $KUBECONFIG)")
	servers := fs.String("server", "", "API server URLs, comma-separated, tried in turn when one stops answering (default: the kubeconfig's)")
	nodes := fs.Int("nodes", 1, "number of fake nodes (one kubelet each)")
	prefix := fs.String("node-prefix", "node", "nodes are named PREFIX-1, PREFIX-2, ...")
	stageDelay := fs.Duration("stage-delay", time.Second, "how long a pod spends in each kubelet stage")
	address := fs.String("address", "127.0.0.1", "IP address the kubelet API listens on, reported as each node's InternalIP")
	port := fs.Int("port", 0, "kubelet API port of the first node, the next nodes on the ports after it (0: a free port each)")
	certDir := fs.String("cert-dir", "", "directory of the kubelet API's self-signed certificate (default: a temporary one)")
	cniFlags := addCNIFlags(fs)
	devicePlugins := addDevicePluginFlag(fs)
	rootDir := fs.String("root-dir", ".kubelet", "directory of the nodes' state, one directory each (the CNI sandboxes' records, which a kubelet started again adopts)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		// The flags are checked before any file is read: a mistake in
		// them is reported as such, whatever the kubeconfig holds.
		if *kubeconfig == "" {
			return errors.New("kubelet: --kubeconfig (or $KUBECONFIG) is required")
		}
		if *nodes < 1 {
			return fmt.Errorf("kubelet: --nodes must be 1 or more, not %d", *nodes)
		}
		cniCfg, err := cniFlags.config()
		if err != nil {
			return fmt.Errorf("kubelet: %w", err)
		}
		kc, tlsCfg, err := loadKubeconfig("kubelet", *kubeconfig)
		if err != nil {
			return err
		}
		urls := []string{kc.Server}
		if *servers != "" {
			urls = strings.Split(*servers, ",")
		}
		ft, err := newFailoverTransport(urls, &http.Transport{TLSClientConfig: tlsCfg})
		if err != nil {
			return fmt.Errorf("kubelet: %w", err)
		}
		if net.ParseIP(*address) == nil {
			return fmt.Errorf("kubelet: --address %q is not an IP address", *address)
		}
		if *port < 0 || *port+*nodes-1 > 65535 {
			return fmt.Errorf("kubelet: --port %d: the nodes' ports would not fit below 65536", *port)
		}
		serving, cleanup, err := kubeletServing(*certDir, *address)
		if err != nil {
			return fmt.Errorf("kubelet: %w", err)
		}
		defer cleanup()
		logger := slog.New(slog.NewTextHandler(stderr, nil))
		var wg sync.WaitGroup
		for i := 1; i <= *nodes; i++ {
			name := fmt.Sprintf("%s-%d", *prefix, i)
			cl, err := client.New(client.Config{Server: urls[0], Token: kc.Token, Transport: ft, UserAgent: "kubelet/" + name})
			if err != nil {
				return err
			}
			p := 0
			if *port > 0 {
				p = *port + i - 1
			}
			ln, err := net.Listen("tcp", net.JoinHostPort(*address, strconv.Itoa(p)))
			if err != nil {
				return fmt.Errorf("kubelet %s: %w", name, err)
			}
			var nodeCNI *cni.Config
			if cniCfg != nil {
				nodeCNI = &cni.Config{ConfDir: cniCfg.ConfDir, BinDirs: cniCfg.BinDirs, StateDir: filepath.Join(*rootDir, name, "cni")}
			}
			var nodeDevices *deviceplugin.Config
			if devicePlugins.config() != nil {
				nodeDevices = &deviceplugin.Config{Dir: cluster.DevicePluginDir(*rootDir, name)}
			}
			k, err := kubelet.New(kubelet.Config{CNI: nodeCNI, DevicePlugins: nodeDevices, Client: cl, Clock: clock.Real{}, Mode: runmode.Live, NodeName: name,
				PodCIDR: fmt.Sprintf("10.%d.%d.0/24", 244+(i-1)/256, (i-1)%256), Logger: logger,
				InternalIP: *address, KubeletPort: int32(ln.Addr().(*net.TCPAddr).Port),
				Stages:  kubelet.Stages{ContainerCreating: *stageDelay, Running: *stageDelay, Ready: *stageDelay, Stop: *stageDelay},
				Metrics: prometheus.NewRegistry()}) // its /metrics, as each real kubelet's
			if err != nil {
				_ = ln.Close()
				return fmt.Errorf("kubelet %s: %w", name, err)
			}
			kapi, err := kubeletserver.New(kubeletserver.Config{Node: func(string) (kubeletserver.Host, bool) { return k, !k.Stopped() }})
			if err != nil {
				_ = ln.Close()
				return err
			}
			srv := &http.Server{Handler: kapi, TLSConfig: serving, ReadHeaderTimeout: 10 * time.Second,
				ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
			wg.Add(3)
			go func() { defer wg.Done(); k.Run(ctx) }()
			go func() { defer wg.Done(); _ = srv.ServeTLS(ln, "", "") }()
			go func() { defer wg.Done(); <-ctx.Done(); _ = srv.Close() }()
		}
		fmt.Fprintf(stdout, "%d kubelet(s) running against %s; stop with Ctrl-C\n", *nodes, strings.Join(urls, ","))
		wg.Wait()
		return nil
	}
	return cmd
}

// kubeletServing is the kubelet API's TLS: a certificate for address
// from its own CA in dir (a temporary directory when dir is ""), as a
// kubelet without --tls-cert-file makes itself one in --cert-dir. The API
// server does not verify it (nodeproxy.KubeletTransport).
func kubeletServing(dir, address string) (*tls.Config, func(), error) {
	cleanup := func() {}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "kubesim-kubelet-pki-")
		if err != nil {
			return nil, nil, err
		}
		dir, cleanup = tmp, func() { _ = os.RemoveAll(tmp) }
	}
	b, err := pki.EnsureServing(dir, []string{address}, time.Now(), crand.Reader)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{b.ServingCert}, MinVersion: tls.VersionTLS12}, cleanup, nil
}

// failoverTransport sends each request to the current API server and,
// when it cannot be reached (the connection is refused: nothing was
// sent, so even a write is safe to resend), moves to the next one.
type failoverTransport struct {
	hosts []string // host:port of each server, same scheme
	cur   atomic.Int32
	next  http.RoundTripper
}

func newFailoverTransport(urls []string, next http.RoundTripper) (*failoverTransport, error) {
	t := &failoverTransport{next: next}
	for _, u := range urls {
		u = strings.TrimSpace(u)
		host, ok := strings.CutPrefix(u, "https://")
		if !ok || host == "" {
			return nil, fmt.Errorf("--server %q: want https://HOST:PORT", u)
		}
		t.hosts = append(t.hosts, strings.TrimSuffix(host, "/"))
	}
	return t, nil
}

// RoundTrip implements http.RoundTripper.
func (t *failoverTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var err error
	for range t.hosts {
		i := t.cur.Load()
		r := req.Clone(req.Context())
		r.URL.Host, r.Host = t.hosts[i], t.hosts[i]
		if req.GetBody != nil {
			if r.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		var resp *http.Response
		resp, err = t.next.RoundTrip(r)
		var op *net.OpError
		if err == nil || !errors.As(err, &op) || op.Op != "dial" {
			return resp, err
		}
		t.cur.CompareAndSwap(i, (i+1)%int32(len(t.hosts)))
	}
	return nil, err
}
