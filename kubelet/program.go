package kubelet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/kubelet/containerenv"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// What a simulated container does is read from its image, command and
// args (docs/containers.md): the argv its image's entrypoint would run
// is given to kubelet/shell — the same interpreter `kubectl exec` and
// `kubectl attach` use — and played out on a simulated clock
// (simulation.go): the lines it printed at offsets from the container's
// start, the files it made and removed (for exec probes), and how it
// ended.

// Well-known images whose behaviour is built in.
const (
	// SleepImage sleeps for its first argument (a duration such as 30s,
	// or seconds) and exits 0; with no argument it runs until killed.
	SleepImage = "kubesim/sleep"
	// FailImage exits with code 1 (or its second argument) after its
	// first argument (1s by default), saying so.
	FailImage = "kubesim/fail"
)

// shellImages run `sh` when given no command: with nothing on its
// standard input, the shell exits 0 at once (kubectl run x --image=busybox
// completes and is restarted, as on a real node).
var shellImages = []string{"busybox", "alpine", "ubuntu", "debian", "bash", "centos", "fedora",
	"radial/busyboxplus"} // the Connecting Applications with Services tutorial's curl image

// program is what a simulated container runs: argv through the shell,
// or a server that runs until killed.
type program struct {
	// argv is run by the shell; empty for a server.
	argv []string
	// server: the container runs until killed (a server image, a binary
	// the simulation does not know).
	server bool
}

// logLine is one line printed, at an offset from the container's start.
type logLine struct {
	at   time.Duration
	text string
}

// span is when a file of the container's layer exists: from an offset
// to another (-1: still there).
type span struct{ from, to time.Duration }

// timeline is a program run out on a simulated clock: what it printed,
// the files it made and removed, and how it ended.
type timeline struct {
	// lines are the last maxLogLines lines printed, in order.
	lines []logLine
	// files: when each file of the container's layer exists.
	files map[string][]span
	// exits: the program ends by itself, after exitAfter with exitCode.
	exits     bool
	exitAfter time.Duration
	exitCode  int32
	// known is how far the run was played out when it did not end: what
	// it does after that is worked out when asked (played out again to a
	// later horizon). forever: it runs on with nothing more to say (a
	// server, sleep infinity, a loop that never sleeps).
	known   time.Duration
	forever bool
	// waitsOnNetwork: the run stopped at a network command at offset
	// known+1ns, which the cluster's clock had not reached.
	waitsOnNetwork bool
}

// covers reports whether the timeline says what happens up to offset t.
func (tl timeline) covers(t time.Duration) bool {
	return tl.exits || tl.forever || t <= tl.known
}

// fileExists reports whether the program's file is there at offset t.
func (tl timeline) fileExists(name string, t time.Duration) bool {
	for _, s := range tl.files[name] {
		if t >= s.from && (s.to < 0 || t < s.to) {
			return true
		}
	}
	return false
}

// fileChanges are the offsets where some file appears or goes.
func (tl timeline) fileChanges() []time.Duration {
	var out []time.Duration
	for _, spans := range tl.files {
		for _, s := range spans {
			out = append(out, s.from)
			if s.to >= 0 {
				out = append(out, s.to)
			}
		}
	}
	return out
}

// linesUpTo are the lines printed by offset end (inclusive), at most the
// last max of them: a long-running loop's log is rotated, not kept whole.
func (tl timeline) linesUpTo(end time.Duration, max int) []logLine {
	n := sort.Search(len(tl.lines), func(i int) bool { return tl.lines[i].at > end })
	out := tl.lines[:n]
	if len(out) > max {
		out = out[len(out)-max:]
	}
	return out
}

// programFor reads what container c of pod runs from its image, command
// and args: the argv the image's entrypoint would run, for the shell when
// it starts with one of the shell's programs.
func programFor(pod *corev1.Pod, c *corev1.Container) program {
	repo := imageRepo(c.Image)
	argv := append(append([]string(nil), c.Command...), c.Args...)
	switch repo {
	case SleepImage:
		if len(c.Command) == 0 {
			if len(argv) == 0 {
				return program{server: true}
			}
			d := parseSleep(argv[0])
			if d < 0 {
				return program{server: true}
			}
			return program{argv: []string{"sleep", seconds(d)}}
		}
	case FailImage:
		if len(c.Command) == 0 {
			after, code := time.Second, int32(1)
			if len(argv) > 0 {
				if d := parseSleep(argv[0]); d >= 0 {
					after = d
				}
			}
			if len(argv) > 1 {
				if n, err := strconv.Atoi(argv[1]); err == nil && n > 0 && n < 256 {
					code = int32(n)
				}
			}
			script := fmt.Sprintf("echo 'failing in %s with exit code %d'; sleep %s; echo failed; exit %d",
				after, code, seconds(after), code)
			return program{argv: []string{"sh", "-c", script}}
		}
	}
	if interactive(pod, c) {
		// A shell with its stdin held open waits for input: it runs
		// until an attached session ends it (interactive.go).
		return program{server: true}
	}
	if len(argv) == 0 {
		if isShellImage(repo) {
			return program{argv: []string{"sh"}} // nothing to read: exits 0 at once
		}
		return unknownProgram(pod, c)
	}
	switch path.Base(argv[0]) {
	case "ash", "dash", "bash":
		// Scripts written for bash run as sh, in every image.
		argv = append([]string{"sh"}, argv[1:]...)
	}
	if !shell.Known(argv[0]) && !(path.Base(argv[0]) == "curl" && containerenv.HasCurl(c.Image)) {
		return unknownProgram(pod, c)
	}
	return program{argv: argv}
}

