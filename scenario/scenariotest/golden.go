// Package scenariotest runs scenario files from Go tests: each scenario
// runs twice, its two traces must be byte-identical, and the trace must
// equal a golden file (rewritten with -update after an intended change).
//
// Real counterpart: the golden-file helpers many Kubernetes tests carry
// (for example kubectl's testdata comparisons); Kubernetes' own e2e runs
// cannot be compared byte for byte, a real cluster being concurrent.
package scenariotest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenario"
)

// Trace runs a scenario in the trace style and returns what it printed and
// whether every step passed. The cache mutation detector is on: no
// component may change an object its informers hand out.
func Trace(t testing.TB, s *scenario.Scenario) (string, bool) {
	t.Helper()
	var out bytes.Buffer
	rep := &scenario.Reporter{W: &out, Style: scenario.StyleTrace}
	r, err := scenario.NewWithOptions(s, rep, scenario.Options{DetectCacheMutations: true})
	require.NoError(t, err)
	defer r.Close()
	rep.Header(s)
	_, err = r.RunAll(context.Background())
	require.NoError(t, err)
	assert.NoError(t, r.CheckCacheMutations())
	ok := rep.Footer(s)
	return out.String(), ok
}

// GoldenPath is where a scenario's golden trace lives: testdata/NAME.trace
// beside the scenario file.
func GoldenPath(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	return filepath.Join(filepath.Dir(file), "testdata", base+".trace")
}

// CheckGolden loads file, runs it, and checks that the run passes and
// prints the golden trace byte for byte. When update is set it runs the
// scenario twice and writes the golden only if both runs agree: the golden
// is then one of two identical runs, and each later check compares a fresh
// run with it — so a trace that varies from run to run fails either here
// or at the next check, and the package's test does not pay for a second
// run of every scenario (it was half of `make test`'s scenario time).
func CheckGolden(t testing.TB, file string, update bool) {
	t.Helper()
	s, err := scenario.Load(file)
	require.NoError(t, err)
	first, ok := Trace(t, s)
	if !ok {
		t.Errorf("%s: a step failed:\n%s", file, tail(first, 60))
	}
	golden := GoldenPath(file)
	if update {
		second, _ := Trace(t, s)
		require.Equal(t, first, second, "%s: two runs gave different traces", file)
		require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(first), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "no golden trace for %s: run go test with -update", file)
	assert.Equal(t, string(want), first, "%s: the trace differs from %s (go test -update rewrites it after an intended change)", file, golden)
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
