package hostprocess

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/clock"
)

func texts(p *Process) []string {
	lines, _, _ := p.Lines()
	var out []string
	for _, l := range lines {
		out = append(out, l.Text)
	}
	return out
}

func wait(t *testing.T, p *Process) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the process did not end")
	}
}

// Both streams become lines, an unfinished last line too; the exit code
// is the process's.
func TestOutputAndExitCode(t *testing.T) {
	p := Start(Spec{Path: "/bin/sh", Args: []string{"-c", `echo one; echo two >&2; printf three; exit 7`}, Clock: clock.Real{}})
	wait(t, p)
	assert.Equal(t, []string{"one", "two", "three"}, texts(p))
	code, at, ok := p.Exited()
	require.True(t, ok)
	assert.Equal(t, 7, code)
	assert.False(t, at.IsZero())
}

// Argv0 is what the process sees as its name, Path what runs.
func TestArgv0(t *testing.T) {
	p := Start(Spec{Path: "/bin/sh", Argv0: "manager", Args: []string{"-c", `echo "$0"`}, Clock: clock.Real{}})
	wait(t, p)
	assert.Equal(t, []string{"manager"}, texts(p))
}

// The environment and the working directory are the Spec's alone.
func TestEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	p := Start(Spec{Path: "/bin/sh", Args: []string{"-c", `echo "$GREETING"; pwd`}, Env: []string{"GREETING=hi"}, Dir: dir, Clock: clock.Real{}})
	wait(t, p)
	assert.Equal(t, []string{"hi", dir}, texts(p))
}

// Terminate is SIGTERM: a process that does not catch it ends with
// 128+15, as a runtime reports it; Kill is SIGKILL, 137.
func TestSignals(t *testing.T) {
	p := Start(Spec{Path: "/bin/sh", Args: []string{"-c", `echo up; exec sleep 60`}, Clock: clock.Real{}})
	waitLine(p)
	p.Terminate()
	wait(t, p)
	code, _, _ := p.Exited()
	assert.Equal(t, 143, code)

	p = Start(Spec{Path: "/bin/sh", Args: []string{"-c", `trap "" TERM; echo up; while :; do sleep 1; done`}, Clock: clock.Real{}})
	waitLine(p)
	p.Terminate() // ignored
	select {
	case <-p.Done():
		t.Fatal("a process that ignores SIGTERM ended")
	case <-time.After(200 * time.Millisecond):
	}
	p.Kill()
	wait(t, p)
	code, _, _ = p.Exited()
	assert.Equal(t, 137, code)
	p.Kill() // after the end: nothing happens
}

// waitLine waits for the process's first line (it has set its traps).
func waitLine(p *Process) {
	for {
		lines, _, changed := p.Lines()
		if len(lines) > 0 {
			return
		}
		<-changed
	}
}

// A binary that cannot start has ended with 128, the reason its log.
func TestStartFailure(t *testing.T) {
	p := Start(Spec{Path: "/does/not/exist", Clock: clock.Real{}})
	wait(t, p)
	code, _, ok := p.Exited()
	require.True(t, ok)
	assert.Equal(t, StartFailedCode, code)
	require.Len(t, texts(p), 1)
	assert.Equal(t, `unable to start container process: exec: "/does/not/exist": no such file or directory`, texts(p)[0])

	f := Failed("no token", clock.Real{})
	code, _, ok = f.Exited()
	assert.True(t, ok)
	assert.Equal(t, StartFailedCode, code)
	assert.Equal(t, []string{"unable to start container process: no token"}, texts(f))
	assert.Zero(t, f.Pid())
}

// Only the last MaxLines are kept; Lines says how many went.
func TestRotation(t *testing.T) {
	p := Start(Spec{Path: "/bin/sh", Args: []string{"-c", `for i in 1 2 3 4 5; do echo $i; done`}, Clock: clock.Real{}, MaxLines: 2})
	wait(t, p)
	lines, dropped, _ := p.Lines()
	assert.Equal(t, 3, dropped)
	require.Len(t, lines, 2)
	assert.Equal(t, "4 5", lines[0].Text+" "+lines[1].Text)
	assert.False(t, strings.Contains(strings.Join(texts(p), ""), "1"))
}

// A network namespace that cannot be joined is a start that failed:
// code 128, the reason in the log, no process run.
func TestNetNSThatCannotBeJoined(t *testing.T) {
	p := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "echo ran"}, NetNS: t.TempDir() + "/missing", Clock: clock.Real{}})
	wait(t, p)
	code, _, _ := p.Exited()
	assert.Equal(t, StartFailedCode, code)
	assert.Equal(t, 0, p.Pid())
	got := texts(p)
	require.Len(t, got, 1)
	assert.True(t, strings.HasPrefix(got[0], "unable to start container process: error during container init: "), got[0])
}

// A Main's output becomes lines and its return the exit code; Terminate
// cancels its context, and it has ended once it returns.
func TestStartFunc(t *testing.T) {
	p := StartFunc(func(_ context.Context, out io.Writer) int {
		fmt.Fprint(out, "bad config\nexiting")
		return 1
	}, Spec{Clock: clock.Real{}})
	wait(t, p)
	assert.Equal(t, []string{"bad config", "exiting"}, texts(p))
	code, _, ok := p.Exited()
	require.True(t, ok)
	assert.Equal(t, 1, code)
	assert.Zero(t, p.Pid())

	started := make(chan struct{})
	p = StartFunc(func(ctx context.Context, out io.Writer) int {
		fmt.Fprintln(out, "running")
		close(started)
		<-ctx.Done()
		return 0
	}, Spec{Clock: clock.Real{}})
	<-started
	_, _, ok = p.Exited()
	assert.False(t, ok, "a Main runs until it returns")
	p.Terminate()
	wait(t, p)
	code, _, _ = p.Exited()
	assert.Equal(t, 0, code)
	p.Kill() // after the end: nothing to do
}
