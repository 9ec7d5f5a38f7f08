package kubelet

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"
	"unique"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/kubelet/containerenv"
	"github.com/kubesim/kubesim/kubelet/programs"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// A container's own command runs through kubelet/shell on a simulated
// clock: sleep moves the clock on instead of waiting, so a script is
// played out at once — `i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1));
// sleep 1; done` prints 0, 1, 2 at offsets 0s, 1s, 2s and exits 0 at 3s
// — and the kubelet reads the container's log, files and end from the
// timeline it leaves. Everything then happens on the cluster's clock, so
// step mode stays deterministic. A run is bounded: a script that has not
// ended after behaviourCommands commands is taken to run on, and is
// played further (to a later horizon, from the start) when its log is
// read past that point (up to logCommands more: past those it runs on
// printing nothing more); one that runs busyCommands commands without
// sleeping runs on printing nothing more.
//
// The network (nslookup, wget) cannot be asked ahead of time: the play
// stops at a network command whose offset the cluster's clock has not
// reached, and the kubelet plays the script again when it has (the pod
// loop wakes for it). A replay gives the commands before it the answers
// they had (replayNetwork), so what was printed stays printed: the init
// container's `until nslookup mydb; do echo waiting; sleep 2; done`
// waits until the Service exists.

const (
	// behaviourCommands bounds the run that decides how a container
	// behaves (does it exit, when, with what code).
	behaviourCommands = 10000
	// logCommands bounds a run played further for a log.
	logCommands = 2_000_000
	// busyCommands without a sleep between them: a loop that never
	// sleeps, which would print without end.
	busyCommands = 10000
)

// simulation is one play of a container's argv.
type simulation struct {
	env shell.Environment
	// start is the simulated clock's time at offset 0 (date prints it).
	start time.Time
	// horizon, when set, is the offset the run stops at.
	horizon time.Duration
	// maxCommands bounds the commands run.
	maxCommands int
	// net is the cluster's network (nil: none); answers are what its
	// earlier plays were told, in order, and liveUntil the offset up to
	// which a command may ask it.
	net       shell.Network
	answers   []netAnswer
	liveUntil time.Duration
	// image is the container's image, whose programs the shell runs
	// (known: kubesim knows the image).
	image programs.Image
	known bool
	// terminationPath is the file whose content, when the run ends, is
	// the container's termination message.
	terminationPath string
}

// play runs argv through the shell on a simulated clock and returns its
// timeline and the network's answers.
func (sim simulation) play(argv []string) (timeline, []netAnswer) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	vc := &virtualClock{start: sim.start, horizon: sim.horizon, stop: cancel}
	var tl timeline
	out := &lineRecorder{clock: vc, tl: &tl}
	layer := shell.NewLayer()
	layer.OnChange(func(p string, present bool) {
		spans := tl.files[p]
		if present {
			if tl.files == nil {
				// Most programs touch no file: no map for them.
				tl.files = map[string][]span{}
			}
			tl.files[p] = append(spans, span{from: vc.now, to: -1})
		} else if n := len(spans); n > 0 && spans[n-1].to < 0 {
			spans[n-1].to = vc.now
		}
	})
	env := sim.env
	env.Layer = layer
	if sim.known {
		env.Programs = sim.image.Programs(&playHost{clock: vc, tl: &tl})
	}
	var rn *replayNetwork
	if sim.net != nil {
		rn = &replayNetwork{live: sim.net, answers: sim.answers, clock: vc, liveUntil: sim.liveUntil, stop: cancel, tl: &tl}
		env.Network = rn
	}
	commands, sinceSleep, lastNow, busy := 0, 0, time.Duration(-1), false
	before := func() {
		commands++
		if vc.now != lastNow {
			lastNow, sinceSleep = vc.now, 0
		}
		sinceSleep++
		if sinceSleep > busyCommands {
			busy = true
			cancel()
		}
		if sim.maxCommands > 0 && commands > sim.maxCommands {
			cancel()
		}
	}
	code := shell.Command{Args: argv, Env: env, Stdio: shell.Stdio{Stdout: out, Stderr: out}, Clock: vc, BeforeCommand: before}.Run(ctx)
	tl.unterminated = len(out.partial) > 0
	out.flush()
	if sim.terminationPath != "" {
		if data, ok := shell.ReadFile(env, sim.terminationPath); ok {
			tl.terminationFile = string(data)
		}
	}
	tl.lines = tl.lines[max(len(tl.lines)-maxLogLines, 0):]
	var answers []netAnswer
	if rn != nil {
		answers = rn.answers
	}
	switch {
	case rn != nil && rn.halted:
		// What the script printed at the offset of the command that
		// waits is printed again by the replay, with the rest.
		tl.lines = slices.DeleteFunc(tl.lines, func(l logLine) bool { return l.at >= rn.at })
		tl.listeners = slices.DeleteFunc(tl.listeners, func(l listener) bool { return l.from >= rn.at })
		tl.known, tl.waitsOnNetwork = rn.at-1, true
	case ctx.Err() == nil:
		tl.exits, tl.exitAfter, tl.exitCode = true, vc.now, int32(code)
		for i := range tl.listeners {
			if tl.listeners[i].to < 0 {
				tl.listeners[i].to = vc.now // the process ended: its ports close
			}
		}
	case busy || vc.sleptForever:
		tl.forever = true
	case sim.maxCommands >= logCommands && !vc.atHorizon:
		// Even the longer play ran out of commands: the run goes on,
		// its log no further (playing again would cost as much each time).
		tl.forever = true
	default:
		// Stopped at the horizon or by the command budget.
		tl.known = vc.now
	}
	// The timeline is kept as long as the pod runs, in every pod of a
	// Deployment: its lines in a slice of their exact length, not one
	// grown by append with up to twice the room.
	tl.lines = slices.Clone(tl.lines)
	return tl, answers
}

