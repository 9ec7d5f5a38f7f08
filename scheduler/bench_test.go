package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchmarkSchedule measures the pure scheduling path (filter, score, pick
// over a prepared node cache, the adaptive percentageOfNodesToScore) and reports decisions per second. Each
// decision's pod is then counted on its node, as the assume cache would,
// so the cluster fills up as it would in a real one: 10,000 pods of 100
// ReplicaSets, 100m and 128Mi each; the cache is rebuilt (off the clock)
// every 10,000 pods.
func benchmarkSchedule(b *testing.B, numNodes int) {
	const podsPerRound = 10000
	pods := make([]*PodInfo, podsPerRound)
	for i := range pods {
		pods[i] = NewPodInfo(testPod(fmt.Sprintf("p-%d", i), "100m", "128Mi", ownedBy(fmt.Sprintf("rs-%d", i%100))))
	}
	var nodes []*NodeInfo
	byName := map[string]*NodeInfo{}
	fresh := func() {
		nodes = nodes[:0]
		for i := range numNodes {
			ni := NewNodeInfo(testNode(fmt.Sprintf("node-%05d", i)))
			nodes = append(nodes, ni)
			byName[ni.Node.Name] = ni
		}
	}
	fresh()
	fw := DefaultFramework()
	r := rand.New(rand.NewPCG(1, 1))
	var d Decision
	next := 0 // the scheduler's nextStartNodeIndex
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := i % podsPerRound
		if j == 0 && i > 0 {
			b.StopTimer()
			fresh()
			b.StartTimer()
		}
		// As the scheduler tells it: no node has pods with affinity terms.
		pods[j].SetNodesWithAffinity(nil, nil)
		fw.Schedule(context.Background(), pods[j], nodes, next, r, &d)
		next = (next + len(d.Nodes)) % len(nodes)
		if d.Chosen == "" {
			b.Fatalf("pod %d fits nowhere: %v", j, d.FitError())
		}
		byName[d.Chosen].AddPod(pods[j])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pods/s")
}

// BenchmarkSchedule1000Nodes is the scheduler's throughput alone at 1,000
// nodes.
func BenchmarkSchedule1000Nodes(b *testing.B) { benchmarkSchedule(b, 1000) }

// BenchmarkSchedule5000Nodes is the scheduler's throughput alone at 5,000
// nodes (the upstream scheduler_perf floor there is 270 pods/s).
func BenchmarkSchedule5000Nodes(b *testing.B) { benchmarkSchedule(b, 5000) }
