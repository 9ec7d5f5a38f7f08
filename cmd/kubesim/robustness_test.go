package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kubesim/kubesim/pki"
)

// BenchmarkRobustness is the overload and kill -9 run of
// docs/reliability.md, in the style of etcd's robustness tests: `kubesim
// serve` in a child process, capped at 8 mutating requests in flight,
// takes ConfigMap creates from 32 HTTPS writers (4x its capacity) for a
// few seconds; the writers count what was acknowledged (201) and what was
// shed (429). Then the server is killed with SIGKILL mid-load, restarted on
// the same data directory, and every acknowledged object is looked up. It
// prints the figures; it asserts only that nothing acknowledged was lost.
//
//	go test -run '^$' -bench Robustness -benchtime 1x ./cmd/kubesim/
func BenchmarkRobustness(b *testing.B) {
	const writers, inflight = 32, 8
	load := 5 * time.Second
	dir := b.TempDir()
	args := []string{"serve", "--data-dir", dir, "--addr", "127.0.0.1:0", "--nodes", "0", "--api-server-only",
		"--max-mutating-requests-inflight", strconv.Itoa(inflight)}
	cmd, url := startServeChild(b, args)
	client := httpsClient(b, filepath.Join(dir, "kubeconfig"))

	var acked sync.Map
	var nAcked, nShed, nOther atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("w%d-%d", w, i)
				body := `{"metadata":{"name":"` + name + `"},"data":{"k":"` + strings.Repeat("v", 512) + `"}}`
				resp, err := client.Post(url+"/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(body))
				if err != nil {
					nOther.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusCreated:
					acked.Store(name, true)
					nAcked.Add(1)
				case http.StatusTooManyRequests:
					nShed.Add(1)
				default:
					nOther.Add(1)
				}
			}
		}()
	}
	time.Sleep(load) // the load's duration, not a synchronisation
	peak := vmHWM(cmd.Process.Pid)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	close(stop)
	wg.Wait()
	b.Logf("overload: %d writers against %d in flight for %s: %d acknowledged (%.0f/s), %d shed with 429, %d other errors (connections cut by the kill), child peak RSS %s",
		writers, inflight, load, nAcked.Load(), float64(nAcked.Load())/load.Seconds(), nShed.Load(), nOther.Load(), peak)

	_, url = startServeChild(b, args[:len(args)-2])
	lost := 0
	acked.Range(func(k, _ any) bool {
		resp, err := client.Get(url + "/api/v1/namespaces/default/configmaps/" + k.(string))
		if err != nil || resp.StatusCode != http.StatusOK {
			lost++
		}
		if resp != nil {
			_ = resp.Body.Close()
		}
		return true
	})
	b.Logf("kill -9 under load: %d acknowledged writes checked after restart, %d lost", nAcked.Load(), lost)
	if lost > 0 {
		b.Fatalf("%d acknowledged writes lost", lost)
	}
}

// startServeChild runs `kubesim serve` as a child process (this test binary
// as kubesim) and returns it with its URL; the benchmark's end kills it.
func startServeChild(b *testing.B, args []string) (*exec.Cmd, string) {
	b.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runAsKubesimEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	re := regexp.MustCompile(`listening on (https://\S+)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case url := <-found:
		return cmd, url
	case <-time.After(60 * time.Second):
		b.Fatal("kubesim serve did not start")
	}
	return nil, ""
}

func httpsClient(b *testing.B, kubeconfig string) *http.Client {
	b.Helper()
	kc, err := pki.LoadKubeconfig(kubeconfig)
	if err != nil {
		b.Fatal(err)
	}
	tc, err := kc.TLSConfig()
	if err != nil {
		b.Fatal(err)
	}
	return &http.Client{Timeout: 30 * time.Second, Transport: &bearer{token: kc.Token,
		rt: &http.Transport{TLSClientConfig: tc, MaxIdleConnsPerHost: 64, ForceAttemptHTTP2: false, TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}}}
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

// vmHWM is a process's peak resident set, from /proc.
func vmHWM(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