// playHost is what a program of the image reaches in a simulated run: a
// port it listens on is recorded in the timeline from the run's offset.
type playHost struct {
	clock *virtualClock
	tl    *timeline
}

func (h *playHost) Listen(port int, s programs.Server) {
	h.tl.listeners = append(h.tl.listeners, listener{port: port, from: h.clock.now, to: -1, server: s})
}

// netAnswer is one answer of the network to a simulated run (or of the
// kubelet, for a file of a volume it keeps rewriting: data, found).
type netAnswer struct {
	fqdn  string
	addrs []string
	resp  shell.HTTPResponse
	err   error
	data  []byte
	found bool
}

// replayNetwork is the network as a simulated run sees it: the answers
// of the plays before, then the live network for commands at offsets
// the cluster's clock has reached; a command further ahead stops the
// run (halted, at its offset).
type replayNetwork struct {
	live      shell.Network
	answers   []netAnswer
	next      int
	clock     *virtualClock
	liveUntil time.Duration
	stop      func()
	tl        *timeline
	halted    bool
	at        time.Duration
}

func (n *replayNetwork) Nameserver() string { return n.live.Nameserver() }

// ask answers the next question: recalled, asked live, or (halted) none.
func (n *replayNetwork) ask(live func() netAnswer) netAnswer {
	if n.next < len(n.answers) {
		n.next++
		return n.answers[n.next-1]
	}
	if n.halted || n.clock.now > n.liveUntil {
		if !n.halted {
			n.halted, n.at = true, n.clock.now
			n.stop()
		}
		return netAnswer{err: context.Canceled}
	}
	a := live()
	n.answers = append(n.answers, a)
	n.next++
	return a
}

func (n *replayNetwork) LookupHost(ctx context.Context, name string) (string, []string, error) {
	a := n.ask(func() netAnswer {
		fqdn, addrs, err := n.live.LookupHost(ctx, name)
		return netAnswer{fqdn: fqdn, addrs: addrs, err: err}
	})
	return a.fqdn, a.addrs, a.err
}

// ReadVolumeFile reads a file of a volume the kubelet keeps rewriting as
// it is at the run's offset: like a network command's answer, recalled,
// read now, or (ahead of the cluster's clock) waited for.
func (n *replayNetwork) ReadVolumeFile(ctx context.Context, name string) ([]byte, bool) {
	lv, ok := n.live.(shell.LiveVolumes)
	if !ok {
		return nil, false
	}
	a := n.ask(func() netAnswer {
		data, found := lv.ReadVolumeFile(ctx, name)
		return netAnswer{data: data, found: found}
	})
	return a.data, a.found
}

func (n *replayNetwork) Ping(ctx context.Context, ip string) error {
	return n.ask(func() netAnswer { return netAnswer{err: n.live.Ping(ctx, ip)} }).err
}

