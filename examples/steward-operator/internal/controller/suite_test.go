package controller

// The envtest suite, as `kubebuilder create api` scaffolds it, pointed at
// kubesim instead of envtest's kube-apiserver and etcd binaries:
// USE_EXISTING_CLUSTER=true and KUBECONFIG name a `kubesim serve` that the
// suite builds from the parent module and starts itself. envtest then does
// what it always does — installs the CRD from config/crd/bases, writes a
// self-signed serving certificate to a temp dir, rewrites the webhook
// configurations of config/webhook to url: clientConfigs on 127.0.0.1 with
// that CA, and installs them — and kubesim, unlike envtest's bare API
// server, also runs the garbage collector, the Deployment controller and
// kubelets, so owned objects really go away and pods really get ready.

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	oamv1 "github.com/kubesim/kubesim/examples/steward-operator/api/v1"
	webhookv1 "github.com/kubesim/kubesim/examples/steward-operator/internal/webhook/v1"
)

// suite is what every test of the package shares: one kubesim, one
// manager running the reconciler and the webhooks.
type suite struct {
	cfg *rest.Config
	k8s client.Client
}

// repoRoot is the kubesim module, four levels up from this package.
func repoRoot(t *testing.T) string {
	root, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", "kubesim")); err != nil {
		t.Fatalf("kubesim source not found at %s: %v", root, err)
	}
	return root
}

// startKubesim builds and runs `kubesim serve` with a temp data dir and
// returns its kubeconfig path once /readyz answers ok, with the time from
// the process start to that answer.
func startKubesim(t *testing.T) (string, time.Duration) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "kubesim")
	build := exec.Command("go", "build", "-o", bin, "./cmd/kubesim")
	build.Dir = repoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build kubesim: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "data")
	kubeconfig := filepath.Join(data, "kubeconfig")
	serve := exec.Command(bin, "serve", "--data-dir", data, "--addr", "127.0.0.1:0",
		"--nodes", "1", "--stage-delay", "10ms", "--unsafe-no-fsync")
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	serve.Stdout, serve.Stderr = logf, logf
	start := time.Now()
	if err := serve.Start(); err != nil {
		t.Fatalf("kubesim serve: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	t.Cleanup(func() {
		_ = serve.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = serve.Process.Kill()
			<-exited
		}
		_ = logf.Close()
		if t.Failed() {
			if b, err := os.ReadFile(logf.Name()); err == nil {
				t.Logf("kubesim serve log:\n%s", tail(string(b), 40))
			}
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("kubesim serve exited: %v\n%s", err, b)
		default:
		}
		if ready(kubeconfig) {
			return kubeconfig, time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubesim serve not ready after 60s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ready reports whether the kubeconfig exists and its server says /readyz ok.
func ready(kubeconfig string) bool {
	if _, err := os.Stat(kubeconfig); err != nil {
		return false
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return false
	}
	cfg.Timeout = 2 * time.Second
	rc, err := rest.UnversionedRESTClientFor(withCodec(cfg))
	if err != nil {
		return false
	}
	body, err := rc.Get().AbsPath("/readyz").DoRaw(context.Background())
	return err == nil && strings.TrimSpace(string(body)) == "ok"
}

func withCodec(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.NegotiatedSerializer = clientgoscheme.Codecs.WithoutConversion()
	return c
}

func tail(s string, n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// setup starts kubesim, envtest against it and the operator's manager.
func setup(t *testing.T) *suite {
	t.Helper()
	kubeconfig, took := startKubesim(t)
	t.Logf("kubesim serve: start to /readyz ok in %v (envtest's kube-apiserver+etcd: 7-15 s as users report)", took.Round(time.Millisecond))
	t.Setenv("KUBECONFIG", kubeconfig)
	t.Setenv("USE_EXISTING_CLUSTER", "true")
	// The manager's logs go to a file, shown when the test fails: a
	// t.Log from a goroutine still logging after the test would panic.
	mlog, err := os.Create(filepath.Join(t.TempDir(), "manager.log"))
	if err != nil {
		t.Fatal(err)
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(mlog), zap.UseDevMode(true)))
	t.Cleanup(func() {
		if t.Failed() {
			if b, err := os.ReadFile(mlog.Name()); err == nil {
				t.Logf("manager log:\n%s", tail(string(b), 60))
			}
		}
	})

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := oamv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{
		Scheme:                scheme,
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			Paths:            []string{filepath.Join("..", "..", "config", "webhook")},
			LocalServingHost: "127.0.0.1",
		},
	}
	envStart := time.Now()
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("envtest start: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("envtest stop: %v", err)
		}
	})
	t.Logf("envtest.Start against kubesim (CRD + webhooks installed): %v", time.Since(envStart).Round(time.Millisecond))
	cfg.QPS, cfg.Burst = 500, 1000

	wo := env.WebhookInstallOptions
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		WebhookServer: webhook.NewServer(webhook.Options{
			Host: wo.LocalServingHost, Port: wo.LocalServingPort, CertDir: wo.LocalServingCertDir,
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&StewardReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	if err := webhookv1.SetupStewardWebhookWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	// A client that bypasses the manager's cache: the tests read what the
	// API server has, not what the operator saw.
	k8s, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return &suite{cfg: cfg, k8s: k8s}
}
