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

// TestDemoTraceIsGolden runs the demo in step mode: it must print
// testdata/demo.golden byte for byte — a run of another day, so the
// comparison is also the check that runs agree. go test -update rewrites
// the golden after an intended change, from two runs that must agree.
func TestDemoTraceIsGolden(t *testing.T) {
	t.Parallel()
	a := goldenDemoRun(t, demoOptions{full: true}, "testdata/demo.golden")
	want, err := os.ReadFile("testdata/demo.golden")
	require.NoError(t, err, "run go test ./cmd/kubesim -run TestDemoTraceIsGolden -update")
	assert.Equal(t, string(want), a)
	assert.Contains(t, a, "We delete one pod")
	assert.Contains(t, a, "(no pods)", "the ReplicaSet's pods are gone at the end")
}

// goldenDemoRun runs the demo once; with -update it runs it again, refuses
// a golden two runs disagree on, and writes file.
func goldenDemoRun(t *testing.T, opts demoOptions, file string) string {
	t.Helper()
	var a bytes.Buffer
	require.NoError(t, runDemo(context.Background(), &a, opts))
	if *update {
		var b bytes.Buffer
		require.NoError(t, runDemo(context.Background(), &b, opts))
		require.Equal(t, a.String(), b.String(), "two runs of the demo differ")
		require.NoError(t, os.WriteFile(file, a.Bytes(), 0o644))
	}
	return a.String()
}

func TestDemoCommandPrintsTheStory(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"demo", "--color=always"}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Contains(t, out.String(), "\x1b[36mscheduler\x1b[0m", "colour on request")
	assert.Contains(t, out.String(), "event(s)]", "events are summarised by default")
}
