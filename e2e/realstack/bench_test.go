package realstack

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesim/kubesim/store/etcdstore/etcdtest"
)

// widgetCRD is the schema of apiserver/crd's BenchmarkCustomResourceCreate
// (the reference's Widget: enum, exclusive maximum, defaults inside array
// items, status and scale subresources, printer columns), so that the
// figures here and there measure the same work.
const widgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.lab.example.com"},
"spec":{"group":"lab.example.com","scope":"Namespaced",
 "names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wd"],"categories":["all"]},
 "versions":[{"name":"v1","served":true,"storage":true,
  "subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"}},
  "additionalPrinterColumns":[{"name":"Color","type":"string","jsonPath":".spec.color"},{"name":"Replicas","type":"integer","jsonPath":".spec.replicas"}],
  "schema":{"openAPIV3Schema":{"type":"object","properties":{
   "spec":{"type":"object","required":["color"],"properties":{
     "color":{"type":"string","enum":["red","green","blue"]},
     "size":{"type":"integer","maximum":10,"exclusiveMaximum":true},
     "replicas":{"type":"integer","default":1},
     "ports":{"type":"array","items":{"type":"object","properties":{"port":{"type":"integer"},"protocol":{"type":"string","default":"TCP"}}}},
     "note":{"type":"string","nullable":true}}},
   "status":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}}]}}`

const (
	// clients is the number of concurrent keep-alive HTTPS connections,
	// as in apiserver/crd's benchmark.
	clients = 8
	// defaultCreates is the number of creates per round; REALSTACK_CREATES
	// changes it.
	defaultCreates = 3000
	// warmup creates run against each server before the rounds, so that
	// connection set-up and first-use costs fall outside the figures.
	warmup = 200
)

// BenchmarkSideBySide creates Widgets in `kubesim serve` (bbolt, fsync on)
// and in the real apiextensions-apiserver over etcd, alternating
// kubesim, real, kubesim, real, from the same load generator; it reports
// each server's creates/s, p50/p99 latency and server CPU time per
// create (the real side counts etcd's too), and the ratios of the means.
// Run it with -benchtime 1x: one invocation is the whole
// comparison.
func BenchmarkSideBySide(b *testing.B) {
	if _, err := exec.LookPath("etcd"); err != nil {
		b.Skip("side-by-side comparison skipped: no etcd on PATH (apt-get install etcd-server)")
	}
	bin := binDir(b)
	realBin := buildOrFind(b, bin, "apiextensions-apiserver", "k8s.io/apiextensions-apiserver")
	// REALSTACK_KUBESIM names a kubesim binary to measure instead of this
	// checkout's (a build of an earlier commit, for a before/after pair).
	kubesimBin := os.Getenv("REALSTACK_KUBESIM")
	if kubesimBin == "" {
		kubesimBin = buildOrFind(b, bin, "kubesim", "github.com/kubesim/kubesim/cmd/kubesim")
	}
	creates := defaultCreates
	if v := os.Getenv("REALSTACK_CREATES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("REALSTACK_CREATES=%q: want a positive number", v)
		}
		creates = n
	}

	servers := []*target{startKubesim(b, kubesimBin), startReal(b, realBin)}
	for _, s := range servers {
		s.install(b)
		s.run(b, "warmup", warmup)
	}
	results := map[string][]result{}
	for round := 1; round <= 2; round++ {
		for _, s := range servers {
			r := s.run(b, fmt.Sprintf("r%d", round), creates)
			b.Logf("round %d %-7s: %d creates in %v: %.0f creates/s, p50 %.1f ms, p99 %.1f ms, server CPU %.0f µs per create, load generator CPU %.0f µs per create (%.2f cores)",
				round, s.name, creates, r.elapsed.Round(time.Millisecond), r.perSecond(), ms(r.p50), ms(r.p99), r.cpuPerCreate(),
				r.clientCPUPerCreate(), r.clientCores())
			results[s.name] = append(results[s.name], r)
		}
	}
	b.Logf("load average during the run: %s", loadAverage())

	mean := func(name string) (rate, p50, p99, cpu, clientCPU float64) {
		rs := results[name]
		for _, r := range rs {
			rate += r.perSecond() / float64(len(rs))
			p50 += ms(r.p50) / float64(len(rs))
			p99 += ms(r.p99) / float64(len(rs))
			cpu += r.cpuPerCreate() / float64(len(rs))
			clientCPU += r.clientCPUPerCreate() / float64(len(rs))
		}
		return rate, p50, p99, cpu, clientCPU
	}
	kRate, kP50, kP99, kCPU, kClient := mean("kubesim")
	rRate, rP50, rP99, rCPU, rClient := mean("real")
	for i, r := range results["kubesim"] {
		b.ReportMetric(r.perSecond(), fmt.Sprintf("kubesim-r%d-creates/s", i+1))
	}
	for i, r := range results["real"] {
		b.ReportMetric(r.perSecond(), fmt.Sprintf("real-r%d-creates/s", i+1))
	}
	b.ReportMetric(kRate, "kubesim-creates/s")
	b.ReportMetric(rRate, "real-creates/s")
	b.ReportMetric(kP50, "kubesim-p50-ms")
	b.ReportMetric(kP99, "kubesim-p99-ms")
	b.ReportMetric(rP50, "real-p50-ms")
	b.ReportMetric(rP99, "real-p99-ms")
	b.ReportMetric(kCPU, "kubesim-cpu-µs/create")
	b.ReportMetric(rCPU, "real-cpu-µs/create")
	// The load generator shares the machine's cores with the servers: its
	// CPU per create says whether it, not the server, is the limit.
	b.ReportMetric(kClient, "kubesim-loadgen-cpu-µs/create")
	b.ReportMetric(rClient, "real-loadgen-cpu-µs/create")
	b.ReportMetric(kRate/rRate, "ratio")
	b.ReportMetric(rCPU/kCPU, "cpu-ratio")
}

// target is one API server under load: its URL and a client with its
// credentials.
type target struct {
	name   string
	url    string
	client *http.Client
	// pids are the server's processes (kubesim; the real server and
	// etcd), whose CPU time a round charges to its creates.
	pids []int
}

// cpu is the CPU time (user + system) the server's processes have used.
func (s *target) cpu() time.Duration {
	var total time.Duration
	for _, pid := range s.pids {
		total += cpuTime(pid)
	}
	return total
}

// cpuTime reads a process's utime and stime from /proc/<pid>/stat (fields
// 14 and 15, in clock ticks of 1/100 s on Linux).
func cpuTime(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(data[i+1:])) // f[0] is field 3
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// selfCPU is the CPU time (user + system) this process, the load
// generator, has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// install creates the Widget CRD and waits until the server serves
// Widgets (the CRD is Established and its handler installed).
func (s *target) install(b *testing.B) {
	b.Helper()
	code, body := s.post(s.url+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", []byte(widgetCRD))
	if code != http.StatusCreated {
		b.Fatalf("%s: create the Widget CRD: %d %s", s.name, code, body)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := s.client.Get(s.url + "/apis/lab.example.com/v1/namespaces/default/widgets")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s does not serve Widgets 60 s after the CRD was created (last: %v %v)", s.name, resp, err)
		}
		time.Sleep(50 * time.Millisecond) // polling for a condition, not a timing assumption
	}
}

func (s *target) post(url string, body []byte) (int, string) {
	resp, err := s.client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// result is one round of creates against one server.
type result struct {
	elapsed  time.Duration
	creates  int
	p50, p99 time.Duration
	// cpu is the server processes' CPU time over the round: unlike
	// creates/s, CPU per create hardly moves with the machine's load.
	cpu time.Duration
	// clientCPU is the load generator's (this process's) CPU time over
	// the round.
	clientCPU time.Duration
}

func (r result) clientCPUPerCreate() float64 {
	return float64(r.clientCPU.Microseconds()) / float64(r.creates)
}

// clientCores is how many cores the load generator kept busy on average.
func (r result) clientCores() float64 { return r.clientCPU.Seconds() / r.elapsed.Seconds() }

func (r result) cpuPerCreate() float64 { return float64(r.cpu.Microseconds()) / float64(r.creates) }

func (r result) perSecond() float64 { return float64(r.creates) / r.elapsed.Seconds() }

// run makes n Widgets named <prefix>-<i> from clients goroutines sharing
// one keep-alive transport, and times each create.
func (s *target) run(b *testing.B, prefix string, n int) result {
	b.Helper()
	url := s.url + "/apis/lab.example.com/v1/namespaces/default/widgets"
	var next, failed atomic.Int64
	var firstFailure atomic.Value
	latencies := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	cpu0, client0 := s.cpu(), selfCPU()
	start := time.Now()
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				body := fmt.Sprintf(`{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"%s-%d"},"spec":{"color":"green","size":3,"ports":[{"port":80},{"port":443}]}}`, prefix, i)
				t0 := time.Now()
				code, msg := s.post(url, []byte(body))
				latencies[w] = append(latencies[w], time.Since(t0))
				if code != http.StatusCreated {
					failed.Add(1)
					firstFailure.CompareAndSwap(nil, fmt.Sprintf("%d %s", code, msg))
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu, clientCPU := s.cpu()-cpu0, selfCPU()-client0
	if f := failed.Load(); f > 0 {
		b.Fatalf("%s: %d of %d creates failed, first: %v", s.name, f, n, firstFailure.Load())
	}
	all := slices.Concat(latencies...)
	slices.Sort(all)
	return result{elapsed: elapsed, creates: n, p50: all[len(all)/2], p99: all[len(all)*99/100], cpu: cpu, clientCPU: clientCPU}
}

// newTarget reads a kubeconfig the way client-go does and builds a client
// for it that speaks HTTP/1.1 over keep-alive TLS connections, one per
// load goroutine, for both servers alike (REALSTACK_HTTP2=1: HTTP/2).
func newTarget(b *testing.B, name, kubeconfig string) *target {
	b.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		b.Fatalf("%s kubeconfig: %v", name, err)
	}
	tc, err := rest.TLSConfigFor(cfg)
	if err != nil {
		b.Fatalf("%s TLS config: %v", name, err)
	}
	tr := &http.Transport{
		TLSClientConfig: tc, MaxIdleConnsPerHost: 2 * clients,
		// HTTP/1.1, as apiserver/crd's benchmark: one request per
		// connection at a time, so 8 clients are 8 connections.
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
	if os.Getenv("REALSTACK_HTTP2") != "" {
		// HTTP/2, as client-go speaks by default: the 8 clients' creates
		// are streams over one connection.
		tr.TLSNextProto = nil
		tr.ForceAttemptHTTP2 = true
	}
	var rt http.RoundTripper = tr
	if cfg.BearerToken != "" {
		rt = &bearer{token: cfg.BearerToken, rt: rt}
	}
	return &target{name: name, url: cfg.Host, client: &http.Client{Timeout: 60 * time.Second, Transport: rt}}
}

type bearer struct {
	token string
	rt    http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}

// startKubesim runs `kubesim serve` as the API server alone (no
// controllers, no nodes) with its default durable store: bbolt with
// fsync on every commit.
func startKubesim(b *testing.B, bin string) *target {
	b.Helper()
	dir := b.TempDir()
	cmd := exec.Command(bin, "serve", "--data-dir", dir, "--addr", "127.0.0.1:0", "--nodes", "0", "--api-server-only")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = io.Discard
	start(b, cmd)
	re := regexp.MustCompile(`listening on (https://\S+)`)
	found := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if re.MatchString(sc.Text()) {
				close(found)
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case <-found:
	case <-time.After(60 * time.Second):
		b.Fatal("kubesim serve did not start within 60 s")
	}
	s := newTarget(b, "kubesim", filepath.Join(dir, "kubeconfig"))
	s.pids = []int{cmd.Process.Pid}
	return s
}

