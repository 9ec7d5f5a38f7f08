package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/pki"
	"github.com/kubesim/kubesim/runmode"
)

// kubeletCmd runs fake kubelets as their own process (`kubesim kubelet`),
// so that nodes outlive an API server: with --server listing several API
// servers, a kubelet whose server stops answering moves to the next, as a
// real kubelet does behind a load balancer. Each kubelet registers its
// Node, renews its Lease and runs its pods (simulated images only: the
// kubelet's HTTP API for logs and exec stays in `kubesim serve`).
func kubeletCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("kubelet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the API server (default $KUBECONFIG)")
	servers := fs.String("server", "", "API server URLs, comma-separated, tried in turn when one stops answering (default: the kubeconfig's)")
	nodes := fs.Int("nodes", 1, "number of fake nodes (one kubelet each)")
	prefix := fs.String("node-prefix", "node", "nodes are named PREFIX-1, PREFIX-2, ...")
	stageDelay := fs.Duration("stage-delay", time.Second, "how long a pod spends in each kubelet stage")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *kubeconfig == "" {
		return errors.New("kubelet: --kubeconfig (or $KUBECONFIG) is required")
	}
	if *nodes < 1 {
		return fmt.Errorf("kubelet: --nodes must be 1 or more, not %d", *nodes)
	}
	kc, err := pki.LoadKubeconfig(*kubeconfig)
	if err != nil {
		return fmt.Errorf("kubelet: %w", err)
	}
	tlsCfg, err := kc.TLSConfig()
	if err != nil {
		return fmt.Errorf("kubelet: %w", err)
	}
	urls := []string{kc.Server}
	if *servers != "" {
		urls = strings.Split(*servers, ",")
	}
	ft, err := newFailoverTransport(urls, &http.Transport{TLSClientConfig: tlsCfg})
	if err != nil {
		return fmt.Errorf("kubelet: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	var wg sync.WaitGroup
	for i := 1; i <= *nodes; i++ {
		name := fmt.Sprintf("%s-%d", *prefix, i)
		cl, err := client.New(client.Config{Server: urls[0], Token: kc.Token, Transport: ft, UserAgent: "kubelet/" + name})
		if err != nil {
			return err
		}
		k, err := kubelet.New(kubelet.Config{Client: cl, Clock: clock.Real{}, Mode: runmode.Live, NodeName: name,
			PodCIDR: fmt.Sprintf("10.%d.%d.0/24", 244+(i-1)/256, (i-1)%256), Logger: logger,
			Stages: kubelet.Stages{ContainerCreating: *stageDelay, Running: *stageDelay, Ready: *stageDelay}})
		if err != nil {
			return fmt.Errorf("kubelet %s: %w", name, err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); k.Run(ctx) }()
	}
	fmt.Fprintf(stdout, "%d kubelet(s) running against %s; stop with Ctrl-C\n", *nodes, strings.Join(urls, ","))
	wg.Wait()
	return nil
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
