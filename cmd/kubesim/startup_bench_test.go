package main

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"regexp"
	"testing"
	"time"
)

// BenchmarkServeToReady measures `kubesim serve` from its start to the
// first request answered over HTTPS (/readyz), on a new data directory
// (the CA, certificates and store are created) and on a warm one (the
// targets: under 300 ms and under 100 ms).
func BenchmarkServeToReady(b *testing.B) {
	for _, warm := range []bool{false, true} {
		name := "new-data-dir"
		if warm {
			name = "warm-data-dir"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			if warm {
				serveOnce(b, dir) // creates everything
			}
			for range b.N {
				if !warm {
					dir = b.TempDir()
				}
				b.ReportMetric(float64(serveOnce(b, dir).Microseconds())/1000, "ms-to-ready")
			}
		})
	}
}

// serveOnce runs `kubesim serve` in process until /readyz answers and
// returns how long that took, then stops it.
func serveOnce(b *testing.B, dir string) time.Duration {
	start := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		run(ctx, []string{"serve", "--data-dir", dir, "--addr", "127.0.0.1:0", "--nodes", "3", "--unsafe-no-fsync"}, pw, io.Discard)
		pw.Close()
		close(done)
	}()
	re := regexp.MustCompile(`listening on (https://\S+)`)
	buf := make([]byte, 4096)
	var out []byte
	var url string
	for url == "" {
		n, err := pr.Read(buf)
		if err != nil {
			b.Fatalf("serve ended before listening: %s", out)
		}
		out = append(out, buf[:n]...)
		if m := re.FindSubmatch(out); m != nil {
			url = string(m[1])
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // timing only
	for {
		resp, err := c.Get(url + "/readyz")
		if err == nil {
			resp.Body.Close()
			break
		}
	}
	d := time.Since(start)
	cancel()
	<-done
	return d
}
