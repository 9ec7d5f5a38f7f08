package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/store/boltstore"
)

// BenchmarkKubectlGetPodsAll times the real `kubectl get pods -A` (Table
// pages of 500, its default --chunk-size, a fresh KUBECACHEDIR each run)
// against `kubesim serve --api-server-only` on a data dir holding 10,000
// or 100,000 Running pods (the target: under 2 s at 100,000). The
// pods are written into the store before the server starts
// (apiservertest.FillPods). The first run, which fills the watch cache's
// decoded objects, is reported apart (s-first); s/op is a warm run, of
// which s-kubectl-cpu is kubectl's own CPU (decoding and printing) and
// s-server-cpu the server's (this process's): on the shared machine the
// CPU times say more than the wall time.
func BenchmarkKubectlGetPodsAll(b *testing.B) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		b.Fatalf("kubectl is required: %v", err)
	}
	parent := b
	for _, n := range []int{10000, 100000} {
		// Filled and served once per size, however many rounds run.
		var dir string
		var first time.Duration
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			var cpu, server time.Duration // kubectl's CPU, this process's (the server's)
			get := func() time.Duration {
				cmd := exec.Command("kubectl", "get", "pods", "-A")
				cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(dir, "kubeconfig"), "KUBECACHEDIR="+b.TempDir(), "HOME="+b.TempDir())
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				start, self := time.Now(), processCPU()
				if err := cmd.Run(); err != nil {
					b.Fatalf("kubectl get pods -A: %v: %s", err, errb.String())
				}
				d := time.Since(start)
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				server += processCPU() - self
				if lines := bytes.Count(out.Bytes(), []byte("\n")); lines != n+1 {
					b.Fatalf("kubectl printed %d lines, want %d pods and the header", lines, n)
				}
				return d
			}
			if dir == "" {
				dir = parent.TempDir()
				st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(dir, boltstore.FileName), UnsafeNoFsync: true})
				if err != nil {
					b.Fatal(err)
				}
				err = apiservertest.FillPods(context.Background(), st, n, n/20, 20, 8)
				st.Close()
				if err != nil {
					b.Fatal(err)
				}
				parent.Cleanup(serveDataDir(b, dir, "--api-server-only", "--unsafe-no-fsync"))
				first = get()
			}
			cpu, server = 0, 0
			b.ResetTimer()
			for range b.N {
				get()
			}
			b.ReportMetric(first.Seconds(), "s-first")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "s-kubectl-cpu")
			b.ReportMetric(server.Seconds()/float64(b.N), "s-server-cpu")
		})
	}
}

// serveDataDir runs `kubesim serve` in process on dir until it listens,
// and returns what stops it.
func serveDataDir(b *testing.B, dir string, extra ...string) func() {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		run(ctx, append([]string{"serve", "--data-dir", dir, "--addr", "127.0.0.1:0"}, extra...), pw, io.Discard)
		pw.Close()
		close(done)
	}()
	re := regexp.MustCompile(`listening on (https://\S+)`)
	buf := make([]byte, 4096)
	var out []byte
	for re.Find(out) == nil {
		n, err := pr.Read(buf)
		if err != nil {
			b.Fatalf("serve ended before listening: %s", out)
		}
		out = append(out, buf[:n]...)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return func() {
		cancel()
		<-done
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
