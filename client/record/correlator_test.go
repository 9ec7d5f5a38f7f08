package record_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/client/record"
	"github.com/kubesim/kubesim/runmode"
)

// counting counts the writes (anything but GET) that pass through it, by
// verb.
type counting struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    map[string]int
}

func (c *counting) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet {
		c.mu.Lock()
		c.n[req.Method]++
		c.mu.Unlock()
	}
	return c.next.RoundTrip(req)
}

func (c *counting) writes() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.n {
		out[k] = v
	}
	return out
}

// stepRecorder is a step-mode recorder on env's fake clock whose writes
// are counted.
func stepRecorder(t *testing.T, env *apiservertest.Env) (*record.Recorder, *counting) {
	t.Helper()
	cnt := &counting{next: &client.InProcessTransport{Handler: env.Server.Handler()}, n: map[string]int{}}
	cl, err := client.New(client.Config{Server: "http://in-process", Transport: cnt, UserAgent: "test"})
	require.NoError(t, err)
	return record.New(record.Config{Client: cl, Component: "replicaset-controller", Clock: env.Clock, Mode: runmode.Step}), cnt
}

func byMessage(evs []*corev1.Event) map[string]*corev1.Event {
	out := map[string]*corev1.Event{}
	for _, e := range evs {
		out[e.Message] = e
	}
	return out
}

var rsRef = corev1.ObjectReference{Kind: "ReplicaSet", APIVersion: "apps/v1", Namespace: "default", Name: "web", UID: "rs-1"}

// An identical event raises the count of the Event written first, by a
// PATCH that also moves lastTimestamp on.
func TestIdenticalEventsArePatchedCounts(t *testing.T) {
	env := apiservertest.New(t)
	r, cnt := stepRecorder(t, env)
	first := env.Clock.Now().UTC().Truncate(time.Second)
	require.NoError(t, r.Eventf(bg, rsRef, "Warning", "FailedCreate", "Error creating: quota"))
	env.Clock.Step(7 * time.Second)
	require.NoError(t, r.Eventf(bg, rsRef, "Warning", "FailedCreate", "Error creating: quota"))
	require.NoError(t, r.Eventf(bg, rsRef, "Warning", "FailedCreate", "Error creating: quota"))
	evs := events(t, env)
	require.Len(t, evs, 1)
	assert.Equal(t, int32(3), evs[0].Count)
	assert.Equal(t, first, evs[0].FirstTimestamp.Time.UTC())
	assert.Equal(t, first.Add(7*time.Second), evs[0].LastTimestamp.Time.UTC())
	assert.Equal(t, map[string]int{http.MethodPost: 1, http.MethodPatch: 2}, cnt.writes())
}

// Two events differing only in one field of the key that counts
// identical events (here the container, by fieldPath; then the object's
// UID: a pod recreated under the same name) are not folded into one
// count: each is its own Event.
func TestEventsDifferingInOneKeyFieldStayApart(t *testing.T) {
	env := apiservertest.New(t)
	r, cnt := stepRecorder(t, env)
	a, b := rsRef, rsRef
	a.FieldPath, b.FieldPath = "spec.containers{a}", "spec.containers{b}"
	require.NoError(t, r.Eventf(bg, a, "Normal", "Pulled", "Image pulled"))
	require.NoError(t, r.Eventf(bg, b, "Normal", "Pulled", "Image pulled"))
	c := rsRef
	c.UID = "rs-2"
	require.NoError(t, r.Eventf(bg, c, "Normal", "Pulled", "Image pulled"))
	evs := events(t, env)
	require.Len(t, evs, 3)
	seen := map[string]int32{}
	for _, e := range evs {
		seen[e.InvolvedObject.FieldPath+"/"+string(e.InvolvedObject.UID)] = e.Count
	}
	assert.Equal(t, map[string]int32{"spec.containers{a}/rs-1": 1, "spec.containers{b}/rs-1": 1, "/rs-2": 1}, seen)
	assert.Equal(t, map[string]int{http.MethodPost: 3}, cnt.writes())
}

