package kubelet

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// BehaviourAnnotation lets a manifest say how its simulated containers
// behave, so scenario files and kubectl users need no Go:
// "crash-after=5s", "exit-after=3s", "exit-code=1,exit-after=3s",
// "liveness-fail-after=30s", "readiness-fail-after=10s", "stop-after=45s".
// It wins over what the containers' command says (docs/containers.md).
const BehaviourAnnotation = "kubesim.io/behaviour"

// PodBehaviour is how the simulated containers of a pod behave once
// started.
type PodBehaviour struct {
	// ExitAfter is how long each container runs before it exits; zero
	// means it runs until the pod is deleted.
	ExitAfter time.Duration
	// ExitCode is the code of that exit: 0 completes, anything else is a
	// failure (a crash).
	ExitCode int32
	// LivenessFailAfter and ReadinessFailAfter, when set, make the
	// container's liveness or readiness probe (whatever it checks) fail
	// from that long after the container starts.
	LivenessFailAfter, ReadinessFailAfter time.Duration
	// StopAfter, when set, is how long the containers take to stop once
	// told to (SIGTERM); past the pod's grace period they are killed.
	StopAfter time.Duration
}

// Exits reports whether the containers exit by themselves.
func (b PodBehaviour) Exits() bool { return b.ExitAfter > 0 }

// DefaultBehaviour reads the pod's BehaviourAnnotation; a pod without it,
// or with a value ParseBehaviour refuses, runs until deleted.
func DefaultBehaviour(pod *corev1.Pod) PodBehaviour {
	b, err := ParseBehaviour(pod.Annotations[BehaviourAnnotation])
	if err != nil {
		return PodBehaviour{}
	}
	return b
}

// ParseBehaviour parses the BehaviourAnnotation value: comma-separated
// key=value items among crash-after=<duration> (exit with code 1 after
// that long), exit-after=<duration> (exit with code 0, or exit-code) and
// exit-code=<0..255>. The empty string is the default behaviour.
func ParseBehaviour(s string) (PodBehaviour, error) {
	var b PodBehaviour
	if strings.TrimSpace(s) == "" {
		return b, nil
	}
	codeSet, crash, after := false, false, false
	for _, item := range strings.Split(s, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || value == "" {
			return PodBehaviour{}, fmt.Errorf("invalid behaviour item %q: want key=value", item)
		}
		switch key {
		case "crash-after", "exit-after":
			if after {
				return PodBehaviour{}, fmt.Errorf("invalid behaviour %q: crash-after and exit-after given more than once", s)
			}
			d, err := time.ParseDuration(value)
			if err != nil || d <= 0 {
				return PodBehaviour{}, fmt.Errorf("invalid %s %q: want a positive duration such as 5s", key, value)
			}
			b.ExitAfter, after, crash = d, true, key == "crash-after"
		case "liveness-fail-after", "readiness-fail-after", "stop-after":
			d, err := time.ParseDuration(value)
			if err != nil || d <= 0 {
				return PodBehaviour{}, fmt.Errorf("invalid %s %q: want a positive duration such as 5s", key, value)
			}
			switch key {
			case "liveness-fail-after":
				b.LivenessFailAfter = d
			case "readiness-fail-after":
				b.ReadinessFailAfter = d
			default:
				b.StopAfter = d
			}
		case "exit-code":
			n, err := strconv.ParseInt(value, 10, 32)
			if err != nil || n < 0 || n > 255 {
				return PodBehaviour{}, fmt.Errorf("invalid exit-code %q: want an integer from 0 to 255", value)
			}
			b.ExitCode, codeSet = int32(n), true
		default:
			return PodBehaviour{}, fmt.Errorf("unknown behaviour key %q: want crash-after, exit-after, exit-code, liveness-fail-after, readiness-fail-after or stop-after", key)
		}
	}
	if !after && codeSet {
		return PodBehaviour{}, fmt.Errorf("invalid behaviour %q: exit-code needs exit-after", s)
	}
	if crash && !codeSet {
		b.ExitCode = 1
	}
	if crash && b.ExitCode == 0 {
		return PodBehaviour{}, fmt.Errorf("invalid behaviour %q: a crash needs a non-zero exit-code", s)
	}
	return b, nil
}
