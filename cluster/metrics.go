package cluster

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/metricsserver"
)

// runMetricsServer starts the image kubesim/metrics-server of a pod: the
// metrics server with its own client of the API server (no step-mode
// recorder: it only reads, and asks SubjectAccessReviews) and the
// kubelets' API as its network to the nodes.
func (c *Cluster) runMetricsServer(_ context.Context, pod *corev1.Pod, _ corev1.Container) (kubelet.Process, error) {
	cl, err := client.New(client.Config{Server: "http://in-process",
		Transport: &client.InProcessTransport{Handler: c.server.LoopbackHandler()},
		UserAgent: "metrics-server/" + pod.Namespace + "/" + pod.Name})
	if err != nil {
		return nil, err
	}
	opts := metricsserver.Options{Client: cl, Kubelet: kubeletTransport{c}, Clock: c.clock,
		RequestHeaderClientCA: c.frontProxy.CAPool(), Logger: c.logger.With("pod", pod.Namespace+"/"+pod.Name)}
	if dir := c.podsDir(); dir != "" {
		opts.DataDir, opts.EphemeralDataDir = filepath.Join(dir, string(pod.UID)), true
	}
	s, err := metricsserver.Start(opts)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", metricsserver.ImageName, err)
	}
	return s, nil
}

// kubeletTransport reaches https://NODE-ADDRESS:10250 in process: the
// kubelet API of the node at that address, or a refused connection when
// no running kubelet is there (a stopped node).
type kubeletTransport struct{ c *Cluster }

// RoundTrip implements http.RoundTripper.
func (t kubeletTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if _, ok := t.c.kubeletByHost(req.URL.Hostname()); !ok {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("connect: connection refused (%s)", req.URL.Host)}
	}
	return (&client.InProcessTransport{Handler: t.c.kubeletAPI}).RoundTrip(req)
}
