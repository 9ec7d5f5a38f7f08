package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/scheduler/extender/sample"
)

// BenchmarkScheduleWithExtender measures the live scheduler (watches,
// workers, bindings through an in-process API server) placing 1,000
// pending pods on 100 and on 1,000 nodes, without an extender and with
// the sample extender's filter and prioritize over loopback HTTP. It
// reports pods bound per second. With an extender, each cycle makes two
// HTTP calls carrying every feasible node as JSON (all 100, or 420 of
// 1,000 with the adaptive percentageOfNodesToScore) and the cycles run
// one at a time (cycleMu).
func BenchmarkScheduleWithExtender(b *testing.B) {
	for _, numNodes := range []int{100, 1000} {
		for _, withExtender := range []bool{false, true} {
			name := fmt.Sprintf("nodes=%d/extender=none", numNodes)
			if withExtender {
				name = fmt.Sprintf("nodes=%d/extender=sample", numNodes)
			}
			b.Run(name, func(b *testing.B) { benchmarkLiveWithExtender(b, numNodes, 1000, withExtender) })
		}
	}
}

func benchmarkLiveWithExtender(b *testing.B, numNodes, numPods int, withExtender bool) {
	var srvURL string
	if withExtender {
		x, err := sample.New(sample.Config{PreferLabel: "tier=fast", RefuseAnnotation: "example.com/drain"})
		require.NoError(b, err)
		srv := httptest.NewServer(x.Handler())
		b.Cleanup(srv.Close)
		srvURL = srv.URL
	}
	for range b.N {
		b.StopTimer()
		e := &env{Env: apiservertest.New(b), t: b, ctx: context.Background()}
		for i := range numNodes {
			e.createNode(fmt.Sprintf("node-%04d", i), "64", "256Gi")
		}
		for i := range numPods {
			e.createPod(testPod(fmt.Sprintf("p-%05d", i), "100m", "128Mi", ownedBy(fmt.Sprintf("rs-%d", i%20))))
		}
		var exts []Extender
		if withExtender {
			var err error
			exts, err = NewExtenders([]configv1.Extender{{URLPrefix: srvURL, FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 1}},
				ExtenderOptions{Clock: e.Clock})
			require.NoError(b, err)
		}
		start := time.Now()
		b.StartTimer()
		s, err := New(Config{Client: e.Client, Clock: e.Clock, Rand: rand.New(rand.NewPCG(1, 1)), Extenders: exts})
		require.NoError(b, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); s.Run(ctx) }()
		for {
			// The bindings the scheduler's informer has seen come back.
			s.mu.Lock()
			n := 0
			for _, st := range s.podStates {
				if !st.assumed {
					n++
				}
			}
			s.mu.Unlock()
			if n == numPods {
				break
			}
			if time.Since(start) > 5*time.Minute {
				b.Fatalf("only %d of %d pods bound after 5 minutes", n, numPods)
			}
			time.Sleep(5 * time.Millisecond)
		}
		b.StopTimer()
		b.ReportMetric(float64(numPods)/time.Since(start).Seconds(), "pods/s")
		cancel()
		<-done
	}
}
