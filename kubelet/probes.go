package kubelet

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/kubelet/programs"
)

// containerBehaviour is how one container behaves, decided by its pod:
// the program its command runs (what it prints, when it ends), overridden
// by the pod's behaviour annotation, and its probes.
type containerBehaviour struct {
	tl        timeline
	exits     bool
	exitAfter time.Duration
	exitCode  int32
	// startErr: the runtime cannot start the program; the container
	// ends at once with StartError (the annotation cannot change that).
	startErr string
	// liveness and readiness are the probes' verdicts as flips over the
	// container's life (nil: no probe). readiness without a probe is
	// Stages.Ready after start.
	liveness, readiness []flip
	// livenessFailures are the offsets of the liveness probe's failed
	// results, up to the one that kills the container: an Unhealthy event
	// each, as the prober records every failure.
	livenessFailures []time.Duration
	// livenessOutput and readinessOutput are what a failing probe says,
	// for the Unhealthy event.
	livenessOutput, readinessOutput string
}

// flip is a probe's verdict changing at an offset from the container's
// start.
type flip struct {
	at time.Duration
	ok bool
}

// probeSpec is a probe's timing, with Kubernetes' defaults, and what it
// answers at an offset from the container's start.
type probeSpec struct {
	initialDelay, period time.Duration
	failure, success     int
	ok                   func(time.Duration) bool
	// changes are the offsets where ok may change.
	changes []time.Duration
}

func newProbeSpec(p *corev1.Probe, tl timeline, failAfter time.Duration) probeSpec {
	s := probeSpec{initialDelay: time.Duration(p.InitialDelaySeconds) * time.Second,
		period: time.Duration(p.PeriodSeconds) * time.Second, failure: int(p.FailureThreshold), success: int(p.SuccessThreshold)}
	if s.period <= 0 {
		s.period = 10 * time.Second
	}
	if s.failure <= 0 {
		s.failure = 3
	}
	if s.success <= 0 {
		s.success = 1
	}
	s.ok = func(time.Duration) bool { return true }
	if p.Exec != nil {
		if file, ok := probedFile(p.Exec.Command); ok {
			s.ok = func(t time.Duration) bool { return tl.fileExists(file, t) }
			s.changes = tl.fileChanges()
		} else if probeFails(p.Exec.Command) {
			s.ok = func(time.Duration) bool { return false }
		}
	}
	if failAfter > 0 {
		inner := s.ok
		s.ok = func(t time.Duration) bool { return t < failAfter && inner(t) }
		s.changes = append(s.changes, failAfter)
	}
	return s
}

// probedFile reads the exec probes courses write: cat FILE, test -e FILE,
// ls FILE, also inside sh -c.
func probedFile(cmd []string) (string, bool) {
	if len(cmd) >= 3 && (cmd[0] == "sh" || cmd[0] == "/bin/sh" || cmd[0] == "bash") && cmd[1] == "-c" {
		cmd = strings.Fields(cmd[2])
	}
	switch {
	case len(cmd) == 2 && (cmd[0] == "cat" || cmd[0] == "ls" || cmd[0] == "stat"):
		return cmd[1], true
	case len(cmd) == 3 && (cmd[0] == "test" || cmd[0] == "[") && (cmd[1] == "-e" || cmd[1] == "-f"):
		return cmd[2], true
	}
	return "", false
}

// probeFails: an exec probe that can only fail.
func probeFails(cmd []string) bool {
	if len(cmd) >= 3 && (cmd[0] == "sh" || cmd[0] == "/bin/sh") && cmd[1] == "-c" {
		cmd = strings.Fields(cmd[2])
	}
	return len(cmd) > 0 && (cmd[0] == "false" || (cmd[0] == "exit" && len(cmd) > 1 && cmd[1] != "0"))
}

// maxProbeHorizon bounds how far probe verdicts are worked out: a file
// that changes later than this is not looked at.
const maxProbeHorizon = 24 * time.Hour

// probeFlips works out when a probe's verdict flips over the container's
// life (the prober's worker: a result every period from initialDelay,
// flipping after failure consecutive failures or success consecutive
// successes), starting from initial.
func probeFlips(s probeSpec, initial bool) []flip {
	flips, _ := probeRun(s, initial)
	return flips
}