// The tenth similar event (same source, object, type and reason; a new
// message) within ten minutes starts an aggregate Event; every similar
// one after it raises that Event's count and takes its message.
func TestSimilarEventsAreCombined(t *testing.T) {
	env := apiservertest.New(t)
	r, cnt := stepRecorder(t, env)
	for i := 1; i <= 12; i++ {
		require.NoError(t, r.Eventf(bg, rsRef, "Normal", "SuccessfulCreate", "Created pod: web-%d", i))
	}
	evs := events(t, env)
	require.Len(t, evs, 10, "nine events, then one that combines the rest")
	msgs := byMessage(evs)
	for i := 1; i <= 9; i++ {
		require.Contains(t, msgs, fmt.Sprintf("Created pod: web-%d", i))
	}
	agg := msgs["(combined from similar events): Created pod: web-12"]
	require.NotNil(t, agg, "the aggregate carries the latest message: %v", msgs)
	assert.Equal(t, int32(3), agg.Count, "web-10, web-11 and web-12")
	assert.Equal(t, "SuccessfulCreate", agg.Reason)
	assert.Equal(t, map[string]int{http.MethodPost: 10, http.MethodPatch: 2}, cnt.writes())

	// Ten minutes of quiet and the group starts over.
	env.Clock.Step(11 * time.Minute)
	require.NoError(t, r.Eventf(bg, rsRef, "Normal", "SuccessfulCreate", "Created pod: web-13"))
	assert.Contains(t, byMessage(events(t, env)), "Created pod: web-13")
}

// A source may say 25 things about one object; after that one more
// every five minutes, and what is dropped meanwhile still counts.
func TestSpamFilterCapsEventsPerSourceAndObject(t *testing.T) {
	env := apiservertest.New(t)
	r, cnt := stepRecorder(t, env)
	for range 40 {
		require.NoError(t, r.Eventf(bg, rsRef, "Warning", "BackOff", "Back-off restarting failed container"))
	}
	w := cnt.writes()
	assert.Equal(t, 25, w[http.MethodPost]+w[http.MethodPatch], "burst of 25, then nothing")
	evs := events(t, env)
	require.Len(t, evs, 1)
	assert.Equal(t, int32(25), evs[0].Count)

	// Another object has its own budget.
	other := rsRef
	other.Name, other.UID = "api", "rs-2"
	require.NoError(t, r.Eventf(bg, other, "Warning", "BackOff", "Back-off restarting failed container"))
	assert.Len(t, events(t, env), 2)

	env.Clock.Step(4 * time.Minute)
	require.NoError(t, r.Eventf(bg, rsRef, "Warning", "BackOff", "Back-off restarting failed container"))
	w = cnt.writes()
	assert.Equal(t, 26, w[http.MethodPost]+w[http.MethodPatch], "no token yet after 4 minutes")
	env.Clock.Step(time.Minute + time.Second)
	require.NoError(t, r.Eventf(bg, rsRef, "Warning", "BackOff", "Back-off restarting failed container"))
	w = cnt.writes()
	assert.Equal(t, 27, w[http.MethodPost]+w[http.MethodPatch], "one token after 5 minutes")
	var counts []int32
	for _, e := range events(t, env) {
		counts = append(counts, e.Count)
	}
	sort.Slice(counts, func(i, j int) bool { return counts[i] < counts[j] })
	assert.Equal(t, []int32{1, 42}, counts, "the dropped ones are counted in the next that gets through")
}

// An Event deleted behind the recorder's back is created again, with its
// count, when it repeats.
func TestPatchOfDeletedEventCreatesItAgain(t *testing.T) {
	env := apiservertest.New(t)
	r, _ := stepRecorder(t, env)
	require.NoError(t, r.Eventf(bg, rsRef, "Normal", "Seen", "saw it"))
	evs := events(t, env)
	require.Len(t, evs, 1)
	require.NoError(t, env.Client.Events().Delete(bg, "default", evs[0].Name, nil))
	require.NoError(t, r.Eventf(bg, rsRef, "Normal", "Seen", "saw it"))
	evs = events(t, env)
	require.Len(t, evs, 1)
	assert.Equal(t, int32(2), evs[0].Count)
}

var bg = context.Background()
