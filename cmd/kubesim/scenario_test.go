package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubesimWithInput runs the command with stdin and returns its exit code,
// stdout and stderr.
func kubesimWithInput(stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runWithInput(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestScenarioStepIsDrivenByStdin(t *testing.T) {
	t.Parallel()
	// c: the note; c: the apply; c: the first runUntilStable; c: the delete;
	// Enter: one unit of work (the kubelet sees its pod going, and stops
	// and deletes it); ?: why.
	code, out, errOut := kubesimWithInput("c\nc\nc\nc\n\n?\nq\n", "scenario", "step", "testdata/scenarios/small.yaml")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Enter: next unit of work")
	assert.Contains(t, out, "-- next: step 1/6: note: A ReplicaSet of one.")
	assert.Contains(t, out, "-- next: step 5/6: runUntilStable")
	assert.Contains(t, out, "ok: replicaset.apps/web created")
	assert.Regexp(t, `ok: pod "web-\w{5}" deleted`, out)
	// One Enter ran exactly one unit: the kubelet reacting to the delete.
	after := out[strings.Index(out, "-- next: step 5/6"):]
	assert.Regexp(t, `^-- next: step 5/6: runUntilStable\n> \[   \d+\.\d{3}s\]  kubelet/node-1\s+default/web-\w{5}  \(saw MODIFIED Pod default/web-\w{5}@\d+\)`, after)
	assert.Contains(t, out, "The last write: ")
	assert.Regexp(t, `because kubelet/node-1 saw the MODIFIED event of Pod default/web-\w{5} at resourceVersion \d+`, out)
	assert.Regexp(t, `resourceVersion \d+ was written by you: step 4 \(delete Pod -l app=web \(first 1\)\): delete /api/v1/namespaces/default/pods/web-\w{5} 200`, out)
	assert.True(t, strings.HasSuffix(out, "bye\n"), "q quits: %q", out[len(out)-40:])
	assert.NotContains(t, out, "The scenario is over")
}

func TestScenarioStepRunsToTheEndAndFails(t *testing.T) {
	t.Parallel()
	code, out, _ := kubesimWithInput(strings.Repeat("c\n", 10), "scenario", "step", "testdata/scenarios/fails.yaml")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "expected: 3 Pod -l app=web phase=Running")
	assert.Contains(t, out, "The scenario FAILED")
	code, out, _ = kubesimWithInput("h\n", "scenario", "step", "testdata/scenarios/small.yaml")
	assert.Equal(t, 0, code, "end of input quits")
	assert.Contains(t, out, `unknown command "h"`)
}

func TestScenarioRunPassesAndFails(t *testing.T) {
	t.Parallel()
	code, out, errOut := kubesimWithInput("", "scenario", "run", "testdata/scenarios/small.yaml")
	require.Equal(t, 0, code, errOut+out)
	assert.Regexp(t, `(?m)^ok\s+2  apply ../web-rs.yaml\n\s+replicaset.apps/web created$`, out)
	assert.Contains(t, out, "--- PASS: 6 steps")

	code, out, _ = kubesimWithInput("", "scenario", "run", "testdata/scenarios/fails.yaml", "testdata/scenarios/small.yaml")
	assert.Equal(t, 1, code)
	assert.Regexp(t, `(?m)^FAIL\s+3  expect 3 Pod -l app=web phase=Running$`, out)
	assert.Regexp(t, `expected: 3 Pod -l app=web phase=Running\n\s+actual:   2: web-\w{5} Running, web-\w{5} Running`, out)
	assert.Contains(t, out, "the trace before it (last 20 entries):")
	assert.NotContains(t, out, "never reached", "a failure stops the scenario")
	assert.Contains(t, out, "2 scenario(s): 1 passed, 1 failed")
}

func TestScenarioBadFilesRunNothing(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{
		"testdata/scenarios/bad-step.yaml":     `bad-step.yaml:5: unknown step "scael" (expected one of: note, apply,`,
		"testdata/scenarios/bad-manifest.yaml": `bad-manifest.yaml:8: invalid YAML: did not find expected key`,
	} {
		code, out, errOut := kubesimWithInput("", "scenario", "run", "testdata/scenarios/small.yaml", file)
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, want)
		assert.Empty(t, out, "nothing ran, not even the good file before it")
	}
	code, _, errOut := kubesimWithInput("", "scenario", "frobnicate")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `unknown command "frobnicate" for "kubesim scenario"`)
}

func TestScenarioTraceIsTheGoldenForm(t *testing.T) {
	t.Parallel()
	code, out, errOut := kubesimWithInput("", "scenario", "trace", "../../examples/scenarios/lab2-scheduler.yaml")
	require.Equal(t, 0, code, errOut)
	want, err := os.ReadFile("../../examples/scenarios/testdata/lab2-scheduler.trace")
	require.NoError(t, err)
	assert.Equal(t, string(want), out)
}

func TestDemoStepPausesBetweenSteps(t *testing.T) {
	t.Parallel()
	code, out, errOut := kubesimWithInput("\n\n\n", "demo", "--step", "--color=never")
	require.Equal(t, 0, code, errOut)
	// Three Enters answer three pauses; at the fourth, the end of the input
	// runs the rest of the story without pausing.
	assert.Equal(t, 4, strings.Count(out, "[Enter: next step]"))
	assert.Contains(t, out, "(no pods)")
}

func TestScenarioStepRunsToTheNextAdmissionStep(t *testing.T) {
	t.Parallel()
	// "a" runs to the first unit whose writes admission changed: the
	// ReplicaSet creating its 3 pods, each given its ServiceAccount by the
	// plugin; a second "a" to the next one, the replacement pod.
	code, out, errOut := kubesimWithInput("a\na\n", "scenario", "step", "testdata/scenarios/small.yaml")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "a: continue to the next admission step")
	assert.Regexp(t, `\[   0\.000s\]  replicaset\s+default/web .*\n.*-> create /api/v1/namespaces/default/pods 201 rv=\d+\n\s+admission mutating ServiceAccount create pods default/web-\w{5}: patched \(`, out)
	assert.Equal(t, 4, strings.Count(out, "admission mutating ServiceAccount create pods"), out)
	assert.Contains(t, out, "-- next: step 5/6: runUntilStable\n> \n", "the second stop is inside step 4's delete")
}
