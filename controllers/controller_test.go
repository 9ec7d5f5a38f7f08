package controllers

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/runmode"
)

func TestParseEnabled(t *testing.T) {
	all := []string{"replicaset", "deployment", "garbagecollector"}
	got, err := ParseEnabled("*,-garbagecollector", all)
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{"replicaset": true, "deployment": true, "garbagecollector": false}, got)
	got, err = ParseEnabled("replicaset", all)
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{"replicaset": true, "deployment": false, "garbagecollector": false}, got)
	_, err = ParseEnabled("*,-nope", all)
	assert.ErrorContains(t, err, `"nope" is not in the list of known controllers`)
}

func TestStepReconcilesOneKeyAndHonoursResults(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var seen []string
	fail := true
	c, err := New(Config{Name: "test", Clock: clk, Mode: runmode.Step, Reconciler: ReconcileFunc(func(_ context.Context, key string) (Result, error) {
		seen = append(seen, key)
		switch key {
		case "later":
			return Result{RequeueAfter: time.Minute}, nil
		case "flaky":
			if fail {
				fail = false
				return Result{}, errors.New("boom")
			}
		}
		return Result{}, nil
	})})
	require.NoError(t, err)
	c.Enqueue("later", Cause{Event: "ADDED", Kind: "Pod", Namespace: "d", Name: "later", ResourceVersion: "7"})
	c.Enqueue("flaky", Cause{Event: "ADDED"})
	c.Enqueue("later", Cause{Event: "MODIFIED"}) // de-duplicated, first cause kept

	info, ok := c.Step(context.Background())
	require.True(t, ok)
	assert.Equal(t, "later", info.Key)
	assert.Equal(t, "ADDED Pod d/later@7", info.Cause.String())
	info, ok = c.Step(context.Background())
	require.True(t, ok)
	assert.Equal(t, "flaky", info.Key)
	assert.Error(t, info.Err)
	_, ok = c.Step(context.Background())
	assert.False(t, ok, "nothing ready until the clock moves")

	next, ok := c.NextDeadline()
	require.True(t, ok)
	clk.SetTime(next)
	info, ok = c.Step(context.Background())
	require.True(t, ok)
	assert.Equal(t, "flaky", info.Key, "the failed key comes back after its back-off")
	assert.Equal(t, "retry after error", info.Cause.String())
	clk.Step(time.Minute)
	info, ok = c.Step(context.Background())
	require.True(t, ok)
	assert.Equal(t, "later", info.Key)
	assert.Equal(t, []string{"later", "flaky", "flaky", "later"}, seen)
}