// unknownProgram is what a binary the simulation does not know does (an
// image's own entrypoint, a server's own binary). In a container it runs
// until killed, as servers do. In an init container (not a sidecar) it
// ends with 0 at once: an init container is a step that must finish
// before the pod starts (a chart's "wait for the database" or "prepare the
// certificates" image), and a pod whose steps never ended would never
// start. A script written for the shell says when it fails instead.
func unknownProgram(pod *corev1.Pod, c *corev1.Container) program {
	if isPlainInitContainer(pod, c) {
		return program{argv: []string{"true"}}
	}
	return program{server: true}
}

// isPlainInitContainer reports whether c is one of pod's init containers
// that runs to completion (restartPolicy Always makes it a sidecar).
func isPlainInitContainer(pod *corev1.Pod, c *corev1.Container) bool {
	for i := range pod.Spec.InitContainers {
		ic := &pod.Spec.InitContainers[i]
		if ic.Name == c.Name {
			return ic.RestartPolicy == nil || *ic.RestartPolicy != corev1.ContainerRestartPolicyAlways
		}
	}
	return false
}

// seconds writes d as sleep's operand.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// offlineSources answer a container's references without an API server
// (the unit tests' timelines): nothing is found.
type offlineSources struct{}

func (offlineSources) ConfigMap(context.Context, string, string) (*corev1.ConfigMap, error) {
	return nil, errors.New("offline")
}

func (offlineSources) Secret(context.Context, string, string) (*corev1.Secret, error) {
	return nil, errors.New("offline")
}

func (offlineSources) ServiceAccountToken(context.Context, *corev1.Pod, string, *int64) (string, error) {
	return "", errors.New("offline")
}

func (offlineSources) Services(context.Context, string) ([]corev1.Service, error) {
	return nil, errors.New("offline")
}

// run plays the program out from the Unix epoch, with the container's
// environment as far as it needs no API server and no network (the unit
// tests' timelines).
func (p program) run(pod *corev1.Pod, c *corev1.Container) timeline {
	if p.server {
		return timeline{forever: true}
	}
	env := containerEnv(context.Background(), pod, c, offlineSources{})
	tl, _ := simulation{env: env, start: time.Unix(0, 0), maxCommands: behaviourCommands}.play(containerenv.ExpandCommand(p.argv, c, env.Env))
	return tl
}

// parseSleep reads sleep's operand: seconds (maybe fractional), a
// duration with s, m, h or d, or infinity (-1: forever).
func parseSleep(s string) time.Duration {
	if s == "infinity" || s == "inf" {
		return -1
	}
	mult := time.Second
	switch {
	case strings.HasSuffix(s, "d"):
		mult, s = 24*time.Hour, strings.TrimSuffix(s, "d")
	case strings.HasSuffix(s, "h"):
		mult, s = time.Hour, strings.TrimSuffix(s, "h")
	case strings.HasSuffix(s, "m"):
		mult, s = time.Minute, strings.TrimSuffix(s, "m")
	case strings.HasSuffix(s, "s"):
		s = strings.TrimSuffix(s, "s")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0
	}
	if f*float64(mult) > float64(100*365*24*time.Hour) {
		return -1
	}
	return time.Duration(f * float64(mult))
}

// imageRepo is the image's name without registry, tag or digest, with
// the docker.io/library prefix dropped: "busybox:1.36" → "busybox",
// "docker.io/kubesim/sleep" → "kubesim/sleep".
func imageRepo(image string) string {
	name, _, _ := strings.Cut(image, "@")
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		name = name[:i]
	}
	name = strings.TrimPrefix(name, "docker.io/")
	name = strings.TrimPrefix(name, "library/")
	return name
}

func isShellImage(repo string) bool {
	for _, s := range shellImages {
		if repo == s {
			return true
		}
	}
	return false
}
