package kubelet

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
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
			f.createPod("web", func(p *api.Pod) {
				p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "sidecar", Image: "busybox", Command: []string{"sleep", "3600"}})
			})
			f.settle()
			f.until(f.clk.Now().Add(5 * time.Second))
			pod := f.pod("web")
			assert.Equal(t, api.PodRunning, pod.Status.Phase)
			assert.Equal(t, api.ConditionTrue, podCondition(pod, api.PodReady).Status)
			assert.Equal(t, tc.writes, counter.count())
		})
	}
}
