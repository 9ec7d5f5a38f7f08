package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	configv1 "k8s.io/kube-scheduler/config/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

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
// one at a time (cycleMu). The "names" extender is nodeCacheCapable: it
// is sent and answers only node names (it passes every node and gives
// each 1), which shows what the whole nodes' JSON costs.
func BenchmarkScheduleWithExtender(b *testing.B) {
	for _, numNodes := range []int{100, 1000} {
		for _, extender := range []string{"none", "sample", "names"} {
			b.Run(fmt.Sprintf("nodes=%d/extender=%s", numNodes, extender), func(b *testing.B) {
				benchmarkLiveWithExtender(b, numNodes, 1000, extender)
			})
		}
	}
}

// namesExtender passes every node it is asked about, by name, and
// scores each 1.
func namesExtender(w http.ResponseWriter, r *http.Request) {
	var args extenderv1.ExtenderArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil || args.NodeNames == nil {
		http.Error(w, "want NodeNames", http.StatusBadRequest)
		return
	}
	if r.URL.Path == "/filter" {
		_ = json.NewEncoder(w).Encode(extenderv1.ExtenderFilterResult{NodeNames: args.NodeNames})
		return
	}
	list := make(extenderv1.HostPriorityList, len(*args.NodeNames))
	for i, n := range *args.NodeNames {
		list[i] = extenderv1.HostPriority{Host: n, Score: 1}
	}
	_ = json.NewEncoder(w).Encode(list)
}

func benchmarkLiveWithExtender(b *testing.B, numNodes, numPods int, extender string) {
	var srvURL string
	withExtender := extender != "none"
	if withExtender {
		var h http.Handler = http.HandlerFunc(namesExtender)
		if extender == "sample" {
			x, err := sample.New(sample.Config{PreferLabel: "tier=fast", RefuseAnnotation: "example.com/drain"})
			require.NoError(b, err)
			h = x.Handler()
		}
		srv := httptest.NewServer(h)
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
			exts, err = NewExtenders([]configv1.Extender{{URLPrefix: srvURL, FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 1,
				NodeCacheCapable: extender == "names"}},
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
		waitForBindings(b, s, numPods, start, 5*time.Minute)
		b.StopTimer()
		b.ReportMetric(float64(numPods)/time.Since(start).Seconds(), "pods/s")
		cancel()
		<-done
	}
}
