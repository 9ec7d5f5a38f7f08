package kubelet

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/client"
)

// statusWrites counts the writes to pods' status that pass through it.
type statusWrites struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    int
}

func (s *statusWrites) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && strings.Contains(req.URL.Path, "/pods/") && strings.HasSuffix(req.URL.Path, "/status") {
		s.mu.Lock()
		s.n++
		s.mu.Unlock()
	}
	return s.next.RoundTrip(req)
}

func (s *statusWrites) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// A pod goes to Running in one status write per stage, not one per
// condition: ContainerCreating, then Running with its containers ready
// (no readiness probe, so the prober reports them ready as they run) in
// one update. With a delay before ready, readiness is a write of its own.
func TestOneStatusWritePerStage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stages Stages
		writes int
	}{
		{"zero delays", Stages{}, 2},
		{"ready one second after running", Stages{Ready: time.Second}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Config{Stages: tc.stages})
			counter := &statusWrites{next: &client.InProcessTransport{Handler: f.env.Server.Handler()}}
			cl, err := client.New(client.Config{Server: "http://in-process", Transport: counter, UserAgent: "kubelet"})
			require.NoError(t, err)
			f.k.c = cl
			f.createPod("web", func(p *corev1.Pod) {
				p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "sidecar", Image: "busybox", Command: []string{"sleep", "3600"}})
			})
			f.settle()
			f.until(f.clk.Now().Add(5 * time.Second))
			pod := f.pod("web")
			assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
			assert.Equal(t, corev1.ConditionTrue, podCondition(pod, corev1.PodReady).Status)
			assert.Equal(t, tc.writes, counter.count())
		})
	}
}

// requests counts the requests whose method and path match.
type requests struct {
	next   http.RoundTripper
	method string
	path   string
	mu     sync.Mutex
	n      int
}

func (r *requests) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == r.method && req.URL.Path == r.path {
		r.mu.Lock()
		r.n++
		r.mu.Unlock()
	}
	return r.next.RoundTrip(req)
}

func (r *requests) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// The heartbeat reads the node from the kubelet's memory, as the real
// kubelet reads it from its lister: renewing the Lease every 10 s costs
// one write and no read. A status write that finds the memory stale
// (someone else changed the node) reads the API and is made anyway.
func TestHeartbeatReadsNodeFromMemory(t *testing.T) {
	f := newFixture(t, Config{})
	gets := &requests{next: &client.InProcessTransport{Handler: f.env.Server.Handler()}, method: http.MethodGet, path: "/api/v1/nodes/node-1"}
	cl, err := client.New(client.Config{Server: "http://in-process", Transport: gets, UserAgent: "kubelet"})
	require.NoError(t, err)
	f.k.c = cl
	start := f.clk.Now()
	f.until(start.Add(time.Minute))
	assert.Zero(t, gets.count(), "six renewals, no read of the node")
	lease, err := f.env.Client.Leases().Get(f.ctx, corev1.NamespaceNodeLease, "node-1")
	require.NoError(t, err)
	assert.True(t, lease.Spec.RenewTime.Time.Equal(start.Add(time.Minute)), "renewed at %v", lease.Spec.RenewTime)

	// Someone labels the node: the kubelet's copy is stale now.
	node, err := f.env.Client.Nodes().Get(f.ctx, "", "node-1")
	require.NoError(t, err)
	node.Labels["team"] = "a"
	_, err = f.env.Client.Nodes().Update(f.ctx, node)
	require.NoError(t, err)
	// The five-minute report conflicts, reads the node, and is posted.
	f.until(start.Add(DefaultNodeStatusReportFrequency + 10*time.Second))
	assert.Equal(t, 1, gets.count(), "one read, after the conflict")
	node, err = f.env.Client.Nodes().Get(f.ctx, "", "node-1")
	require.NoError(t, err)
	ready := findNodeCondition(node.Status.Conditions, corev1.NodeReady)
	require.NotNil(t, ready)
	assert.False(t, ready.LastHeartbeatTime.Time.Before(start.Add(DefaultNodeStatusReportFrequency)), "reported at %v", ready.LastHeartbeatTime)
	assert.Equal(t, "a", node.Labels["team"])
}

// A kubelet started again reads its node from the API: the node
// controller marked it Unknown meanwhile, and the kubelet posts Ready.
func TestRestartedKubeletReadsItsNode(t *testing.T) {
	f := newFixture(t, Config{})
	f.k.Stop()
	node, err := f.env.Client.Nodes().Get(f.ctx, "", "node-1")
	require.NoError(t, err)
	for i := range node.Status.Conditions {
		node.Status.Conditions[i].Status = corev1.ConditionUnknown
	}
	_, err = f.env.Client.Nodes().UpdateStatus(f.ctx, node)
	require.NoError(t, err)
	f.k.Start()
	f.settle()
	node, err = f.env.Client.Nodes().Get(f.ctx, "", "node-1")
	require.NoError(t, err)
	assert.Equal(t, corev1.ConditionTrue, findNodeCondition(node.Status.Conditions, corev1.NodeReady).Status)
}

// Between reports the heartbeat posts no status (the conditions are
// checked, nothing is rendered), and the five-minute report renders the
// whole status again: the same as registration's but for the conditions'
// heartbeat times; their transition times stay.
func TestStatusReportRendersTheWholeStatus(t *testing.T) {
	f := newFixture(t, Config{})
	writes := &requests{next: &client.InProcessTransport{Handler: f.env.Server.Handler()}, method: http.MethodPut, path: "/api/v1/nodes/node-1/status"}
	cl, err := client.New(client.Config{Server: "http://in-process", Transport: writes, UserAgent: "kubelet"})
	require.NoError(t, err)
	f.k.c = cl
	registered, err := f.env.Client.Nodes().Get(f.ctx, "", "node-1")
	require.NoError(t, err)
	start := f.clk.Now()
	f.until(start.Add(DefaultNodeStatusReportFrequency - 10*time.Second))
	assert.Zero(t, writes.count(), "no status written between reports")
	f.until(start.Add(DefaultNodeStatusReportFrequency + 10*time.Second))
	assert.Equal(t, 1, writes.count(), "the report")
	reported, err := f.env.Client.Nodes().Get(f.ctx, "", "node-1")
	require.NoError(t, err)
	require.Len(t, reported.Status.Conditions, len(nodeConditions))
	want := registered.Status.DeepCopy()
	for i := range want.Conditions {
		got := reported.Status.Conditions[i]
		assert.False(t, got.LastHeartbeatTime.Time.Before(start.Add(DefaultNodeStatusReportFrequency)), "%s reported at %v", got.Type, got.LastHeartbeatTime)
		want.Conditions[i].LastHeartbeatTime = got.LastHeartbeatTime
	}
	assert.Equal(t, *want, reported.Status)
}
