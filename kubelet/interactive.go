package kubelet

import (
	"bytes"
	"context"
	"io"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// A container started with stdin whose program is a shell — the
// tutorials' `kubectl run -i --tty --rm debug --image=busybox -- sh` —
// waits for input instead of exiting at once, and `kubectl attach`
// (which kubectl run -i calls) runs the built-in shell over the attach
// stream. The session's end is the container's end.

// interactive reports whether container c of pod reads its stdin:
// spec.stdin set, and a bare shell for a program (sh, bash, sh -i, or a
// shell image with no command), a filter given no file (cat, wc, grep
// PATTERN, head, tail), or a script that reads (read, or such a filter).
// Its program runs when an attached session gives it that input.
func interactive(pod *corev1.Pod, c *corev1.Container) bool {
	if !c.Stdin {
		return false
	}
	return interactiveArgv(c) != nil
}

// interactiveArgv is the argv an attached session runs for container c
// (its stdin set), or nil when the container does not read its stdin.
func interactiveArgv(c *corev1.Container) []string {
	argv := append(append([]string(nil), c.Command...), c.Args...)
	if len(argv) == 0 {
		if defaultShell(c.Image) {
			return []string{"sh"}
		}
		return nil
	}
	switch path.Base(argv[0]) {
	case "sh", "bash", "ash", "dash":
		argv[0] = "sh"
		if len(argv) == 1 || (len(argv) == 2 && (argv[1] == "-i" || argv[1] == "-l" || argv[1] == "-")) {
			return argv
		}
		if len(argv) >= 3 && strings.HasPrefix(argv[1], "-") && strings.Contains(argv[1], "c") && readsStdin.MatchString(argv[2]) {
			return argv
		}
		return nil
	case "cat", "wc", "head", "tail":
		for _, a := range argv[1:] {
			if !strings.HasPrefix(a, "-") || a == "-" {
				return nil
			}
		}
		return argv
	case "grep":
		var operands int
		for _, a := range argv[1:] {
			if !strings.HasPrefix(a, "-") {
				operands++
			}
		}
		if operands == 1 {
			return argv
		}
	}
	return nil
}

// readsStdin finds, in a script, a command that reads its standard input:
// read, or cat given no file.
var readsStdin = regexp.MustCompile(`(^|[;&|(\s])(read\s|cat\s*($|[;&|)]))`)

// eofReader notes whether the stream it reads ended: the client closed
// stdin or went away, rather than the shell choosing to exit.
type eofReader struct {
	r    io.Reader
	mu   sync.Mutex
	done bool
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.mu.Lock()
		e.done = true
		e.mu.Unlock()
	}
	return n, err
}

func (e *eofReader) ended() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.done
}

// attachShell runs the container's program (a shell, or a command that
// reads its stdin) over the attach stream. When it
// returns because the client's stream ended and the container keeps its
// stdin open (no stdinOnce), the container goes on running, as a real
// shell whose stdin the runtime holds open would; otherwise the shell's
// status is the container's exit code.
func (k *Kubelet) attachShell(ctx context.Context, pod *corev1.Pod, c *corev1.Container, stdio shell.Stdio) error {
	env, err := k.ExecTarget(ctx, pod.Namespace, pod.Name, c.Name)
	if err != nil {
		return err
	}
	in := &eofReader{r: stdio.Stdin}
	stdio.Stdin = in
	// The terminal is the container's: kubectl asks for one only when
	// the container has it (spec.tty).
	stdio.TTY = stdio.TTY && c.TTY
	if id, started, ok := k.runningInstance(pod, c.Name); ok {
		// What the session prints is the container's output: it goes to
		// its log too.
		rec := &attachRecorder{k: k, podKey: pod.Namespace + "/" + pod.Name, id: id, started: started}
		if stdio.Stdout == nil {
			stdio.Stdout = rec
		} else {
			stdio.Stdout = io.MultiWriter(stdio.Stdout, rec)
		}
		defer rec.flush()
	}
	code := k.Exec(ctx, env, interactiveArgv(c), stdio)
	if (in.ended() || ctx.Err() != nil) && !c.StdinOnce {
		return nil
	}
	k.processExited(pod, c.Name, int32(code))
	return nil
}

// processExited records that the running container name of pod ended by
// itself with code (its interactive shell returned); the pod loop turns
// it into the container's termination (nextTransition's toExit).
func (k *Kubelet) processExited(pod *corev1.Pod, name string, code int32) {
	key := pod.Namespace + "/" + pod.Name
	k.stateMu.Lock()
	rt := k.runtimes[key]
	if rt == nil || rt.uid != pod.UID {
		k.stateMu.Unlock()
		return
	}
	i := rt.find(name)
	if i < 0 || rt.containers[i].state != containerRunning {
		k.stateMu.Unlock()
		return
	}
	rt.containers[i].exited = &processExit{code: code, at: k.cfg.Clock.Now()}
	k.stateMu.Unlock()
	k.mu.Lock()
	loop := k.loops.podLoop
	k.mu.Unlock()
	loop.Enqueue(key, controllers.Cause{Event: "container process exited", Kind: "Pod", Name: pod.Name, Namespace: pod.Namespace})
}

// processExit is a container's own end, learnt from its process rather
// than from its behaviour: when and with what code.
type processExit struct {
	code int32
	at   time.Time
}

// runningInstance is the id and start of the running container name of
// pod.
func (k *Kubelet) runningInstance(pod *corev1.Pod, name string) (string, time.Time, bool) {
	k.stateMu.Lock()
	defer k.stateMu.Unlock()
	rt := k.runtimes[pod.Namespace+"/"+pod.Name]
	if rt == nil || rt.uid != pod.UID {
		return "", time.Time{}, false
	}
	i := rt.find(name)
	if i < 0 || rt.containers[i].state != containerRunning {
		return "", time.Time{}, false
	}
	return rt.containers[i].id, rt.containers[i].startedAt, true
}

// attachRecorder keeps what an attached session printed as the log lines
// of the container instance id, each at its offset from the start.
type attachRecorder struct {
	k       *Kubelet
	podKey  string
	id      string
	started time.Time
	partial []byte
}

func (r *attachRecorder) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.partial = append(r.partial, p...)
			break
		}
		r.line(string(bytes.TrimSuffix(append(r.partial, p[:i]...), []byte("\r"))))
		r.partial, p = r.partial[:0], p[i+1:]
	}
	return n, nil
}

func (r *attachRecorder) flush() {
	if len(r.partial) > 0 {
		r.line(string(r.partial))
		r.partial = nil
	}
}

func (r *attachRecorder) line(text string) {
	r.k.appendLog(r.podKey, r.id, r.started, text)
}

// withAttached adds to tl the lines attached sessions printed in the
// container instance id of the pod key.
func (k *Kubelet) withAttached(tl timeline, podKey, id string) timeline {
	k.simMu.Lock()
	lines := k.attached[podKey][id]
	k.simMu.Unlock()
	if len(lines) == 0 {
		return tl
	}
	merged := append(append([]logLine(nil), tl.lines...), lines...)
	sort.SliceStable(merged, func(i, j int) bool { return merged[i].at < merged[j].at })
	tl.lines = merged
	return tl
}
