package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pod informer never waits for a scheduling cycle: while mu is held
// (a cycle over every node), its events are left, in order, to mu's
// holder, which applies them when it lets go. Before, each event took mu
// and the informer waited behind the workers' cycles in turn; at 100,000
// pods on 5,000 nodes it fell so far behind that its watch was ended.
func TestPodEventsDoNotWaitForTheSchedulingCycle(t *testing.T) {
	e := newEnv(t, 1)
	e.createNode("node-a", "4", "8Gi")
	require.NoError(t, e.ctrl.Sync(e.ctx))
	bound := testPod("bound", "100m", "128Mi")
	bound.Spec.NodeName = "node-a"
	e.createPod(bound)
	e.createPod(testPod("waiting", "100m", "128Mi"))

	e.sched.lock() // a cycle in progress
	synced := make(chan error, 1)
	go func() { synced <- e.ctrl.Sync(e.ctx) }()
	select {
	case err := <-synced:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the informer waited for the cycle")
	}
	_, counted := e.sched.podStates["default/bound"]
	assert.False(t, counted, "not applied while the cycle holds mu")
	assert.Zero(t, e.ctrl.Pending(), "nothing queued yet")
	e.sched.unlock() // the cycle ends: the events waiting are applied

	e.sched.lock()
	st := e.sched.podStates["default/bound"]
	e.sched.unlock()
	require.NotNil(t, st, "the bound pod is counted on its node")
	assert.Equal(t, "node-a", st.node)
	assert.Equal(t, 1, e.ctrl.Pending(), "the unbound pod is queued")
	steps := e.run()
	require.Len(t, steps, 1)
	assert.Equal(t, "default/waiting", steps[0].Key)
	assert.Equal(t, "node-a", e.pod("waiting").Spec.NodeName)
}
