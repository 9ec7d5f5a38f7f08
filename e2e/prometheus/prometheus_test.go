package prometheus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/cmd/kubesim/app"
	"github.com/kubesim/kubesim/pki"
)

// waitBound bounds every wait: generous, for a loaded 2-core machine; a
// condition that holds ends its wait at once.
const waitBound = 3 * time.Minute

// prometheusBinary finds Debian's prometheus (or $PROMETHEUS).
func prometheusBinary(t *testing.T) string {
	if p := os.Getenv("PROMETHEUS"); p != "" {
		return p
	}
	p, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("no prometheus: install Debian's prometheus package (apt-get install -y prometheus; make tools does) or set $PROMETHEUS")
	}
	return p
}

// freePort is a loopback port nothing listened on a moment ago.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startPrometheus runs prometheus with config on a free port and returns
// its URL once it answers /-/ready. Another process may take the port
// first: prometheus then exits, and another port is tried.
func startPrometheus(t *testing.T, config string) string {
	bin := prometheusBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(cfg, []byte(config), 0o600))
	for attempt := range 5 {
		addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
		var logs bytes.Buffer
		cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, fmt.Sprintf("data-%d", attempt)),
			"--web.listen-address="+addr, "--log.level=warn")
		cmd.Stdout, cmd.Stderr = &logs, &logs
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		require.NoError(t, cmd.Start())
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		url := "http://" + addr
		deadline := time.Now().Add(waitBound)
		for time.Now().Before(deadline) {
			select {
			case <-exited:
				t.Logf("prometheus exited at start (attempt %d): %s", attempt, logs.String())
				deadline = time.Time{}
				continue
			default:
			}
			if resp, err := http.Get(url + "/-/ready"); err == nil {
				_ = resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					t.Cleanup(func() {
						_ = cmd.Process.Kill()
						<-exited
						if t.Failed() {
							t.Logf("prometheus's log:\n%s", logs.String())
						}
					})
					return url
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
			t.Fatalf("prometheus at %s never became ready: %s", addr, logs.String())
		}
	}
	t.Fatal("prometheus could not start")
	return ""
}

// query asks Prometheus for an instant vector and returns its samples'
// values by their labels' text.
func query(t *testing.T, prom, q string) (map[string]float64, error) {
	resp, err := http.Get(prom + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, err
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("query %q: %s", q, body.Error)
	}
	out := map[string]float64{}
	for _, r := range body.Data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, err
		}
		out[fmt.Sprint(r.Metric)] = v
	}
	return out, nil
}

// eventually waits until q has a sample for which ok holds.
func eventually(t *testing.T, prom, q string, ok func(float64) bool) float64 {
	t.Helper()
	var last map[string]float64
	var lastErr error
	deadline := time.Now().Add(waitBound)
	for time.Now().Before(deadline) {
		last, lastErr = query(t, prom, q)
		for _, v := range last {
			if ok(v) {
				return v
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	// Whether the target was up, and how long its scrapes took, tell a
	// server that did not count from scrapes that failed.
	up, _ := query(t, prom, `up{job="apiserver"}`)
	took, _ := query(t, prom, `scrape_duration_seconds{job="apiserver"}`)
	t.Fatalf("%s: no sample as wanted within %v; last answer %v (%v); up %v, last scrape took %v s", q, waitBound, last, lastErr, up, took)
	return 0
}

// A real Prometheus scrapes `kubesim serve` as it scrapes kube-apiserver:
// HTTPS, the cluster's CA, the bearer token of a system:monitoring
// member. The target comes up, and queries see the API server's requests,
// their rate, and a controller's queue as a Deployment is scaled.
func TestPrometheusScrapesKubesim(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	require.NoError(t, os.WriteFile(tokens, []byte("prom-token,prometheus,prometheus-uid,system:monitoring\n"), 0o600))
	srv, err := app.Start(context.Background(), app.Options{DataDir: dir, Addr: "127.0.0.1:0", UnsafeNoFsync: true, Nodes: 1,
		StageDelay: 20 * time.Millisecond, TokenFile: tokens, NoUI: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Shutdown(5 * time.Second) })
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("prom-token"), 0o600))

	// Every 5 s, and a scrape may take as long: on a loaded machine a
	// 1 s timeout failed scrape after scrape, and Prometheus marks every
	// series of a failed scrape stale, so that queries found nothing.
	prom := startPrometheus(t, fmt.Sprintf(`global:
  scrape_interval: 5s
  scrape_timeout: 5s
scrape_configs:
  - job_name: apiserver
    scheme: https
    metrics_path: /metrics
    authorization:
      credentials_file: %s
    tls_config:
      ca_file: %s
    static_configs:
      - targets: [%q]
`, tokenFile, filepath.Join(dir, pki.CACertFile), u.Host))

	// The target is up: Prometheus' own up series for the job.
	eventually(t, prom, `up{job="apiserver"}`, func(v float64) bool { return v == 1 })
	eventually(t, prom, `sum(apiserver_request_total)`, func(v float64) bool { return v > 0 })

	// A Deployment scaled: the deployment controller's queue and the pod
	// creates show, and the request rate is above zero.
	cl := srv.Cluster().Client("prometheus-test")
	ctx := context.Background()
	labels := map[string]string{"app": "web"}
	_, err = cl.Deployments().Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}}})
	require.NoError(t, err)
	d, err := cl.Deployments().Get(ctx, "default", "web")
	require.NoError(t, err)
	d.Spec.Replicas = ptr.To[int32](4)
	_, err = cl.Deployments().Update(ctx, d)
	require.NoError(t, err)

	eventually(t, prom, `workqueue_adds_total{job="apiserver",name="deployment"}`, func(v float64) bool { return v > 0 })
	eventually(t, prom, `sum(apiserver_request_total{verb="POST",resource="pods",code="201"})`, func(v float64) bool { return v >= 4 })
	rate := eventually(t, prom, `sum(rate(apiserver_request_total[30s]))`, func(v float64) bool { return v > 0 })
	t.Logf("request rate seen by Prometheus: %.1f/s", rate)
	eventually(t, prom, `histogram_quantile(0.99, sum by (le) (rate(apiserver_request_duration_seconds_bucket{verb="POST"}[30s])))`,
		func(v float64) bool { return v > 0 })
}
