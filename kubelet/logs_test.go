package kubelet

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// syncBuffer is a buffer a follower writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A follower sees each line when the step clock reaches it, and its
// stream ends when the container exits.
func TestFollowEndsWhenTheContainerExits(t *testing.T) {
	f := newFixture(t, Config{})
	f.createPod("talk", func(p *corev1.Pod) {
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		p.Spec.Containers[0] = corev1.Container{Name: "c", Image: "busybox",
			Args: []string{"sh", "-c", "echo a; sleep 5; echo b; sleep 5; exit 0"}}
	})
	f.settle()
	t0 := f.clk.Now()
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- f.k.ContainerLogs(context.Background(), "default", "talk", "c", LogOptions{Follow: true}, &out)
	}()
	require.Eventually(t, func() bool { return out.String() == "a\n" }, 10*time.Second, 5*time.Millisecond)
	f.clk.SetTime(t0.Add(5 * time.Second)) // no transition: the follower polls the clock
	require.Eventually(t, func() bool { return out.String() == "a\nb\n" }, 10*time.Second, 5*time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("the follower ended while the container runs: %v", err)
	default:
	}
	f.until(t0.Add(10 * time.Second))
	require.Equal(t, corev1.PodSucceeded, f.pod("talk").Status.Phase)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the follower did not end when the container exited")
	}
	assert.Equal(t, "a\nb\n", out.String())
}

func TestContainerLogsRefusals(t *testing.T) {
	f := newFixture(t, Config{})
	var out bytes.Buffer
	err := f.k.ContainerLogs(context.Background(), "default", "nope", "c", LogOptions{}, &out)
	var le *LogError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, http.StatusNotFound, le.Code)
	assert.EqualError(t, err, `pod "nope" does not exist`)

	f.createPod("p", nil)
	f.settle()
	err = f.k.ContainerLogs(context.Background(), "default", "p", "other", LogOptions{}, &out)
	assert.EqualError(t, err, `container "other" not found in pod "p"`)
	err = f.k.ContainerLogs(context.Background(), "default", "p", "nginx", LogOptions{Previous: true}, &out)
	assert.EqualError(t, err, `previous terminated container "nginx" in pod "p" not found`)
	require.NoError(t, f.k.ContainerLogs(context.Background(), "default", "p", "nginx", LogOptions{}, &out))
	assert.Contains(t, out.String(), "/docker-entrypoint.sh: Configuration complete; ready for start up\n", "nginx's start")
	assert.Contains(t, out.String(), "[notice] 1#1: start worker processes\n")
}
