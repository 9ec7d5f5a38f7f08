package hostprocess

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/kubesim/kubesim/clock"
)

// Spec is what to run.
type Spec struct {
	// Path is the binary (the local image); Args follow it in argv.
	Path string
	Args []string
	// Argv0, when set, is the name the process sees as argv[0] (a
	// container's command[0]); else Path.
	Argv0 string
	// Env is the whole environment, KEY=VALUE.
	Env []string
	// Dir is the working directory.
	Dir string
	// Clock stamps the output lines and the exit.
	Clock clock.Clock
	// NetNS, when set, is the path of a network namespace (the pod
	// sandbox's) the process is started in, on Linux (startIn): it then
	// listens on the pod's address, and its 127.0.0.1 is the pod's own.
	NetNS string
	// MaxLines bounds the lines kept (the oldest go first), as the kubelet
	// rotates container logs; 0 keeps 10,000.
	MaxLines int
}

// Line is one line the process printed, on stdout or stderr, and when.
type Line struct {
	At   time.Time
	Text string
}

// Process is one run of a local image.
type Process struct {
	cmd  *exec.Cmd
	clk  clock.Clock
	done chan struct{}
	// stop ends a run of a Main (StartFunc): its context is cancelled
	// at the first signal; nil for a binary.
	stop context.CancelFunc

	mu       sync.Mutex
	lines    []Line
	dropped  int // lines rotated away
	partial  []byte
	max      int
	exitCode int
	exitedAt time.Time
	changed  chan struct{}
	// ended: changed stays closed once the process has ended, so a
	// follower that read Exited just before the end cannot wait forever.
	ended bool
}

// StartFailedCode is the exit code of a binary that could not be started
// (runc's, for an exec that failed).
const StartFailedCode = 128

// Start starts the process. It never fails: a binary that cannot start
// is a process that ended at once with StartFailedCode, the reason as
// its only log line, as a container that failed to start shows it.
func Start(s Spec) *Process {
	p := &Process{clk: s.Clock, done: make(chan struct{}), max: s.MaxLines, changed: make(chan struct{})}
	if p.max <= 0 {
		p.max = 10000
	}
	cmd := exec.Command(s.Path, s.Args...)
	if s.Argv0 != "" {
		cmd.Args[0] = s.Argv0
	}
	cmd.Env, cmd.Dir = s.Env, s.Dir
	// One writer for both streams: exec calls it from one goroutine at a
	// time, so the lines interleave as the process wrote them.
	cmd.Stdout, cmd.Stderr = p, p
	// A child holding the pipes open (a grandchild) must not keep Wait
	// from returning once the process itself has ended.
	cmd.WaitDelay = time.Second
	cmd.SysProcAttr = sysProcAttr()
	p.cmd = cmd
	nsErr, err := startIn(cmd, s.NetNS, p.done)
	if nsErr != nil {
		// runc's words for a namespace it could not join.
		p.append(fmt.Appendf(nil, "unable to start container process: error during container init: %v\n", nsErr))
		p.finish(StartFailedCode)
		return p
	}
	if err != nil {
		// runc's words: unable to start container process: exec: "PATH": REASON.
		reason := err
		if inner := errors.Unwrap(err); inner != nil {
			reason = inner
		}
		p.append(fmt.Appendf(nil, "unable to start container process: exec: %q: %v\n", s.Path, reason))
		p.finish(StartFailedCode)
		return p
	}
	go func() {
		err := cmd.Wait()
		p.flush()
		_ = err // the state says it all: a code, or a signal
		p.finish(exitCode(cmd.ProcessState))
	}()
	return p
}

// Failed is a process that could not even be prepared (its environment
// could not be built): it has ended with StartFailedCode, reason as its
// log.
func Failed(reason string, clk clock.Clock) *Process {
	p := &Process{clk: clk, done: make(chan struct{}), max: 1, changed: make(chan struct{}), cmd: &exec.Cmd{}}
	p.append([]byte("unable to start container process: " + reason + "\n"))
	p.finish(StartFailedCode)
	return p
}

// Main is a program compiled into kubesim that stands for an image's
// binary (StartFunc): it writes its output to out, returns its exit code,
// and returns soon once ctx is cancelled, as a process does on SIGTERM.
type Main func(ctx context.Context, out io.Writer) int

// StartFunc runs main in a goroutine as the process of a container: its
// output becomes the log's lines and its return the exit code, as for a
// binary. Terminate and Kill cancel its context; it has ended once main
// has returned (a Go function cannot be killed from outside).
func StartFunc(main Main, s Spec) *Process {
	p := &Process{clk: s.Clock, done: make(chan struct{}), max: s.MaxLines, changed: make(chan struct{}), cmd: &exec.Cmd{}}
	if p.max <= 0 {
		p.max = 10000
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	go func() {
		defer cancel()
		code := main(ctx, p)
		p.flush()
		p.finish(code)
	}()
	return p
}

// exitCode is the code a runtime reports: the process's own, or
// 128+signal when a signal ended it.
func exitCode(st *os.ProcessState) int {
	if st == nil {
		return StartFailedCode
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if c := st.ExitCode(); c >= 0 {
		return c
	}
	return StartFailedCode
}

func (p *Process) finish(code int) {
	p.mu.Lock()
	p.exitCode, p.exitedAt = code, p.clk.Now()
	if !p.ended {
		close(p.changed) // and it stays closed: see ended
		p.ended = true
	}
	p.mu.Unlock()
	close(p.done)
}

// Write takes the process's output and cuts it into timestamped lines.
func (p *Process) Write(b []byte) (int, error) {
	p.append(b)
	return len(b), nil
}

func (p *Process) append(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clk.Now()
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		p.lines = append(p.lines, Line{At: now, Text: string(p.partial[:i])})
		p.partial = p.partial[i+1:]
	}
	if over := len(p.lines) - p.max; over > 0 {
		p.lines = append(p.lines[:0:0], p.lines[over:]...)
		p.dropped += over
	}
	p.notifyLocked()
}

// flush keeps an unfinished last line.
func (p *Process) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.partial) > 0 {
		p.lines = append(p.lines, Line{At: p.clk.Now(), Text: string(p.partial)})
		p.partial = nil
	}
}

func (p *Process) notifyLocked() {
	if p.ended {
		return
	}
	close(p.changed)
	p.changed = make(chan struct{})
}

// Lines are the lines printed so far that are kept, how many earlier
// ones were rotated away, and a channel closed when more come or the
// process ends.
func (p *Process) Lines() (lines []Line, dropped int, changed <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Line(nil), p.lines...), p.dropped, p.changed
}

// Done is closed once the process has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports the exit code and time, once the process has ended.
func (p *Process) Exited() (code int, at time.Time, ok bool) {
	select {
	case <-p.done:
	default:
		return 0, time.Time{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitCode, p.exitedAt, true
}

// Terminate asks the process to stop (SIGTERM), as the runtime's
// StopContainer does first.
func (p *Process) Terminate() { p.signal(syscall.SIGTERM) }

// Kill ends the process (SIGKILL), once the grace period is over.
func (p *Process) Kill() { p.signal(syscall.SIGKILL) }

func (p *Process) signal(sig os.Signal) {
	select {
	case <-p.done:
		return
	default:
	}
	if p.stop != nil {
		p.stop()
		return
	}
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(sig) // it may just have ended: nothing to do
	}
}

// Pid is the process id (0 if it never started).
func (p *Process) Pid() int {
	if p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}