// probeRun is probeFlips with the offsets of the failed results until the
// verdict first turns to failure (that result included).
func probeRun(s probeSpec, initial bool) ([]flip, []time.Duration) {
	last := time.Duration(0)
	for _, c := range s.changes {
		if c > last && c <= maxProbeHorizon {
			last = c
		}
	}
	horizon := last + s.initialDelay + s.period*time.Duration(max(s.failure, s.success)+2)
	var out []flip
	var failures []time.Duration
	failed := false // the verdict has turned to failure once
	state, fails, succs := initial, 0, 0
	for t := s.initialDelay; t <= horizon; t += s.period {
		if s.ok(t) {
			succs, fails = succs+1, 0
			if !state && succs >= s.success {
				state = true
				out = append(out, flip{t, true})
			}
		} else {
			fails, succs = fails+1, 0
			if !failed {
				failures = append(failures, t)
			}
			if state && fails >= s.failure {
				state, failed = false, true
				out = append(out, flip{t, false})
			}
		}
	}
	return out, failures
}

// verdictAt is the probe's verdict at offset t, from its flips.
func verdictAt(flips []flip, initial bool, t time.Duration) bool {
	v := initial
	for _, f := range flips {
		if f.at > t {
			break
		}
		v = f.ok
	}
	return v
}

// nextFlip is the first flip after offset t to a verdict other than cur.
func nextFlip(flips []flip, cur bool, t time.Duration) (time.Duration, bool) {
	for _, f := range flips {
		if f.at > t && f.ok != cur {
			return f.at, true
		}
	}
	return 0, false
}

// behaviourOf decides how container c behaves: the timeline of its
// command (tl), with the pod's annotation winning for the pod's containers
// (not its init containers), and its probes.
func behaviourOf(c *corev1.Container, tl timeline, isInit bool, pb PodBehaviour, ready time.Duration) containerBehaviour {
	b := containerBehaviour{tl: tl}
	b.exits, b.exitAfter, b.exitCode = b.tl.exits, b.tl.exitAfter, b.tl.exitCode
	if tl.startErr != "" {
		// No process, no probes: the runtime reports the failure.
		b.startErr = tl.startErr
		b.readiness = []flip{}
		return b
	}
	if !isInit && pb.Exits() {
		b.exits, b.exitAfter, b.exitCode = true, pb.ExitAfter, pb.ExitCode
	}
	if p := c.LivenessProbe; p != nil || pb.LivenessFailAfter > 0 {
		if p == nil {
			p = &corev1.Probe{}
		}
		b.liveness, b.livenessFailures = probeRun(newProbeSpec(p, b.tl, earliest(pb.LivenessFailAfter, serverFailAfter(c, b.tl, p))), true)
		b.livenessOutput = probeOutput(p)
	}
	if p := c.ReadinessProbe; p != nil || pb.ReadinessFailAfter > 0 {
		if p == nil {
			p = &corev1.Probe{InitialDelaySeconds: int32(ready / time.Second)}
		}
		b.readiness = probeFlips(newProbeSpec(p, b.tl, earliest(pb.ReadinessFailAfter, serverFailAfter(c, b.tl, p))), false)
		b.readinessOutput = probeOutput(p)
	} else {
		b.readiness = []flip{{ready, true}}
	}
	return b
}

// serverFailAfter is when the server of c's program starts failing HTTP
// probe p (0: never), if the program listens on the probe's port with a
// server whose answer turns (programs.Unhealthy: agnhost liveness, the
// liveness tutorial's HTTP example, fails /healthz after 10 seconds).
// Any other HTTP probe succeeds, as before.
func serverFailAfter(c *corev1.Container, tl timeline, p *corev1.Probe) time.Duration {
	h := p.HTTPGet
	if h == nil {
		return 0
	}
	port := h.Port.IntValue()
	if h.Port.Type == intstr.String {
		for _, cp := range c.Ports {
			if cp.Name == h.Port.StrVal {
				port = int(cp.ContainerPort)
			}
		}
	}
	for _, l := range tl.listeners {
		if l.port != port {
			continue
		}
		if u, ok := l.server.(programs.Unhealthy); ok {
			if after, ok := u.FailsAfter(h.Path); ok {
				return l.from + after
			}
		}
	}
	return 0
}

// earliest is the earlier of two failure offsets, 0 meaning never.
func earliest(a, b time.Duration) time.Duration {
	if a == 0 || b != 0 && b < a {
		return b
	}
	return a
}

// killAt is when liveness kills the container (an offset), if it does.
func (b containerBehaviour) killAt() (time.Duration, bool) {
	return nextFlip(b.liveness, true, -1)
}

// probeOutput is what a failing probe of that kind reports, worded as
// the prober and busybox word it.
func probeOutput(p *corev1.Probe) string {
	switch {
	case p.Exec != nil:
		if file, ok := probedFile(p.Exec.Command); ok {
			return fmt.Sprintf("%s: can't open '%s': No such file or directory", p.Exec.Command[0], file)
		}
		return ""
	case p.HTTPGet != nil:
		return "HTTP probe failed with statuscode: 500"
	case p.TCPSocket != nil:
		return "dial tcp: connect: connection refused"
	}
	return ""
}
