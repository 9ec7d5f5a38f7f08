package cluster

import (
	"context"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
)

// cpuTime is the process's CPU time so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchHeartbeats runs a live cluster of nodes fake nodes and no pods,
// waits until every node has registered and renewed its Lease once,
// then measures, over windows consecutive windows of window each, the CPU
// the whole process spends per wall-clock second while the nodes only
// heartbeat: the kubelets' renewals every 10 s and status checks, the API
// server writing them, and the node lifecycle controller watching them.
//
// cpu-s/s is the mean over all the windows: the garbage collector's cost
// comes in whole cycles (a cycle marks the whole live heap of 5,000
// nodes' objects), a few a minute, so one 30-second window holds zero to
// two of them and its figure swung between 0.07 and 0.12 on a quiet
// machine. The mean over several windows holds a GC cost proportional to
// the garbage made; the windows' median, smallest and largest figures
// (cpu-s/s-median, -min, -max) and the GC cycles per window say how much
// one window alone would have swung.
func benchHeartbeats(b *testing.B, nodes, windows int, window time.Duration) {
	for range b.N {
		c, err := New(Config{NodeCount: nodes, UnsafeNoFsync: true})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		if err := c.Start(ctx); err != nil {
			b.Fatal(err)
		}
		cl := c.Client("bench")
		registered := time.Now()
		waitFor(b, 10*time.Minute, func() bool {
			l, err := cl.Leases().List(ctx, corev1.NamespaceNodeLease, client.ListOptions{})
			return err == nil && len(l.Items) == nodes
		})
		b.Logf("%d nodes registered in %s", nodes, time.Since(registered).Round(time.Millisecond))
		// Past the start: registration leaves a tail of writes (each node's
		// five events, written behind the kubelets' backs); wait until a
		// renewal interval holds little more than one renewal per node.
		for settled := false; !settled; {
			rv := revision(ctx, b, cl)
			time.Sleep(10 * time.Second)
			settled = revision(ctx, b, cl)-rv <= int64(nodes)*11/10
		}
		// The store's revision counts every write of the window (leases,
		// node statuses, events) without a watcher of our own adding work.
		rv0 := revision(ctx, b, cl)
		stopProfile := windowProfile(b)
		stopAllocs := windowAllocs(b)
		start, cpuStart, gcStart := time.Now(), cpuTime(b), gcCycles()
		perWindow := make([]float64, windows)
		for i := range perWindow {
			cpu0, wall0, gc0 := cpuTime(b), time.Now(), gcCycles()
			time.Sleep(window)
			perWindow[i] = (cpuTime(b) - cpu0).Seconds() / time.Since(wall0).Seconds()
			b.Logf("window %d: %.4f CPU s/s, %d GC cycles", i+1, perWindow[i], gcCycles()-gc0)
		}
		cpu, wall, gcs := cpuTime(b)-cpuStart, time.Since(start), gcCycles()-gcStart
		stopProfile()
		stopAllocs()
		writes := revision(ctx, b, cl) - rv0
		sort.Float64s(perWindow)
		b.ReportMetric(cpu.Seconds()/wall.Seconds(), "cpu-s/s")
		b.ReportMetric(median(perWindow), "cpu-s/s-median")
		b.ReportMetric(perWindow[0], "cpu-s/s-min")
		b.ReportMetric(perWindow[len(perWindow)-1], "cpu-s/s-max")
		b.ReportMetric(float64(gcs)/float64(windows), "gc-cycles/window")
		b.ReportMetric(float64(writes)/wall.Seconds(), "writes/s")
		cancel()
		c.Close()
	}
}

// median is the middle of sorted values (the mean of the two middle ones
// when there is an even number).
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// gcCycles is the number of garbage collections the process has finished.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// windowProfile starts a CPU profile of the measured window alone (not
// registration, which -cpuprofile would include) when
// KUBESIM_HEARTBEAT_CPUPROFILE names a file, and returns what stops it.
func windowProfile(b *testing.B) func() {
	path := os.Getenv("KUBESIM_HEARTBEAT_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// windowAllocs writes the allocation profile at the start and at the end
// of the measured window when KUBESIM_HEARTBEAT_MEMPROFILE names a file
// (file.start and file): what the window allocated is the difference,
// `go tool pprof -sample_index=alloc_space -base file.start test.bin file`.
func windowAllocs(b *testing.B) func() {
	path := os.Getenv("KUBESIM_HEARTBEAT_MEMPROFILE")
	if path == "" {
		return func() {}
	}
	write := func(name string) {
		runtime.GC() // the profile counts allocations as of the last GC
		f, err := os.Create(name)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	write(path + ".start")
	return func() { write(path) }
}

// revision is the store's current revision, as a list answers it.
func revision(ctx context.Context, b *testing.B, cl *client.Client) int64 {
	l, err := cl.Namespaces().List(ctx, "", client.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	rv, err := strconv.ParseInt(l.ResourceVersion, 10, 64)
	if err != nil {
		b.Fatal(err)
	}
	return rv
}

// BenchmarkNodeHeartbeats5000: `go test -run '^$' -bench NodeHeartbeats
// -benchtime 1x ./cluster/`.
// Four windows of 30 s: two minutes, a dozen renewals per node.
func BenchmarkNodeHeartbeats5000(b *testing.B) { benchHeartbeats(b, 5000, 4, 30*time.Second) }

func BenchmarkNodeHeartbeats500(b *testing.B) { benchHeartbeats(b, 500, 4, 30*time.Second) }

// BenchmarkLeaseRenewal is one node's Lease renewal through the whole
// in-process API path, as its kubelet makes it every 10 s: the kubelet's
// client, identity and the live cluster's admission chain, audit and
// watch cache (the node lifecycle controller watches Leases). Its B/op and
// allocs/op are those of the whole process over the loop, the watch
// cache's decoding and fan-out included, so they move little with the
// load on the machine, where cpu-s/s of the 5,000-node window does.
// `go test -run '^$' -bench LeaseRenewal -benchmem ./cluster/`; the
// NodeRBAC variant authorizes every request as `kubesim serve` does.
func BenchmarkLeaseRenewal(b *testing.B) { benchLeaseRenewal(b, "") }

func BenchmarkLeaseRenewalNodeRBAC(b *testing.B) { benchLeaseRenewal(b, "Node,RBAC") }

func benchLeaseRenewal(b *testing.B, authorization string) {
	c, err := New(Config{NodeCount: 1, UnsafeNoFsync: true, AuthorizationMode: authorization})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer c.Close()
	defer cancel()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	cl, _ := c.client("kubelet/node-1", c.identity("kubelet/node-1", "kubelet/node-1"))
	var lease *coordinationv1.Lease
	waitFor(b, time.Minute, func() bool {
		lease, err = cl.Leases().Get(ctx, corev1.NamespaceNodeLease, "node-1")
		return err == nil
	})
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		lease = lease.DeepCopy()
		renew := metav1.NewMicroTime(time.Now())
		lease.Spec.RenewTime = &renew
		// The kubelet renews too (every 10 s): a conflict reads it again.
		if lease, err = cl.Leases().Update(ctx, lease); api.IsConflict(err) {
			lease, err = cl.Leases().Get(ctx, corev1.NamespaceNodeLease, "node-1")
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