// startReal runs etcd and the real apiextensions-apiserver standalone
// against it. Without a kube-apiserver to delegate to, it gets:
//   - --client-ca-file: the load generator's certificate is in
//     system:masters, which the delegating authorizer allows without a
//     SubjectAccessReview;
//   - --authentication-skip-lookup: no read of kube-system's
//     extension-apiserver-authentication ConfigMap;
//   - a kubeconfig to itself for --kubeconfig,
//     --authentication-kubeconfig and --authorization-kubeconfig, which
//     it insists on having (there is no in-cluster configuration here);
//   - --disable-admission-plugins for the plugins that watch core objects
//     this server does not serve (namespaces, webhook configurations,
//     admission policies);
//   - --enable-priority-and-fairness=false: its configuration
//     (FlowSchemas, PriorityLevelConfigurations) lives in the core API;
//     the max-in-flight limits (400 reads, 200 writes) stand in.
//
// It waits for /healthz, not /readyz: readyz's informer-sync check waits
// for a Services informer (for conversion webhooks) that never syncs
// without a core API, while everything the creates need is up.
func startReal(b *testing.B, bin string) *target {
	b.Helper()
	etcd, err := etcdtest.Start()
	if err != nil {
		b.Fatalf("start etcd: %v", err)
	}
	b.Cleanup(etcd.Stop)
	dir := b.TempDir()
	port, err := etcdtest.FreePort()
	if err != nil {
		b.Fatal(err)
	}
	caFile, kubeconfig := writeClientCredentials(b, dir, fmt.Sprintf("https://127.0.0.1:%d", port))
	log, err := os.Create(filepath.Join(dir, "apiextensions-apiserver.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = log.Close() })
	cmd := exec.Command(bin,
		"--etcd-servers", etcd.URL,
		"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(port), "--cert-dir", filepath.Join(dir, "serving"),
		"--client-ca-file", caFile, "--authentication-skip-lookup",
		"--kubeconfig", kubeconfig, "--authentication-kubeconfig", kubeconfig, "--authorization-kubeconfig", kubeconfig,
		"--disable-admission-plugins", "NamespaceLifecycle,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy,MutatingAdmissionPolicy")
	cmd.Stdout, cmd.Stderr = log, log
	exited := start(b, cmd)
	s := newTarget(b, "real", kubeconfig)
	s.pids = []int{cmd.Process.Pid, childPID(b, "etcd")}
	deadline := time.Now().Add(120 * time.Second)
	for {
		select {
		case <-exited:
			b.Fatalf("apiextensions-apiserver exited at start:\n%s", tail(log.Name()))
		default:
		}
		if resp, err := s.client.Get(s.url + "/healthz"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("apiextensions-apiserver not healthy within 120 s:\n%s", tail(log.Name()))
		}
		time.Sleep(100 * time.Millisecond) // polling for a condition
	}
}

// childPID finds this process's child named comm (etcd, which etcdtest
// started) in /proc.
func childPID(b *testing.B, comm string) int {
	b.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(string(data[end+1:])) // f[1] is the parent's pid
		if string(data[open+1:end]) == comm && len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
			pid, _ := strconv.Atoi(strings.Fields(string(data[:open]))[0])
			return pid
		}
	}
	b.Fatalf("no child process %q found", comm)
	return 0
}

