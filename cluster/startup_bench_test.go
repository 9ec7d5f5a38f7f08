package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/kubesim/kubesim/client"
)

// BenchmarkClusterNewToReady measures what a Go test pays for a fresh
// control plane of its own (the target: under 50 ms; envtest takes
// 7-15 s): New and Start of a cluster with 3 nodes in a new temporary data
// directory, until a client's first list answers.
func BenchmarkClusterNewToReady(b *testing.B) {
	for range b.N {
		start := time.Now()
		c, err := New(Config{NodeCount: 3, UnsafeNoFsync: true})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		if err := c.Start(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Client("bench").Namespaces().List(ctx, "", client.ListOptions{}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "ms-to-ready")
		cancel()
		c.Close()
	}
}
