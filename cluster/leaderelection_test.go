package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/runmode"
	"github.com/kubesim/kubesim/stepper"
)

// Step mode runs several controller managers only with two or more
// distinct candidates; live mode is one candidate per process.
func TestLeaderElectionConfigIsChecked(t *testing.T) {
	_, err := New(Config{Mode: runmode.Step, LeaderElection: &LeaderElection{Candidates: []string{"a"}}})
	assert.EqualError(t, err, "cluster: leader election in step mode needs two or more candidates")
	_, err = New(Config{Mode: runmode.Step, LeaderElection: &LeaderElection{Candidates: []string{"a", "a"}}})
	assert.ErrorContains(t, err, `candidate "a": identities must be unique`)
	_, err = New(Config{Mode: runmode.Live, LeaderElection: &LeaderElection{Identity: "x", Candidates: []string{"a", "b"}}})
	assert.ErrorContains(t, err, "candidates are for step mode")
}

// Only the leader's controllers run: the follower's loops never reconcile
// (only its elector does) until it takes the Lease over; a stopped
// candidate's elector no longer runs.
func TestStepModeCandidatesOnlyTheLeaderRuns(t *testing.T) {
	c, err := newTestCluster(t, Config{Mode: runmode.Step, Seed: 1, NodeCount: 1, LeaderElection: &LeaderElection{Candidates: []string{"a", "b"}}})
	require.NoError(t, err)
	defer c.Close()
	ctx := context.Background()
	_, err = c.RunUntilStable(ctx, stepper.Limits{})
	require.NoError(t, err)
	ran := func(prefix string) map[string]bool {
		out := map[string]bool{}
		for _, e := range c.Trace() {
			if strings.HasPrefix(e.Actor, prefix) {
				out[e.Actor] = true
			}
		}
		return out
	}
	assert.Equal(t, map[string]bool{"b/leaderelection": true}, ran("b/"), "b follows")
	assert.True(t, ran("a/")["a/nodelifecycle"], "a leads: its node lifecycle controller saw the node")

	assert.EqualError(t, c.StopCandidate("c"), `no controller manager "c" (candidates: [a b])`)
	require.NoError(t, c.StopCandidate("a"))
	n := len(c.Trace())
	_, err = c.Advance(ctx, 30*time.Second, stepper.Limits{})
	require.NoError(t, err)
	var aAfter, bLeads bool
	for _, e := range c.Trace()[n:] {
		aAfter = aAfter || strings.HasPrefix(e.Actor, "a/")
		bLeads = bLeads || e.Actor == "b/nodelifecycle"
	}
	assert.False(t, aAfter, "a is stopped: none of its loops runs")
	assert.True(t, bLeads, "b took over and its controllers run")
}
