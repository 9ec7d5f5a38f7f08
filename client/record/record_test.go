package record_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/record"
	"github.com/kubesim/kubesim/runmode"
)

var podGVK = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

func events(t *testing.T, env *apiservertest.Env) []*corev1.Event {
	t.Helper()
	l, err := env.Client.Events().List(context.Background(), "default", client.ListOptions{})
	require.NoError(t, err)
	return l.Items
}

// The mode, not the kind of clock, decides when an event is written: both
// recorders here run on the same fake clock.
func TestModeDecidesWhenEventsAreWritten(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "u1"}}

	t.Run("step mode writes before Eventf returns, so the write is the step's", func(t *testing.T) {
		env := apiservertest.New(t)
		r := record.New(record.Config{Client: env.Client, Component: "test", Clock: env.Clock, Mode: runmode.Step})
		require.NoError(t, r.Eventf(context.Background(), record.Ref(pod, podGVK), "Normal", "Seen", "saw %s", pod.Name))
		evs := events(t, env)
		require.Len(t, evs, 1)
		assert.Equal(t, "saw web", evs[0].Message)
		assert.Equal(t, "test", evs[0].Source.Component)
		// A repeat raises the count of the same event.
		require.NoError(t, r.Eventf(context.Background(), record.Ref(pod, podGVK), "Normal", "Seen", "saw %s", pod.Name))
		evs = events(t, env)
		require.Len(t, evs, 1)
		assert.Equal(t, int32(2), evs[0].Count)
	})
	t.Run("live mode writes from a goroutine, as the real broadcaster does", func(t *testing.T) {
		env := apiservertest.New(t)
		// Writes wait at a gate until the test opens it: Eventf returning
		// while its write waits proves the write is not the caller's.
		release := make(chan struct{})
		gated := &gate{next: &client.InProcessTransport{Handler: env.Server.Handler()}, release: release}
		cl, err := client.New(client.Config{Server: "http://in-process", Transport: gated, UserAgent: "test"})
		require.NoError(t, err)
		r := record.New(record.Config{Client: cl, Component: "test", Clock: env.Clock, Mode: runmode.Live})
		returned := make(chan error)
		go func() {
			returned <- r.Eventf(context.Background(), record.Ref(pod, podGVK), "Normal", "Seen", "saw %s", pod.Name)
		}()
		select {
		case err := <-returned:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			close(release)
			t.Fatal("Eventf waited for its write")
		}
		assert.Empty(t, events(t, env), "the write still waits at the gate")
		close(release)
		require.Eventually(t, func() bool { return len(events(t, env)) == 1 }, 10*time.Second, 5*time.Millisecond)
	})
}

// gate holds every write until release is closed.
type gate struct {
	next    http.RoundTripper
	release chan struct{}
}

func (g *gate) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet {
		<-g.release
	}
	return g.next.RoundTrip(req)
}
