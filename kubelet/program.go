package kubelet

import (
	"context"
	"errors"
	"path"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/kubelet/containerenv"
	"github.com/kubesim/kubesim/kubelet/programs"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// What a simulated container does is read from its image, command and
// args (docs/containers.md): the argv its image's entrypoint would run
// is given to kubelet/shell — the same interpreter `kubectl exec` and
// `kubectl attach` use — and played out on a simulated clock
// (simulation.go): the lines it printed at offsets from the container's
// start, the files it made and removed (for exec probes), and how it
// ended.

// Well-known images whose behaviour is built in (package programs).
const (
	// SleepImage sleeps for its first argument (a duration such as 30s,
	// or seconds) and exits 0; with no argument it runs until killed.
	SleepImage = programs.SleepImage
	// FailImage exits with code 1 (or its second argument) after its
	// first argument (1s by default), saying so.
	FailImage = programs.FailImage
)

// program is what a simulated container runs: argv through the shell
// with its image's programs, a server that runs until killed, or nothing
// at all when the runtime cannot start it.
type program struct {
	// argv is run by the shell; empty for a server.
	argv []string
	// image is what kubesim knows of the container's image (its
	// programs); known is false for an image it does not know.
	image programs.Image
	known bool
	// server: the container runs until killed (an image kubesim does
	// not know, running its own program).
	server bool
	// startErr, when set, is the runtime's error: the process never
	// starts (StartError, exit code 128).
	startErr string
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
	// startErr: the runtime could not start the program (the image does
	// not have it); the container ends at once with StartError.
	startErr string
	// listeners are the ports the program listens on, and when.
	listeners []listener
	// terminationFile is what the program left in its container's
	// terminationMessagePath when it ended (termination.go);
	// unterminated: its last line has no newline.
	terminationFile string
	unterminated    bool
}

// listener is a port a program listens on from an offset to another
// (-1: until it ends), served by server.
type listener struct {
	port     int
	from, to time.Duration
	server   programs.Server
}

// listening is the server of port at offset t, if the program listens
// there then.
func (tl timeline) listening(port int, t time.Duration) (programs.Server, bool) {
	for _, l := range tl.listeners {
		if l.port == port && t >= l.from && (l.to < 0 || t < l.to) {
			return l.server, true
		}
	}
	return nil, false
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
// and args. For an image kubesim knows (package programs) it is what the
// runtime runs — command replacing the image's entrypoint, args its cmd —
// if the image has that program, and the runtime's StartError if not. An
// image kubesim does not know runs the shell's programs when its command
// names one, and its own program otherwise (unknownProgram).
func programFor(pod *corev1.Pod, c *corev1.Container) program {
	img, known := programs.Lookup(c.Image)
	if known && !img.Unplayed {
		argv := img.Argv(c.Command, c.Args)
		if !img.Has(argv[0]) {
			return program{startErr: programs.StartError(argv[0])}
		}
		if interactive(pod, c) {
			return program{server: true} // interactive.go
		}
		switch path.Base(argv[0]) {
		case "ash", "dash":
			// The image has it: the shell runs the script (as sh).
			argv = append([]string{"sh"}, argv[1:]...)
		case "bash":
			// The image has it: bash's dialect and words (brace
			// expansion, "command not found").
			argv = append([]string{"bash"}, argv[1:]...)
		}
		return program{argv: argv, image: img, known: true}
	}
	if interactive(pod, c) {
		// A shell with its stdin held open waits for input: it runs
		// until an attached session ends it (interactive.go).
		return program{server: true}
	}
	argv := append(append([]string(nil), c.Command...), c.Args...)
	if len(argv) == 0 {
		return unknownProgram(pod, c)
	}
	switch path.Base(argv[0]) {
	case "ash", "dash", "bash":
		// Scripts written for bash run as sh.
		argv = append([]string{"sh"}, argv[1:]...)
	}
	if !shell.Known(argv[0]) {
		return unknownProgram(pod, c)
	}
	return program{argv: argv}
}

// unknownProgram is what the program of an image kubesim does not know
// does (the image's own entrypoint, a chart's controller, your
// application's binary): kubesim cannot tell what is in the image, so it
// takes the program to be the image's purpose. In a container it serves
// until killed. In an init container (not a sidecar) it ends with 0 at
// once: an init container is a step that must finish before the pod
// starts (a chart's "wait for the database" or "prepare the
// certificates" image), and a pod whose steps never ended would never
// start. The images kubesim knows say instead what their programs do,
// and a program they do not have fails to start.
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

func (offlineSources) NodeAllocatable() corev1.ResourceList { return nil }

func (offlineSources) Service(context.Context, string, string) (*corev1.Service, error) {
	return nil, errors.New("offline")
}

func (offlineSources) Services(context.Context, string) ([]*corev1.Service, error) {
	return nil, errors.New("offline")
}

// run plays the program out from the Unix epoch, with the container's
// environment as far as it needs no API server and no network (the unit
// tests' timelines).
func (p program) run(pod *corev1.Pod, c *corev1.Container) timeline {
	return p.runWith(pod, c, offlineSources{})
}

// runWith is run with the objects src holds (ConfigMaps, Secrets, the
// node's allocatable, the volumes' storage).
func (p program) runWith(pod *corev1.Pod, c *corev1.Container, src containerenv.Sources) timeline {
	switch {
	case p.startErr != "":
		return startFailed(p.startErr)
	case p.server:
		return timeline{forever: true}
	}
	env := containerEnv(context.Background(), pod, c, src)
	tl, _ := simulation{env: env, start: time.Unix(0, 0), maxCommands: behaviourCommands, image: p.image, known: p.known,
		terminationPath: containerenv.TerminationPath(c)}.play(containerenv.ExpandCommand(p.argv, c, env.Env))
	return tl
}

// startFailed is the timeline of a program the runtime could not start:
// it ends at once, with the runtime's code and error.
func startFailed(err string) timeline {
	return timeline{exits: true, exitCode: programs.ExitStartError, startErr: err}
}

// defaultShell says whether the image's own command is a shell
// (busybox, alpine, ubuntu…): `kubectl run -i --image=busybox` gets a
// prompt.
func defaultShell(image string) bool {
	img, ok := programs.Lookup(image)
	if !ok || img.Unplayed {
		return false
	}
	argv := img.Argv(nil, nil)
	last := path.Base(argv[len(argv)-1])
	return last == "sh" || last == "bash"
}