func (n *replayNetwork) HTTPGet(ctx context.Context, req shell.HTTPRequest) (shell.HTTPResponse, error) {
	a := n.ask(func() netAnswer {
		resp, err := n.live.HTTPGet(ctx, req)
		return netAnswer{resp: resp, err: err}
	})
	return a.resp, a.err
}

// virtualClock is a simulated run's clock: After moves it on at once.
// Past the horizon (or for ever) it stops the run instead.
type virtualClock struct {
	start        time.Time
	now, horizon time.Duration
	stop         func()
	sleptForever bool
	atHorizon    bool
}

var _ clock.Clock = (*virtualClock)(nil)

func (v *virtualClock) Now() time.Time { return v.start.Add(v.now) }

func (v *virtualClock) After(d time.Duration) <-chan time.Time {
	switch {
	case d >= shell.Forever:
		v.sleptForever = true
		v.stop()
		return nil
	case v.horizon > 0 && v.now+d > v.horizon:
		v.now, v.atHorizon = v.horizon, true
		v.stop()
		return nil
	}
	v.now += d
	ch := make(chan time.Time, 1)
	ch <- v.Now()
	return ch
}

func (v *virtualClock) NewTimer(d time.Duration) clock.Timer { return virtualTimer{v.After(d)} }

type virtualTimer struct{ c <-chan time.Time }

func (t virtualTimer) C() <-chan time.Time { return t.c }
func (t virtualTimer) Stop() bool          { return false }

// lineRecorder cuts what the program writes into log lines, each at the
// simulated clock's offset when its end was written; it keeps the last
// lines only (maxLogLines), as the kubelet rotates a container's log.
type lineRecorder struct {
	clock   *virtualClock
	tl      *timeline
	partial []byte
}

func (r *lineRecorder) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := slices.Index(p, '\n')
		if i < 0 {
			r.partial = append(r.partial, p...)
			break
		}
		r.line(string(append(r.partial, p[:i]...)))
		r.partial, p = r.partial[:0], p[i+1:]
	}
	return n, nil
}

func (r *lineRecorder) line(text string) {
	// The same image prints the same lines in every pod of a Deployment
	// (nginx's notices differ only in their second): one copy of each
	// text is kept for all the containers that printed it.
	text = unique.Make(text).Value()
	r.tl.lines = append(r.tl.lines, logLine{at: r.clock.now, text: text})
	if len(r.tl.lines) >= 2*maxLogLines {
		r.tl.lines = append(r.tl.lines[:0], r.tl.lines[len(r.tl.lines)-maxLogLines:]...)
	}
}

// flush ends a last line written without its newline.
func (r *lineRecorder) flush() {
	if len(r.partial) > 0 {
		r.line(string(r.partial))
		r.partial = nil
	}
}

// containerEnv is what container c of pod sees (containerenv.Build), with
// the resolver the kubelet writes for a pod on the cluster's DNS.
func containerEnv(ctx context.Context, pod *corev1.Pod, c *corev1.Container, src containerenv.Sources) shell.Environment {
	env := containerenv.Build(ctx, pod, c, src)
	if img, ok := programs.Lookup(c.Image); ok {
		// An exec runs the image's programs too; their ports are the
		// container's own program's (a play binds them to its timeline).
		env.Programs = img.Programs(programs.NoHost{})
	}
	if p := pod.Spec.DNSPolicy; p == "" || p == corev1.DNSClusterFirst && !pod.Spec.HostNetwork || p == "ClusterFirstWithHostNet" {
		env.Files["/etc/resolv.conf"] = []byte(resolvConf(pod.Namespace))
	}
	return env
}

// simSources are the API server's objects for a container's own run,
// without a service account token: a TokenRequest for every script
// played would cost a write each, and the scripts courses write read
// the namespace file, not the token.
type simSources struct {
	envSources
	// overlays are the run's volumes, by name: one overlay for every
	// mount of a volume, so that what the run writes through one mount
	// (the directory of another's subPath) the other sees.
	overlays map[string]shell.Volume
}

// Volume gives the run its volumes through an overlay: it reads what
// they hold, and what it would write stays in its play (it is played
// ahead of the clock, maybe more than once).
func (s simSources) Volume(ctx context.Context, pod *corev1.Pod, vol *corev1.Volume) (shell.Volume, bool) {
	if o, ok := s.overlays[vol.Name]; ok {
		return o, true
	}
	v, ok := s.envSources.Volume(ctx, pod, vol)
	if !ok {
		return nil, false
	}
	o := shell.Overlay(v)
	if s.overlays != nil {
		s.overlays[vol.Name] = o
	}
	return o, true
}

