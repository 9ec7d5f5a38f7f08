package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
)

// startLive runs a scheduler in live mode (watches, parallel workers),
// with the extenders given, until the test ends.
func startLive(t testing.TB, e *apiservertest.Env, exts ...Extender) *Scheduler {
	s, err := New(Config{Client: e.Client, Clock: e.Clock, Rand: rand.New(rand.NewPCG(1, 1)), Extenders: exts})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.Run(ctx) }()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return s
}

// boundPods counts the pods with a node, per node.
func boundPods(t testing.TB, c *client.Client) (map[string]int, int) {
	l, err := c.Pods().List(context.Background(), "default", client.ListOptions{})
	require.NoError(t, err)
	per, n := map[string]int{}, 0
	for _, p := range l.Items {
		if p.Spec.NodeName != "" {
			per[p.Spec.NodeName]++
			n++
		}
	}
	return per, n
}

// TestLiveModeNeverOvercommits runs the scheduler with its watches and
// parallel workers: the assume cache must keep every node within its pod
// count even though bindings overlap and the informer lags.
func TestLiveModeNeverOvercommits(t *testing.T) {
	e := &env{Env: apiservertest.New(t), t: t, ctx: context.Background()}
	for i := 1; i <= 3; i++ {
		n := e.createNode(fmt.Sprintf("node-%d", i), "4", "8Gi")
		n.Status.Allocatable[corev1.ResourcePods] = resourceMust("40")
		_, err := e.Client.Nodes().UpdateStatus(e.ctx, n)
		require.NoError(t, err)
	}
	startLive(t, e.Env)
	const pods = 130 // 10 more than fit
	for i := range pods {
		e.createPod(testPod(fmt.Sprintf("p-%03d", i), "", "", ownedBy("rs")))
	}
	require.Eventually(t, func() bool {
		_, n := boundPods(t, e.Client)
		return n == 120
	}, 20*time.Second, 10*time.Millisecond)
	// Give a wrongly assumed binding the chance to show up.
	time.Sleep(100 * time.Millisecond)
	per, n := boundPods(t, e.Client)
	assert.Equal(t, 120, n)
	assert.Equal(t, map[string]int{"node-1": 40, "node-2": 40, "node-3": 40}, per)
}

// BenchmarkLiveBindThroughAPI measures the whole live path of one
// scheduler against an in-process API server: watch events in, a
// decision, a POST to pods/binding and a Scheduled event out, for 2,000
// pods on 1,000 nodes. It reports pods bound per second (setup off the
// clock).
func BenchmarkLiveBindThroughAPI(b *testing.B) {
	const numNodes, numPods = 1000, 2000
	for range b.N {
		b.StopTimer()
		e := &env{Env: apiservertest.New(b), t: b, ctx: context.Background()}
		for i := range numNodes {
			e.createNode(fmt.Sprintf("node-%04d", i), "4", "8Gi")
		}
		for i := range numPods {
			_, err := e.Client.Pods().Create(e.ctx, testPod(fmt.Sprintf("p-%05d", i), "100m", "128Mi", ownedBy(fmt.Sprintf("rs-%d", i%20))))
			require.NoError(b, err)
		}
		start := time.Now()
		b.StartTimer()
		s, err := New(Config{Client: e.Client, Clock: e.Clock, Rand: rand.New(rand.NewPCG(1, 1))})
		require.NoError(b, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); s.Run(ctx) }()
		waitForBindings(b, s, numPods, start, 2*time.Minute)
		b.StopTimer()
		b.ReportMetric(numPods/time.Since(start).Seconds(), "pods/s")
		cancel()
		<-done
	}
}

// waitForBindings waits until the scheduler's informer has seen numPods
// bindings come back, counting them in its cache rather than listing pods
// and loading the server; it fails b after limit from start.
func waitForBindings(b *testing.B, s *Scheduler, numPods int, start time.Time, limit time.Duration) {
	for {
		s.mu.Lock()
		n := 0
		for _, st := range s.podStates {
			if !st.assumed {
				n++
			}
		}
		s.mu.Unlock()
		if n == numPods {
			return
		}
		if time.Since(start) > limit {
			b.Fatalf("only %d of %d pods bound after %v", n, numPods, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