// start runs cmd until the benchmark ends; the returned channel closes
// when it exits. The child dies with the benchmark binary, even one
// killed by a timeout.
func start(b *testing.B, cmd *exec.Cmd) <-chan struct{} {
	b.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		b.Fatalf("start %s: %v", cmd.Path, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	b.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	return exited
}

// writeClientCredentials makes a CA and a client certificate signed by it
// for user "bench" in group system:masters, and a kubeconfig for server
// with that certificate (the server's own certificate is self-signed, so
// the kubeconfig skips its verification).
func writeClientCredentials(b *testing.B, dir, server string) (caFile, kubeconfig string) {
	b.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "realstack-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		b.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		b.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "bench", Organization: []string{"system:masters"}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		b.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		b.Fatal(err)
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	caFile = filepath.Join(dir, "client-ca.crt")
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		b.Fatal(err)
	}
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: real
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: bench
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: real
  context: {cluster: real, user: bench}
current-context: real
`, server, base64.StdEncoding.EncodeToString(certPEM), base64.StdEncoding.EncodeToString(keyPEM))
	kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	return caFile, kubeconfig
}

// binDir is where built binaries are kept between runs: go build leaves
// an up-to-date binary alone, so a second run does not link the real
// server's 120 MB again.
func binDir(b *testing.B) string {
	b.Helper()
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "kubesim-realstack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	return dir
}

// buildOrFind returns name from PATH if it is there, else builds pkg
// (with this module's versions: e2e/go.mod lists the real server as a
// tool) into dir. A failed build skips the comparison with the reason.
func buildOrFind(b *testing.B, dir, name, pkg string) string {
	b.Helper()
	if name != "kubesim" { // kubesim is always this checkout's
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	out := filepath.Join(dir, name)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	// The real server's first build compiles much of Kubernetes: minutes
	// on a 2-core machine; later runs find the binary up to date.
	b.Logf("building %s into %s", pkg, dir)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Skipf("side-by-side comparison skipped: cannot build %s: %v\n%s", pkg, err, msg)
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

// tail is the end of a log file, for a failure message.
func tail(path string) string {
	data, _ := os.ReadFile(path)
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}
