package cluster

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// In live mode OnWrite hears each component's writes by its user agent:
// the scheduler's binding of a pod a test created.
func TestOnWriteTellsTheLiveComponentsWrites(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	c, err := newTestCluster(t, Config{NodeCount: 1, UnsafeNoFsync: true, OnWrite: func(ua string, w stepper.Write) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, ua+" "+w.Verb+" "+w.Path)
	}})
	require.NoError(t, err)
	defer c.Close()
	assert.Contains(t, c.Components(), "default-scheduler")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, c.Start(ctx))
	_, err = c.Client("t").Pods().Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range seen {
			if s == "default-scheduler create /api/v1/namespaces/default/pods/p/binding" {
				return true
			}
		}
		return false
	}, 60*time.Second, 20*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	for _, s := range seen {
		assert.False(t, strings.HasPrefix(s, "t "), "a client of Client() is no component: %s", s)
	}
}

// The stepper lists its loops in order with their switches (the web
// page's row of loops in step mode).
func TestStepperListsItsLoops(t *testing.T) {
	c, err := newTestCluster(t, Config{Mode: runmode.Step, NodeCount: 1, UnsafeNoFsync: true})
	require.NoError(t, err)
	defer c.Close()
	loops := c.Stepper().Loops()
	assert.Contains(t, loops, stepper.Loop{Name: "scheduler", Switch: "scheduler"})
	assert.Contains(t, loops, stepper.Loop{Name: "garbagecollector", Switch: "garbagecollector"})
	assert.Equal(t, stepper.Loop{Name: "kubelet/node-1", Switch: "kubelet/node-1"}, loops[len(loops)-1], "the kubelets come last")
	assert.True(t, c.Enabled("garbagecollector"))
	require.NoError(t, c.SetEnabled("garbagecollector", false))
	assert.False(t, c.Enabled("garbagecollector"))
}
