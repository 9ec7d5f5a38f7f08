package apiserver_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/protobuf"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

// benchServer starts the real API server over HTTPS with a durable store.
func benchServer(b *testing.B, noFsync bool) (*httptest.Server, *http.Client) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(b.TempDir(), boltstore.FileName), UnsafeNoFsync: noFsync})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	srv, err := apiserver.New(apiserver.Config{Storage: st, Clock: clock.Real{}, Rand: rand.Reader, Resources: kinds.Builtin()})
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Bootstrap(context.Background()); err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.EnableHTTP2 = false
	ts.StartTLS()
	b.Cleanup(ts.Close)
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: 64}
	return ts, &http.Client{Transport: tr}
}

func podJSON(name string) []byte {
	return []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"labels":{"app":"bench","tier":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.25","ports":[{"containerPort":80}],"resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}`, name))
}

// podTemplate is podJSON's pod decoded once: the load generator shares
// the cores with the server, so it should not decode JSON per request to
// make a protobuf body (that made the protobuf case look slower).
var podTemplate = sync.OnceValue(func() *corev1.Pod {
	var pod corev1.Pod
	if err := json.Unmarshal(podJSON(""), &pod); err != nil {
		panic(err)
	}
	return &pod
})

// podProtobuf is podJSON's pod in Kubernetes' protobuf envelope, as
// kubectl and client-go send built-in kinds.
func podProtobuf(name string) []byte {
	pod := podTemplate().DeepCopy()
	pod.Name = name
	data, err := protobuf.Encode(pod)
	if err != nil {
		panic(err)
	}
	return data
}

func post(c *http.Client, url, contentType string, body []byte) (int, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", contentType)
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// BenchmarkCreateHTTPS8Clients measures durable pod creates/s over HTTPS
// from 8 keep-alive clients, with p50 and p99 latency, with JSON bodies
// and with protobuf bodies (and answers in the same form).
func BenchmarkCreateHTTPS8Clients(b *testing.B) {
	for _, enc := range []struct {
		name, contentType string
		body              func(string) []byte
	}{{"json", "application/json", podJSON}, {"protobuf", protobuf.ContentType, podProtobuf}} {
		b.Run(enc.name, func(b *testing.B) { benchCreates(b, enc.contentType, enc.body, nil) })
	}
}

// BenchmarkCreateWithWebhooks8Clients is BenchmarkCreateHTTPS8Clients'
// JSON case without webhooks and with one mutating and one validating
// webhook (a TLS server in this process) matching every pod create.
func BenchmarkCreateWithWebhooks8Clients(b *testing.B) {
	b.Run("none", func(b *testing.B) { benchCreates(b, "application/json", podJSON, nil) })
	b.Run("mutating+validating", func(b *testing.B) {
		benchCreates(b, "application/json", podJSON, func(base string, c *http.Client) {
			url, ca, _ := webhookServer(b)
			mutating, validating := webhookConfigs(url, ca, "pods")
			for _, cfg := range []struct{ resource, body string }{
				{"mutatingwebhookconfigurations", mutating}, {"validatingwebhookconfigurations", validating},
			} {
				code, err := post(c, base+"/apis/admissionregistration.k8s.io/v1/"+cfg.resource, "application/json", []byte(cfg.body))
				if err != nil || code != http.StatusCreated {
					b.Fatalf("creating %s: %d %v", cfg.resource, code, err)
				}
			}
		})
	})
}

func benchCreates(b *testing.B, contentType string, body func(string) []byte, setup func(base string, c *http.Client)) {
	ts, c := benchServer(b, false)
	if setup != nil {
		setup(ts.URL, c)
	}
	url := ts.URL + "/api/v1/namespaces/default/pods"
	var next atomic.Int64
	lat := make([][]time.Duration, 8)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				t0 := time.Now()
				code, err := post(c, url, contentType, body(fmt.Sprintf("p%d", i)))
				if err != nil || code != http.StatusCreated {
					b.Errorf("create: %d %v", code, err)
					return
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "creates/s")
	b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkList10000Pods measures one LIST of 10,000 pods over HTTPS.
func BenchmarkList10000Pods(b *testing.B) {
	ts, c := benchServer(b, true)
	url := ts.URL + "/api/v1/namespaces/default/pods"
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= 10000; i = next.Add(1) {
				if code, err := post(c, url, "application/json", podJSON(fmt.Sprintf("p%05d", i))); err != nil || code != 201 {
					b.Errorf("create: %d %v", code, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ResetTimer()
	for range b.N {
		resp, err := c.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if n < 10000*300 {
			b.Fatalf("short list: %d bytes", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/list")
}

// BenchmarkWatchDelivery measures the time from a create's response to the
// event reaching a watcher over HTTPS (p50, p99). The event is published
// before the response is sent, so it can arrive first: that counts as 0.
func BenchmarkWatchDelivery(b *testing.B) {
	ts, c := benchServer(b, false)
	url := ts.URL + "/api/v1/namespaces/default/pods"
	resp, err := c.Get(url + "?watch=true&resourceVersion=1")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	arrived := make(chan time.Time, 1024)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			arrived <- time.Now()
		}
	}()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		if code, err := post(c, url, "application/json", podJSON(fmt.Sprintf("w%d", i))); err != nil || code != 201 {
			b.Fatalf("create: %d %v", code, err)
		}
		done := time.Now()
		at := <-arrived
		lat = append(lat, max(0, at.Sub(done)))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkListPodsTable pages through every pod as `kubectl get pods -A`
// does: Table pages of 500 (Accept as=Table, limit=500, following
// continue) over HTTPS from a store filled with Running pods. One
// iteration is one whole list; ms/page is the server's time per page as
// the client sees it (the body is read, not decoded), ms-cpu/page the CPU
// the process used per page (server and the client's TLS reads): on the
// shared machine the CPU says more than the wall time.
func BenchmarkListPodsTable(b *testing.B) {
	parent := b
	for _, n := range []int{10000, 100000} {
		// Filled once per size, however many rounds the benchmark runs.
		var url string
		var cached float64
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			if url == "" {
				url, cached = listPodsServer(b, parent, n)
			}
			c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
			b.ResetTimer()
			cpu := processCPU()
			for range b.N {
				listTablePages(b, c, url)
			}
			pages := float64(b.N) * float64((n+499)/500)
			b.ReportMetric(float64((processCPU()-cpu).Microseconds())/1000/pages, "ms-cpu/page")
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/pages, "ms/page")
			b.ReportMetric(cached, "MiB-cached")
		})
	}
}

// listPodsServer starts an API server over a store of n Running pods,
// living as long as parent, lists them once and returns its URL and the
// live heap that first list added (MiB): the first list warms what a
// running server has warm, its watch cache's decoded pods.
func listPodsServer(b, parent *testing.B, n int) (string, float64) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(parent.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	if err != nil {
		b.Fatal(err)
	}
	parent.Cleanup(func() { st.Close() })
	if err := apiservertest.FillPods(context.Background(), st, n, n/20, 20, 8); err != nil {
		b.Fatal(err)
	}
	srv, err := apiserver.New(apiserver.Config{Storage: st, Clock: clock.Real{}, Rand: rand.Reader, Resources: kinds.Builtin()})
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Bootstrap(context.Background()); err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.EnableHTTP2 = false
	ts.StartTLS()
	parent.Cleanup(ts.Close)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	before := liveHeap()
	if got := listTablePages(b, c, ts.URL); got != n {
		b.Fatalf("listed %d pods, want %d", got, n)
	}
	return ts.URL, float64(liveHeap()-before) / (1 << 20)
}

// listTablePages lists every pod as kubectl get pods -A asks for them and
// returns how many rows came back.
func listTablePages(b *testing.B, c *http.Client, base string) int {
	rows, cont := 0, ""
	for {
		url := base + "/api/v1/pods?limit=500"
		if cont != "" {
			url += "&continue=" + cont
		}
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json")
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("%d %v: %.300s", resp.StatusCode, err, body)
		}
		// Only the counts and the token are read, as cheaply as possible.
		rows += bytes.Count(body, []byte(`{"cells":`))
		i := bytes.Index(body, []byte(`"continue":"`))
		if i < 0 {
			return rows
		}
		rest := body[i+len(`"continue":"`):]
		cont = string(rest[:bytes.IndexByte(rest, '"')])
	}
}

// processCPU is the CPU time this process has used (user and system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// liveHeap is the heap in use after a collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