func (simSources) ServiceAccountToken(context.Context, *corev1.Pod, string, *int64) (string, error) {
	return "", errors.New("no token for a simulated run")
}

// simKey is a container of a pod: the pod's key (ns/name) and the
// container's name.
type simKey struct{ pod, container string }

// simEntry is the timeline played for a container's spec.
type simEntry struct {
	uid, image string
	// podIP is the pod's address the run saw (its downward API's
	// status.podIP): the status that first gives it is written with the
	// containers' start, after a first play.
	podIP   string
	argv    []string
	start   time.Time
	tl      timeline
	answers []netAnswer
}

// timeline is what container c of pod does, played at least up to
// offset upTo when it runs that long: played once, then kept (by the
// pod, the container's name, its image and argv) until the pod goes.
// Not to be called with stateMu held: the run may reach a pod of this
// node over the network (simulatedHTTP).
func (k *Kubelet) timeline(pod *corev1.Pod, c *corev1.Container, upTo time.Duration) timeline {
	p := programFor(pod, c)
	switch {
	case p.startErr != "":
		return startFailed(p.startErr)
	case p.server:
		return timeline{forever: true}
	}
	podKey := pod.Namespace + "/" + pod.Name
	k.simMu.Lock()
	key := simKey{pod: podKey, container: c.Name}
	e := k.sims[key]
	if e != nil && (e.uid != string(pod.UID) || e.image != c.Image || !slices.Equal(e.argv, p.argv)) {
		e = nil
	}
	var replayFrom *simEntry
	if e != nil && e.podIP != pod.Status.PodIP {
		// The same run, now with the pod's address: played again from
		// its start.
		replayFrom, e = e, nil
	}
	if e != nil && e.tl.covers(upTo) {
		tl := e.tl
		k.simMu.Unlock()
		return tl
	}
	k.simMu.Unlock()
	ctx := context.Background()
	if pod.Status.HostIP == "" {
		// The node's address, which the status written with the
		// containers' start gives (the downward API's status.hostIP).
		pod = pod.DeepCopy()
		pod.Status.HostIP = k.cfg.InternalIP
		pod.Status.HostIPs = []corev1.HostIP{{IP: k.cfg.InternalIP}}
	}
	env := containerEnv(ctx, pod, c, simSources{envSources: k.envSources(true), overlays: map[string]shell.Volume{}})
	k.addDeviceEnv(&env, pod, c) // devices.go
	sim := simulation{env: env, start: k.cfg.Clock.Now(), maxCommands: behaviourCommands,
		net: clusterNetwork{k: k, pod: pod, container: c.Name}, liveUntil: upTo, image: p.image, known: p.known, terminationPath: containerenv.TerminationPath(c)}
	switch {
	case replayFrom != nil:
		sim.start, sim.answers = replayFrom.start, replayFrom.answers
	case e != nil && e.tl.waitsOnNetwork:
		// The clock has reached the command that waited: again, with
		// the answers the commands before it had.
		sim.start, sim.answers = e.start, e.answers
		if upTo > time.Minute {
			sim.horizon, sim.maxCommands = upTo, logCommands
		}
	case e != nil:
		// Played further: from the start again, to twice as far.
		sim.start, sim.answers, sim.horizon, sim.maxCommands = e.start, e.answers, max(upTo, 2*e.tl.known, time.Minute), logCommands
	}
	tl, answers := sim.play(containerenv.ExpandCommand(p.argv, c, env.Env))
	k.simMu.Lock()
	if k.sims == nil {
		k.sims = map[simKey]*simEntry{}
	}
	k.sims[key] = &simEntry{uid: string(pod.UID), image: c.Image, podIP: pod.Status.PodIP, argv: p.argv, start: sim.start, tl: tl, answers: answers}
	k.simMu.Unlock()
	return tl
}

// forgetTimelines drops the timelines of the pod key (ns/name): it is
// gone from this node.
func (k *Kubelet) forgetTimelines(podKey string) {
	k.simMu.Lock()
	defer k.simMu.Unlock()
	maps.DeleteFunc(k.sims, func(key simKey, _ *simEntry) bool { return key.pod == podKey })
	delete(k.attached, podKey)
	delete(k.memories, podKey)
}
