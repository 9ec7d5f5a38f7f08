package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --memory-limit takes a Kubernetes quantity and sets Go's soft memory
// limit to it; left unset it changes nothing.
func TestMemoryLimitFlag(t *testing.T) {
	var f memoryLimitFlag
	assert.Equal(t, int64(-1), f.apply(), "unset: nothing changes")
	for _, bad := range []string{"", "lots", "-1Gi", "0"} {
		assert.Error(t, f.Set(bad), bad)
	}
	require.NoError(t, f.Set("3.5Gi"))
	assert.Equal(t, int64(3584<<20), f.bytes)
	assert.Equal(t, "3584Mi", f.String())
	before := f.apply()
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	assert.Equal(t, int64(3584<<20), debug.SetMemoryLimit(-1), "the runtime's limit is set")
}

// --list-memory-budget takes a quantity; unset, the budget is a quarter of
// --memory-limit, and without either the API server's default (0).
func TestListBudgetFlag(t *testing.T) {
	var f listBudgetFlag
	var mem memoryLimitFlag
	assert.Equal(t, int64(0), f.budget(&mem), "neither flag: the API server's default")
	require.NoError(t, mem.Set("4Gi"))
	assert.Equal(t, int64(1<<30), f.budget(&mem), "a quarter of the memory limit")
	for _, bad := range []string{"", "lots", "-1Mi", "0"} {
		assert.Error(t, f.Set(bad), bad)
	}
	require.NoError(t, f.Set("256Mi"))
	assert.Equal(t, "256Mi", f.String())
	assert.Equal(t, int64(256<<20), f.budget(&mem), "the flag wins")
}
