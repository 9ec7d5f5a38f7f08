package scheduler

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
)

// bindingGate is an in-process transport that hands each POST to a
// pods/binding subresource to intercept first, which may fail it (a
// non-nil answer) or hold it; every other request goes straight through.
type bindingGate struct {
	next      http.RoundTripper
	intercept func(pod string) *http.Response
}

func (g *bindingGate) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/binding") {
		parts := strings.Split(r.URL.Path, "/")
		if resp := g.intercept(parts[len(parts)-2]); resp != nil {
			return resp, nil
		}
	}
	return g.next.RoundTrip(r)
}

// internalError is the answer of a server that failed a write.
func internalError(r *http.Request) *http.Response {
	body := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcdserver: request timed out","reason":"InternalError","code":500}`
	return &http.Response{
		StatusCode: http.StatusInternalServerError, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r,
	}
}

// gatedLive starts a live scheduler with one worker whose bindings pass
// through intercept, on nodes that each hold one pod.
func gatedLive(t *testing.T, intercept func(pod string) *http.Response, nodes ...string) (*env, *Scheduler) {
	e := &env{Env: apiservertest.New(t), t: t, ctx: context.Background()}
	for _, name := range nodes {
		n := e.createNode(name, "4", "8Gi")
		n.Status.Allocatable[corev1.ResourcePods] = resourceMust("1")
		_, err := e.Client.Nodes().UpdateStatus(e.ctx, n)
		require.NoError(t, err)
	}
	gate := &bindingGate{next: &client.InProcessTransport{Handler: e.Server.Handler()}, intercept: intercept}
	cl, err := client.New(client.Config{Server: "http://in-process", Transport: gate, UserAgent: "scheduler-test"})
	require.NoError(t, err)
	s, err := New(Config{Client: cl, Clock: e.Clock, Rand: rand.New(rand.NewPCG(1, 1)), Workers: 1})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.Run(ctx) }()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return e, s
}

// assumedOn is where the scheduler's cache counts pod, and whether only as
// assumed ("" when it does not count it).
func assumedOn(s *Scheduler, pod string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.podStates["default/"+pod]
	if st == nil {
		return "", false
	}
	return st.node, st.assumed
}

// TestLiveBindingDoesNotHoldTheScheduler: in live mode a binding runs in
// its own goroutine, so with one worker the next pod is scheduled while
// the first pod's binding is still waiting for the server, and the
// assumed first pod already counts on its node.
func TestLiveBindingDoesNotHoldTheScheduler(t *testing.T) {
	release := make(chan struct{})
	held := make(chan struct{})
	var once sync.Once
	e, s := gatedLive(t, func(pod string) *http.Response {
		if pod == "first" {
			once.Do(func() { close(held) })
			<-release
		}
		return nil
	}, "node-a", "node-b")
	var released sync.Once
	t.Cleanup(func() { released.Do(func() { close(release) }) }) // before the scheduler stops
	e.createPod(testPod("first", "", ""))
	<-held
	firstNode, assumed := assumedOn(s, "first")
	require.True(t, assumed, "the first pod is assumed on its node while its binding waits")

	e.createPod(testPod("second", "", ""))
	require.Eventually(t, func() bool { return e.pod("second").Spec.NodeName != "" }, 20*time.Second, 5*time.Millisecond,
		"the second pod is bound while the first pod's binding is held")
	require.NotEqual(t, firstNode, e.pod("second").Spec.NodeName, "the assumed first pod filled its node")
	require.Empty(t, e.pod("first").Spec.NodeName)

	released.Do(func() { close(release) })
	require.Eventually(t, func() bool { return e.pod("first").Spec.NodeName == firstNode }, 20*time.Second, 5*time.Millisecond)
}

// TestLiveBindingFailureForgetsAndRequeues: a binding the server fails
// drops the assumed pod from the node (else the node, which holds one pod,
// would stay full of a pod that is not there) and queues the pod again
// after BindRetry, as kube-scheduler's binding cycle does on error.
func TestLiveBindingFailureForgetsAndRequeues(t *testing.T) {
	failed := make(chan struct{})
	var mu sync.Mutex
	attempts := 0
	e, s := gatedLive(t, func(pod string) *http.Response {
		mu.Lock()
		defer mu.Unlock()
		attempts++
		if attempts == 1 {
			close(failed)
			return internalError(nil)
		}
		return nil
	}, "node-a")
	e.createPod(testPod("p", "", ""))
	<-failed
	require.Eventually(t, func() bool { node, _ := assumedOn(s, "p"); return node == "" }, 20*time.Second, 5*time.Millisecond,
		"the failed binding's assumption is forgotten")
	require.Empty(t, e.pod("p").Spec.NodeName)

	// The retry waits for BindRetry on the scheduler's clock.
	require.Eventually(t, func() bool {
		e.Clock.Step(BindRetry)
		return e.pod("p").Spec.NodeName == "node-a"
	}, 20*time.Second, 10*time.Millisecond, "the pod is scheduled and bound again after the back-off")
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, 2, attempts)
}
