package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestDemoTraceIsGolden runs the demo twice in step mode: both runs must
// print the same bytes, equal to testdata/demo.golden (go test -update
// rewrites it after an intended change).
func TestDemoTraceIsGolden(t *testing.T) {
	t.Parallel()
	var a, b bytes.Buffer
	require.NoError(t, runDemo(context.Background(), &a, demoOptions{full: true}))
	require.NoError(t, runDemo(context.Background(), &b, demoOptions{full: true}))
	require.Equal(t, a.String(), b.String(), "two runs of the demo differ")
	if *update {
		require.NoError(t, os.WriteFile("testdata/demo.golden", a.Bytes(), 0o644))
	}
	want, err := os.ReadFile("testdata/demo.golden")
	require.NoError(t, err, "run go test ./cmd/kubesim -run TestDemoTraceIsGolden -update")
	assert.Equal(t, string(want), a.String())
	assert.Contains(t, a.String(), "We delete one pod")
	assert.Contains(t, a.String(), "(no pods)", "the ReplicaSet's pods are gone at the end")
}

func TestDemoCommandPrintsTheStory(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"demo", "--color=always"}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Contains(t, out.String(), "\x1b[36mscheduler\x1b[0m", "colour on request")
	assert.Contains(t, out.String(), "event(s)]", "events are summarised by default")
}
