package framework

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesim/kubesim/cmd/kubesim/app"
)

// Options tune the control plane a test starts.
type Options struct {
	// Nodes is the number of fake nodes (node-1...), each with a kubelet.
	Nodes int
	// APIServerOnly runs the API server without any control loop.
	APIServerOnly bool
}

// Kubesim is a control plane running for one test.
type Kubesim struct {
	// Server is the running control plane.
	Server *app.Server
	// Config reaches it as client-go would from the kubeconfig: the
	// content type is left unset so that every client keeps its own
	// default (protobuf for the generated clientset's built-in kinds,
	// JSON for the dynamic client and custom resources).
	Config *rest.Config
}

// Start runs a control plane until the test ends.
func Start(t testing.TB, o Options) *Kubesim {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := app.Start(ctx, app.Options{
		DataDir: dir, Addr: "127.0.0.1:0", UnsafeNoFsync: true,
		Nodes: o.Nodes, APIServerOnly: o.APIServerOnly,
		// Pods go through the kubelet's stages quickly: the tests wait
		// for Running, never for a time.
		StageDelay: 10 * time.Millisecond,
	})
	if err != nil {
		cancel()
		t.Fatalf("start kubesim: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := srv.Shutdown(5 * time.Second); err != nil {
			t.Errorf("kubesim shutdown: %v", err)
		}
	})
	cfg, err := clientcmd.BuildConfigFromFlags("", srv.Kubeconfig)
	require.NoError(t, err, "kubeconfig %s", srv.Kubeconfig)
	// client-go's own rate limit (5 QPS, burst 10) would make the tests
	// slow, not different: every request still goes over HTTPS.
	cfg.QPS, cfg.Burst = 500, 1000
	return &Kubesim{Server: srv, Config: cfg}
}

// RestConfig returns a copy of the client configuration, for a client
// that changes it (user agent, timeouts).
func (k *Kubesim) RestConfig() *rest.Config { return rest.CopyConfig(k.Config) }

// Clientset is the generated typed clientset with its default settings.
func (k *Kubesim) Clientset(t testing.TB) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(k.RestConfig())
	require.NoError(t, err)
	return cs
}
