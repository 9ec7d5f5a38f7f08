package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var (
	stormScale = flag.Float64("liststorm-scale", 1, "BenchmarkListStorm: the share of the full storms to run (objects and clients both)")
	stormFor   = flag.Duration("liststorm-duration", 15*time.Second, "BenchmarkListStorm: how long the clients list")
	stormCap   = flag.Int("liststorm-rss-cap-mib", 6144, "BenchmarkListStorm: the child's resident memory at which the storm is stopped (the server is killed), so that a runaway does not take the machine")
)

// BenchmarkListStorm is the list storm of docs/reliability.md ("Lists
// under a storm"): `kubesim serve` with three nodes in a child process, a
// namespace of ConfigMaps of 10 KB each, then many HTTPS clients listing
// it at once for a while (each waits the Retry-After of a 429 before it
// lists again). It prints the child's resident memory before the storm
// and at its peak (VmHWM), the answers (200, 429, other), and the
// heartbeats' lateness: the longest gap between two renewals of a node's
// Lease (watched during the storm) beyond the kubelet's renew interval
// (10 s). The two storms: 150 clients on 1,700 objects (a 17 MB list) and
// 600 clients on 900 (9 MB).
//
//	go test -run '^$' -bench ListStorm -benchtime 1x -timeout 30m ./cmd/kubesim/ [-liststorm-scale 0.2]
func BenchmarkListStorm(b *testing.B) {
	for _, storm := range []struct{ objects, clients int }{{1700, 150}, {900, 600}} {
		objects := max(int(float64(storm.objects)**stormScale), 1)
		clients := max(int(float64(storm.clients)**stormScale), 1)
		b.Run(fmt.Sprintf("objects=%d/clients=%d", objects, clients), func(b *testing.B) {
			for range b.N {
				runListStorm(b, objects, clients)
			}
		})
	}
}

func runListStorm(b *testing.B, objects, clients int) {
	dir := b.TempDir()
	cmd, url := startServeChild(b, []string{"serve", "--data-dir", dir, "--addr", "127.0.0.1:0", "--nodes", "3",
		"--unsafe-no-fsync", "--ui=false"})
	client := httpsClient(b, filepath.Join(dir, "kubeconfig"))
	client.Timeout = 0 // the watch runs for the whole storm; lists end with it

	// The namespace: objects ConfigMaps of 10 KB, from 8 writers.
	post := func(path, body string) {
		resp, err := client.Post(url+path, "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			b.Fatalf("POST %s: %s", path, resp.Status)
		}
	}
	post("/api/v1/namespaces", `{"metadata":{"name":"storm"}}`)
	value := strings.Repeat("x", 10_000)
	var fill sync.WaitGroup
	for w := range 8 {
		fill.Add(1)
		go func() {
			defer fill.Done()
			for i := w; i < objects; i += 8 {
				post("/api/v1/namespaces/storm/configmaps", fmt.Sprintf(`{"metadata":{"name":"cm-%05d"},"data":{"v":%q}}`, i, value))
			}
		}()
	}
	fill.Wait()
	listBytes := 0
	if resp, err := client.Get(url + "/api/v1/namespaces/storm/configmaps"); err == nil {
		n, _ := io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		listBytes = int(n)
	}
	before := procStatus(cmd.Process.Pid, "VmRSS:")

	// The heartbeats: every renewal of a node's Lease, as it is watched.
	stop := make(chan struct{})
	var lateMu sync.Mutex
	lastRenew := map[string]time.Time{}
	var worstGap time.Duration
	watchResp, err := client.Get(url + "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?watch=1")
	if err != nil {
		b.Fatal(err)
	}
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		sc := bufio.NewScanner(watchResp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev struct {
				Object struct {
					Metadata struct{ Name string }
					Spec     struct{ RenewTime time.Time }
				}
			}
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			name, renew := ev.Object.Metadata.Name, ev.Object.Spec.RenewTime
			lateMu.Lock()
			if prev, ok := lastRenew[name]; ok && renew.After(prev) {
				worstGap = max(worstGap, renew.Sub(prev))
			}
			lastRenew[name] = renew
			lateMu.Unlock()
		}
	}()

	// The storm.
	var ok, shed, other atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(*stormFor)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := client.Get(url + "/api/v1/namespaces/storm/configmaps")
				if err != nil {
					other.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusTooManyRequests:
					shed.Add(1)
					wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
					time.Sleep(time.Duration(max(wait, 1)) * time.Second) // as client-go honours Retry-After
				default:
					other.Add(1)
				}
			}
		}()
	}
	// Watch the child's memory; past the cap, end the run.
	capped := false
	for time.Now().Before(deadline) {
		if procStatusKiB(cmd.Process.Pid, "VmRSS:") > int64(*stormCap)<<10 {
			capped = true
			break
		}
		time.Sleep(200 * time.Millisecond) // a sampling period, not a synchronisation
	}
	peak := procStatus(cmd.Process.Pid, "VmHWM:")
	peakKiB := procStatusKiB(cmd.Process.Pid, "VmHWM:")
	if capped {
		_ = cmd.Process.Signal(syscall.SIGKILL)
	}
	close(stop)
	wg.Wait()
	_ = watchResp.Body.Close()
	<-watchDone
	lateMu.Lock()
	late := max(worstGap-10*time.Second, 0)
	lateMu.Unlock()
	note := ""
	if capped {
		note = fmt.Sprintf(" (stopped: resident memory passed %d MiB)", *stormCap)
	}
	b.Logf("list storm: %d ConfigMaps of 10 KB (a %.1f MB list), %d clients for %s: RSS %s before, peak %s%s; %d lists served, %d answered 429, %d other; heartbeats: longest Lease renewal gap %s (late by %s)",
		objects, float64(listBytes)/1e6, clients, *stormFor, before, peak, note, ok.Load(), shed.Load(), other.Load(),
		worstGap.Round(100*time.Millisecond), late.Round(100*time.Millisecond))
	b.ReportMetric(float64(peakKiB)/1024, "peak-MiB")
	b.ReportMetric(late.Seconds(), "heartbeat-late-s")
}

// procStatus is a line of a process's /proc status ("VmHWM:", "VmRSS:").
func procStatus(pid int, field string) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// procStatusKiB is procStatus in KiB (0 when unknown).
func procStatusKiB(pid int, field string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSuffix(procStatus(pid, field), " kB"), 10, 64)
	return n
}
