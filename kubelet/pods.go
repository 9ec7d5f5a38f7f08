package kubelet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/jsoncodec"
	"github.com/kubesim/kubesim/client/record"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet/cni"
	"github.com/kubesim/kubesim/kubelet/images"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// stage is where a pod is in its life on this node.
type stage int

const (
	// stageAccepted: seen, nothing posted yet.
	stageAccepted stage = iota
	// stageCreating: containers waiting in ContainerCreating.
	stageCreating
	// stageStarted: containers exist (running, restarting or exited).
	stageStarted
	// stageTerminal: every container exited for good; the phase is
	// Succeeded or Failed and nothing changes any more.
	stageTerminal
)

type containerState int

const (
	containerWaiting containerState = iota
	containerRunning
	containerTerminated
)

// containerRuntime is one simulated container, what a container runtime
// would report about it.
type containerRuntime struct {
	name, image    string
	state          containerState
	waitingReason  string
	waitingMessage string
	startedAt      time.Time
	finishedAt     time.Time
	exitCode       int32
	termReason     string
	ready          bool
	everStarted    bool
	restarts       int32
	last           *corev1.ContainerStateTerminated
	backoffUntil   time.Time
	id             string
	// init: an init container; sidecar: one with restartPolicy Always;
	// ephemeral: added by kubectl debug (ephemeral.go).
	init, sidecar, ephemeral bool
	// backOff is the container's restart back-off entry (backoff.go).
	backOff backOffEntry
	// livenessFailures counts the failed liveness probes of the current
	// run the kubelet has reported (an Unhealthy event each).
	livenessFailures int
	// layer is the writable layer of the current run, made by the first
	// exec (kubectl cp); a restart starts with none.
	layer *shell.Layer
	// exited is set when the current run's process ended by itself (an
	// attached shell typed exit): it wins over the behaviour's exit.
	exited *processExit
	// pull is the pull of its image under way (pulls.go); pullBackoff
	// the image's pull back-off; imageID the image it runs, by digest.
	pull        *images.Pull
	pullBackoff images.Backoff
	imageID     string
	// termMessage is the terminated state's message; startFailed says the
	// runtime could not start the process (StartError), which therefore
	// never had a start time.
	termMessage string
	startFailed bool
}

// starting reports whether c was given its start: it ran, or waits for
// its image or a back-off.
func (c *containerRuntime) starting() bool {
	return c.everStarted || !c.backoffUntil.IsZero() || c.pull != nil
}

// done reports whether an init container lets the next one start: it
// completed, or it is a sidecar that has started.
func (c *containerRuntime) done() bool {
	if c.sidecar {
		return c.state == containerRunning || (c.everStarted && c.state == containerWaiting)
	}
	return c.state == containerTerminated && c.exitCode == 0
}

// podRuntime is the simulated sandbox of one pod: the kubelet's memory of
// what it did, from which the pod status is rendered.
type podRuntime struct {
	uid       types.UID
	seenAt    time.Time
	stage     stage
	stageAt   time.Time
	startTime time.Time
	ip        string
	ipHeld    bool
	// sandbox is the sandbox's network as the CNI plugins set it up
	// (nil without Config.CNI, or before ADD succeeded).
	sandbox *cni.Sandbox
	// containers are the init containers in order, then the pod's.
	containers []containerRuntime
	// initialized: every init container is done and the pod's containers
	// have started.
	initialized bool
	killing     bool
	killAt      time.Time
	// startObserved: the pod's start duration was measured (metrics.go),
	// once, when its containers first ran with every image pulled.
	startObserved bool
}

func (r *podRuntime) clone() *podRuntime {
	cp := *r
	cp.containers = slices.Clone(r.containers)
	return &cp
}

// transition is the kind of the next change of a pod.
type transition int

const (
	toCreating transition = iota
	toRunning
	toReady
	toExit
	toRestart
	// toReplace: the pod's spec names another image for a started
	// container (kubectl set image on a pod); it is killed and started
	// again from the new image.
	toReplace
	// toUnready: its readiness probe failed.
	toUnready
	// toLivenessKill: its liveness probe failed failureThreshold times in
	// a row; it is killed (and restarted as the restart policy says).
	toLivenessKill
	// toLivenessFailure: its liveness probe failed, fewer times in a row
	// than failureThreshold; only its Unhealthy event is recorded.
	toLivenessFailure
	// toInitNext: the running init container is done; the next one
	// starts, or, after the last, the pod's containers.
	toInitNext
	// toEphemeral: the spec names ephemeral containers not yet started.
	toEphemeral
	// toReplay: a container's script waits on the network at an offset
	// the clock has now reached; it is played again (simulation.go) and
	// nothing else changes.
	toReplay
	// toPulled: the pull of a container's image ends (pulls.go); the
	// container starts, or waits with the failure.
	toPulled
	// toBackOff: a container that failed to start (RunContainerError)
	// is found waiting out its back-off by the next sync
	// (CrashLoopBackOff).
	toBackOff
)

// plegRelist is how soon the kubelet syncs a pod again after one of its
// containers changed: its pod lifecycle event generator relists the
// runtime's containers every second.
const plegRelist = time.Second

// maxMergedTransitions bounds the transitions folded into one status
// write, so that a behaviour that flips at one instant forever cannot
// hold the loop.
const maxMergedTransitions = 16

// podEvent is an event to record once the status write succeeded.
type podEvent struct {
	container, typ, reason, message string
}

var podGVK = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

// syncPod is one step of the pod loop: the next due transition of one pod,
// written as one status update, or the end of a graceful deletion.
func (k *Kubelet) syncPod(ctx context.Context, key string) (controllers.Result, error) {
	if k.Stopped() {
		return controllers.Result{}, nil
	}
	ns, name, _ := strings.Cut(key, "/")
	k.mu.Lock()
	inf := k.loops.pods
	k.mu.Unlock()
	pod, ok := inf.Get(ns, name)
	var bs map[string]containerBehaviour
	if ok && pod.Spec.NodeName == k.cfg.NodeName && pod.DeletionTimestamp == nil {
		// Before stateMu: a container's script may reach a pod of this
		// node over the network (simulation.go).
		bs = k.behaviours(pod, k.runningFor(key, pod.UID))
	}
	// Lock order: k.mu before stateMu (Start takes both).
	k.stateMu.Lock()
	defer k.stateMu.Unlock()
	rt := k.runtimes[key]
	if !ok || pod.Spec.NodeName != k.cfg.NodeName || (rt != nil && rt.uid != pod.UID) {
		// Gone (or replaced by a pod of the same name): free its sandbox.
		k.stopReal(key)
		k.forgetPodLocal(key)
		var current types.UID
		if ok {
			current = pod.UID // a new pod of the same name keeps its own
		}
		k.forgetEmptyDirs(key, current)
		k.unmountCSIVolumes(ctx, key, current)
		if rt != nil && (rt.ipHeld || rt.sandbox != nil) {
			k.releaseNetwork(ctx, rt)
		}
		k.releaseDevices(rt) // devices.go
		delete(k.runtimes, key)
		k.forgetTimelines(key)
		if !ok {
			return controllers.Result{}, nil
		}
		rt = nil
	}
	now := k.cfg.Clock.Now()
	if rt == nil {
		rt = k.adopt(pod, now)
		if k.cni != nil {
			k.adoptSandbox(ctx, pod, rt)
		}
		k.runtimes[key] = rt
		if rt.stage == stageAccepted && pod.DeletionTimestamp == nil {
			// Admission: the device manager gives the pod its devices, or
			// the pod is rejected (devices.go).
			if msg := k.admitDevices(ctx, pod, inf.List); msg != "" {
				return k.rejectPod(ctx, pod, rt, unexpectedAdmissionError, msg)
			}
		}
	}
	if pod.DeletionTimestamp != nil {
		return k.terminate(ctx, pod, rt, now)
	}
	if rt.stage == stageTerminal {
		return controllers.Result{}, nil
	}
	if at, ok := activeDeadline(pod, rt); ok && !now.Before(at) {
		return k.exceedDeadline(ctx, pod, rt, now) // activedeadline.go
	}
	k.localBehaviours(rt, bs)
	next := rt.clone()
	st := k.newStarter(ctx, pod)
	var events []podEvent
	at, kind, idx, ok := k.pending(next, bs, now)
	if i, changed := changedImage(next, pod); changed {
		// A spec change is acted on at once, before any timer; a process
		// run for the old image stops.
		k.stopReal(key)
		at, kind, idx, ok = now, toReplace, i, true
	} else if newEphemeral(next, pod) {
		at, kind, idx, ok = now, toEphemeral, 0, true
	}
	if ok && kind == toRunning && !now.Before(at) {
		// The volume manager first: no container starts before every
		// claim the pod mounts is bound (volumes.go). The pod stays in
		// ContainerCreating and its sync is tried again after the pod
		// worker's back-off.
		msg, err := k.claimsMountable(ctx, pod)
		if err != nil {
			return controllers.Result{}, err
		}
		if msg != "" {
			k.podEvent(ctx, pod, podEvent{typ: "Warning", reason: "FailedMount", message: msg})
			return controllers.Result{RequeueAfter: workerBackOffPeriod}, nil
		}
		// The CSI volumes are attached, staged and published
		// (csivolumes.go).
		msg, wait, err := k.mountCSIVolumes(ctx, pod)
		if err != nil {
			return controllers.Result{}, err
		}
		if wait {
			return controllers.Result{RequeueAfter: attachPollInterval}, nil
		}
		if msg != "" {
			k.podEvent(ctx, pod, podEvent{typ: "Warning", reason: "FailedMount", message: msg})
			return controllers.Result{RequeueAfter: workerBackOffPeriod}, nil
		}
		// Then the sandbox, which needs a runtime handler the node has
		// (runtimeclass.go).
		if msg, err = k.sandboxError(ctx, pod); err != nil {
			return controllers.Result{}, err
		}
		if msg == "" {
			// Then its network (network.go).
			msg = k.setUpNetwork(ctx, pod, rt, next)
		}
		if msg != "" {
			k.podEvent(ctx, pod, podEvent{typ: "Warning", reason: "FailedCreatePodSandBox", message: msg})
			return controllers.Result{RequeueAfter: workerBackOffPeriod}, nil
		}
		// Then the device plugins that want to prepare their devices
		// (devices.go).
		if msg := k.preStartDevices(ctx, pod); msg != "" {
			k.podEvent(ctx, pod, podEvent{typ: "Warning", reason: "Failed", message: msg})
			return controllers.Result{RequeueAfter: workerBackOffPeriod}, nil
		}
	}
	if ok && !now.Before(at) {
		var err error
		if events, err = k.apply(next, st, bs, kind, idx, now); err != nil {
			return controllers.Result{}, err
		}
		// What else is due at this instant goes into the same status
		// write: the real status manager posts the latest status, not
		// each step to it, so a container without a readiness probe is
		// Running and ready in one update (the prober reports it ready
		// as soon as it runs). ContainerCreating stays a write of its
		// own: the kubelet posts it before it asks the runtime for the
		// sandbox.
		for range maxMergedTransitions {
			if next.stage != stageStarted {
				break
			}
			at, kind, idx, ok := k.pending(next, bs, now)
			if !ok || now.Before(at) {
				break
			}
			more, err := k.apply(next, st, bs, kind, idx, now)
			if err != nil {
				return controllers.Result{}, err
			}
			events = append(events, more...)
		}
	}
	// While an image is pulled the status is not written: the real pod
	// worker waits for the pull inside its sync (pulls.go).
	pulling := next.pulling()
	if next.stage == stageTerminal {
		// The containers are gone: their volumes are unmounted before
		// the status says so, as the attach/detach controller detaches
		// a finished pod's volumes once it reads that status.
		k.unmountCSIVolumes(ctx, key, "")
	}
	var err error
	if !pulling {
		err = k.writeStatus(ctx, pod, next, now)
	}
	if err != nil {
		if next.ipHeld && !rt.ipHeld {
			// The sandbox exists, only its report failed (a Conflict
			// from a cache behind the pod, say): keep its address for
			// the retry, as the real kubelet keeps a pod's sandbox.
			// Releasing it and allocating again would move the
			// round-robin allocator on, so that the addresses pods get
			// would depend on how fast watch events arrive.
			rt.ip, rt.ipHeld = next.ip, true
		}
		return controllers.Result{}, err
	}
	if next.stage == stageStarted && !pulling && !next.startObserved {
		k.metrics.podStarted(now.Sub(next.seenAt).Seconds())
		next.startObserved = true
	}
	if next.stage == stageStarted && next.ipHeld && !pulling {
		k.startReal(key, pod, next.ip)
	}
	// The processes of local images follow what was just reported:
	// started, stopped, restarted.
	k.syncLocal(ctx, key, pod, next)
	if next.stage == stageTerminal && (next.ipHeld || next.sandbox != nil) {
		k.stopReal(key)
		// The sandbox is torn down; its address may be given again.
		k.releaseNetwork(ctx, next)
		next.ipHeld = false
	}
	if next.stage == stageTerminal {
		// Its devices are free for the next pod.
		k.releaseDevices(next)
	}
	k.runtimes[key] = next
	if k.changed != nil {
		close(k.changed)
		k.changed = nil
	}
	for _, ev := range dropFailedStarts(events) {
		k.podEvent(ctx, pod, ev)
	}
	if at, _, _, ok := k.pending(next, bs, now); ok {
		if !now.Before(at) {
			// Due already (zero delays): the watch event of our write
			// queues the pod again at once; this is the fallback.
			return controllers.Result{Requeue: true}, nil
		}
		return untilDeadline(controllers.Result{RequeueAfter: at.Sub(now)}, pod, next, now), nil
	}
	return untilDeadline(controllers.Result{}, pod, next, now), nil
}

// runningFor is how long each running container of the pod key has run,
// by name: its script's timeline must say what it did until now.
func (k *Kubelet) runningFor(key string, uid types.UID) map[string]time.Duration {
	k.stateMu.Lock()
	defer k.stateMu.Unlock()
	rt := k.runtimes[key]
	if rt == nil || rt.uid != uid {
		return nil
	}
	now := k.cfg.Clock.Now()
	var out map[string]time.Duration
	for i := range rt.containers {
		if c := &rt.containers[i]; c.state == containerRunning {
			if out == nil {
				out = map[string]time.Duration{}
			}
			out[c.name] = now.Sub(c.startedAt)
		}
	}
	return out
}

// behaviours decides how each container of pod behaves, by name; ran is
// how long each running one has run (runningFor).
func (k *Kubelet) behaviours(pod *corev1.Pod, ran map[string]time.Duration) map[string]containerBehaviour {
	pb := k.cfg.Behaviour(pod)
	out := make(map[string]containerBehaviour, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		out[c.Name] = behaviourOf(c, k.timeline(pod, c, ran[c.Name]), true, pb, k.cfg.Stages.Ready)
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		out[c.Name] = behaviourOf(c, k.timeline(pod, c, ran[c.Name]), false, pb, k.cfg.Stages.Ready)
	}
	for _, c := range ephemeralSpecs(pod) {
		// Not the pod's workload: the pod's behaviour does not apply.
		out[c.Name] = behaviourOf(&c, k.timeline(pod, &c, ran[c.Name]), true, pb, k.cfg.Stages.Ready)
	}
	return out
}

// pending finds the earliest transition of rt and when it is due
// (nextTransition with this kubelet's stages).
func (k *Kubelet) pending(rt *podRuntime, bs map[string]containerBehaviour, now time.Time) (at time.Time, kind transition, idx int, ok bool) {
	return nextTransition(rt, bs, k.cfg.Stages, now)
}

// nextTransition is the pod's lifecycle as a pure function: from what
// the kubelet knows of the pod (rt), how its containers behave (bs) and
// the time, the next change, when it is due and which container it is
// about. Ties go to the first container, and within one container to its
// exit, then its liveness, then its readiness: a container that dies
// before it would be ready never becomes ready.
func nextTransition(rt *podRuntime, bs map[string]containerBehaviour, st Stages, now time.Time) (at time.Time, kind transition, idx int, ok bool) {
	switch rt.stage {
	case stageAccepted:
		return rt.seenAt.Add(st.ContainerCreating), toCreating, 0, true
	case stageCreating:
		return rt.stageAt.Add(st.Running), toRunning, 0, true
	case stageStarted:
	default:
		return at, kind, idx, false
	}
	consider := func(cAt time.Time, cKind transition, i int) {
		if !ok || cAt.Before(at) {
			at, kind, idx, ok = cAt, cKind, i, true
		}
	}
	if !rt.initialized {
		if i := nextInit(rt); i < 0 || !rt.containers[i].starting() {
			// Every init container is done, or the next has not been
			// started: start it (or the pod's containers) now.
			consider(now, toInitNext, max(i, 0))
		}
	}
	for i := range rt.containers {
		c := &rt.containers[i]
		if (c.init && !c.sidecar && (rt.initialized || c.state == containerTerminated)) || (!c.init && !c.ephemeral && !rt.initialized) {
			continue
		}
		b := bs[c.name]
		switch c.state {
		case containerRunning:
			if c.exited != nil {
				consider(c.exited.at, toExit, i)
			}
			if b.exits {
				consider(c.startedAt.Add(b.exitAfter), toExit, i)
			}
			kill, dies := b.killAt()
			if dies {
				consider(c.startedAt.Add(kill), toLivenessKill, i)
			}
			if c.livenessFailures < len(b.livenessFailures) {
				if f := b.livenessFailures[c.livenessFailures]; !dies || f < kill {
					consider(c.startedAt.Add(f), toLivenessFailure, i)
				}
			}
			if b.tl.waitsOnNetwork && !b.exits {
				consider(c.startedAt.Add(b.tl.known+1), toReplay, i)
			}
			if c.init && !c.sidecar || c.ephemeral {
				continue // an init or ephemeral container is never ready
			}
			elapsed := now.Sub(c.startedAt)
			if want := verdictAt(b.readiness, false, elapsed); want != c.ready {
				consider(now, readinessKind(want), i)
			} else if f, flips := nextFlip(b.readiness, c.ready, elapsed); flips {
				consider(c.startedAt.Add(f), readinessKind(!c.ready), i)
			}
		case containerWaiting:
			switch {
			case c.pull != nil:
				consider(c.pull.Done, toPulled, i)
			case c.everStarted || !c.backoffUntil.IsZero() || !c.init:
				if c.waitingReason == reasonRunContainerError && c.last != nil {
					if at := c.last.FinishedAt.Add(plegRelist); at.Before(c.backoffUntil) {
						consider(at, toBackOff, i)
					}
				}
				consider(c.backoffUntil, toRestart, i)
			}
		}
	}
	return at, kind, idx, ok
}

func readinessKind(ready bool) transition {
	if ready {
		return toReady
	}
	return toUnready
}

// nextInit is the first init container that is not done, or -1.
func nextInit(rt *podRuntime) int {
	for i := range rt.containers {
		if c := &rt.containers[i]; c.init && !c.done() {
			return i
		}
	}
	return -1
}

// restarts reports whether a container that exited with code is started
// again: a sidecar always; an init container when it failed, unless the
// pod never restarts; the pod's containers as its restartPolicy says.
func restarts(c *containerRuntime, policy corev1.RestartPolicy, code int32) bool {
	switch {
	case c.ephemeral:
		return false
	case c.sidecar:
		return true
	case c.init:
		return code != 0 && policy != corev1.RestartPolicyNever
	}
	return policy == corev1.RestartPolicyAlways || policy == "" || (policy == corev1.RestartPolicyOnFailure && code != 0)
}

// apply makes transition kind happen to rt now and returns the events it
// causes; st starts the containers (pulls.go).
func (k *Kubelet) apply(rt *podRuntime, st *starter, bs map[string]containerBehaviour, kind transition, idx int, now time.Time) ([]podEvent, error) {
	pod := st.pod
	var events []podEvent
	switch kind {
	case toCreating:
		rt.stage, rt.stageAt, rt.startTime = stageCreating, now, now
		rt.containers = nil
		for _, c := range pod.Spec.InitContainers {
			rt.containers = append(rt.containers, containerRuntime{name: c.Name, image: c.Image, init: true,
				sidecar: c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways,
				state:   containerWaiting, waitingReason: "PodInitializing"})
		}
		waiting := "ContainerCreating"
		if len(pod.Spec.InitContainers) > 0 {
			waiting = "PodInitializing"
		}
		for _, c := range pod.Spec.Containers {
			rt.containers = append(rt.containers, containerRuntime{name: c.Name, image: c.Image,
				state: containerWaiting, waitingReason: waiting})
		}
	case toRunning:
		if !rt.ipHeld && rt.sandbox != nil {
			rt.ip, rt.ipHeld = rt.sandbox.IPs[0], true
		} else if !rt.ipHeld && k.cni == nil {
			ip, err := k.ipam.allocate()
			if err != nil {
				return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
			}
			rt.ip, rt.ipHeld = ip, true
		}
		rt.stage, rt.stageAt = stageStarted, now
		events = startNext(rt, st, now)
	case toInitNext:
		events = startNext(rt, st, now)
	case toEphemeral:
		events = startEphemeral(rt, st, now)
	case toPulled:
		events = st.finishPull(&rt.containers[idx], now)
	case toReady:
		rt.containers[idx].ready = true
	case toLivenessFailure:
		c := &rt.containers[idx]
		c.livenessFailures++
		events = append(events, podEvent{container: c.name, typ: "Warning", reason: "Unhealthy",
			message: "Liveness probe failed: " + bs[c.name].livenessOutput})
	case toUnready:
		c := &rt.containers[idx]
		c.ready = false
		events = append(events, podEvent{container: c.name, typ: "Warning", reason: "Unhealthy",
			message: "Readiness probe failed: " + bs[c.name].readinessOutput})
	case toRestart:
		c := &rt.containers[idx]
		if c.last != nil {
			c.backOff.next(c.last.FinishedAt.Time, now) // the back-off moves on as the container starts
		}
		events = st.startContainer(c, now)
	case toReplace:
		c := &rt.containers[idx]
		c.image, c.pull, c.backoffUntil = specImage(pod, c.name), nil, time.Time{}
		if c.everStarted {
			events = append(events, podEvent{container: c.name, typ: "Normal", reason: "Killing",
				message: fmt.Sprintf("Container %s definition changed, will be restarted", c.name)})
			if c.state == containerRunning {
				c.last = &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: metav1.NewTime(c.startedAt),
					FinishedAt: metav1.NewTime(now), ContainerID: c.id}
			}
			c.restarts++
		}
		// A container that never ran (its image could not be pulled)
		// simply starts from the new image.
		events = append(events, st.startContainer(c, now)...)
	case toBackOff:
		c := &rt.containers[idx]
		c.waitingReason = "CrashLoopBackOff"
		c.waitingMessage = fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", c.backOff.period, c.name, formatPod(pod))
		events = append(events, podEvent{container: c.name, typ: "Warning", reason: "BackOff",
			message: fmt.Sprintf("Back-off restarting failed container %s in pod %s", c.name, formatPod(pod))})
	case toExit, toLivenessKill:
		c := &rt.containers[idx]
		code := bs[c.name].exitCode
		startErr := bs[c.name].startErr
		if c.exited != nil && kind == toExit {
			code, startErr = c.exited.code, ""
		}
		if kind == toLivenessKill {
			startErr = ""
		}
		c.exited = nil
		if kind == toLivenessKill {
			// SIGTERM, then SIGKILL: 137 as the runtime reports it.
			code = 137
			events = append(events,
				podEvent{container: c.name, typ: "Warning", reason: "Unhealthy", message: "Liveness probe failed: " + bs[c.name].livenessOutput},
				podEvent{container: c.name, typ: "Normal", reason: "Killing", message: fmt.Sprintf("Container %s failed liveness probe, will be restarted", c.name)})
		}
		reason := "Completed"
		if code != 0 {
			reason = "Error"
		}
		term := corev1.ContainerStateTerminated{ExitCode: code, Reason: reason, StartedAt: metav1.NewTime(c.startedAt),
			FinishedAt: metav1.NewTime(now), ContainerID: c.id}
		if kind == toExit {
			term.Message = terminationMessage(specContainer(pod, c.name), bs[c.name].tl, code)
		}
		if startErr != "" {
			// containerd: the task was never created; the container
			// exited with 128 and no start time (the epoch).
			reason = "StartError"
			term.Reason, term.Message, term.StartedAt = reason, startErr, metav1.NewTime(time.Unix(0, 0).UTC())
			events = append(events, podEvent{container: c.name, typ: "Warning", reason: "Failed", message: "Error: " + startErr})
		}
		c.ready = false
		if !restarts(c, pod.Spec.RestartPolicy, code) {
			c.state, c.exitCode, c.termReason, c.finishedAt = containerTerminated, code, reason, now
			c.termMessage, c.startFailed = term.Message, startErr != ""
			if c.init && !c.sidecar && code == 0 {
				// The next init container (or the pod's) starts at once.
				events = append(events, startNext(rt, st, now)...)
			}
			break
		}
		prev := c.last
		c.restarts++
		c.last = &term
		var until time.Time
		var atOnce bool
		if kind == toLivenessKill {
			var prevAt time.Time
			if prev != nil {
				prevAt = prev.FinishedAt.Time
			}
			until, atOnce = c.backOff.restartAfterKill(prevAt, prev != nil, now)
		} else {
			until, atOnce = c.backOff.restartAfterExit(now)
		}
		if atOnce {
			// No back-off to wait out: the kubelet starts it again in the
			// same sync.
			events = append(events, st.startContainer(c, now)...)
			break
		}
		backoff := until.Sub(now)
		c.state, c.waitingReason, c.backoffUntil = containerWaiting, "CrashLoopBackOff", until
		c.waitingMessage = fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", backoff, c.name, formatPod(pod))
		if startErr != "" {
			// The sync that failed to start it reports why; the next one
			// finds it in back-off (toBackOff).
			c.waitingReason, c.waitingMessage = reasonRunContainerError, startErr
			break
		}
		events = append(events, podEvent{container: c.name, typ: "Warning", reason: "BackOff",
			message: fmt.Sprintf("Back-off restarting failed container %s in pod %s", c.name, formatPod(pod))})
	}
	if rt.stage == stageStarted && (rt.initialized && mainTerminated(rt.containers) || initFailed(rt.containers)) {
		rt.stage, rt.stageAt = stageTerminal, now
		// The pod is done: its sidecars are stopped.
		for i := range rt.containers {
			if c := &rt.containers[i]; (c.sidecar || c.ephemeral) && c.state != containerTerminated {
				c.state, c.ready, c.exitCode, c.termReason, c.finishedAt = containerTerminated, false, 0, "Completed", now
			}
		}
	}
	return events, nil
}

// startNext starts the next init container, or, once every init
// container is done, all the pod's containers.
func startNext(rt *podRuntime, st *starter, now time.Time) []podEvent {
	if rt.initialized {
		return nil
	}
	if i := nextInit(rt); i >= 0 {
		c := &rt.containers[i]
		if c.starting() {
			return nil // it runs, or waits for its image or its back-off
		}
		return st.startContainer(c, now)
	}
	rt.initialized = true
	var events []podEvent
	for i := range rt.containers {
		if !rt.containers[i].init && !rt.containers[i].ephemeral {
			events = append(events, st.startContainer(&rt.containers[i], now)...)
		}
	}
	return events
}

// neverRan: one of the pod's containers (init and ephemeral ones aside)
// waits and has not run.
func neverRan(cs []containerRuntime) bool {
	for i := range cs {
		if c := &cs[i]; !c.init && !c.ephemeral && c.state == containerWaiting && c.last == nil {
			return true
		}
	}
	return false
}

// mainTerminated: every container of the pod (init containers aside)
// ended for good.
func mainTerminated(cs []containerRuntime) bool {
	n := 0
	for i := range cs {
		if cs[i].init || cs[i].ephemeral {
			continue
		}
		if cs[i].state != containerTerminated {
			return false
		}
		n++
	}
	return n > 0
}

// initFailed: an init container failed and will not be restarted.
func initFailed(cs []containerRuntime) bool {
	for i := range cs {
		if c := &cs[i]; c.init && !c.sidecar && c.state == containerTerminated && c.exitCode != 0 {
			return true
		}
	}
	return false
}

// changedImage finds a container whose image the pod's spec has changed
// since the kubelet made it (computePodActions: its spec hash changed). A
// container not yet started simply takes the new image (one waiting for
// an image that could not be pulled starts again from the new one); one
// that ended for good under its restart policy stays as it is.
func changedImage(rt *podRuntime, pod *corev1.Pod) (int, bool) {
	for i := range rt.containers {
		c := &rt.containers[i]
		want := specImage(pod, c.name)
		if want == "" || want == c.image {
			continue
		}
		switch {
		case rt.stage == stageCreating:
			c.image = want
		case rt.stage == stageStarted && c.state != containerTerminated:
			return i, true
		}
	}
	return 0, false
}

// specImage is the image the pod's spec names for container name.
func specImage(pod *corev1.Pod, name string) string {
	for _, c := range pod.Spec.Containers {
		if c.Name == name {
			return c.Image
		}
	}
	return ""
}

// reasonRunContainerError is the waiting reason of a container the
// runtime failed to start (the kubelet's ErrRunContainer).
const reasonRunContainerError = "RunContainerError"

// dropFailedStarts removes the Started event of a container whose start
// failed in the same sync (its Failed event follows): the runtime created
// the container, but its process never ran.
func dropFailedStarts(events []podEvent) []podEvent {
	out := make([]podEvent, 0, len(events))
	for i, ev := range events {
		if ev.reason == "Started" && slices.ContainsFunc(events[i+1:], func(e podEvent) bool {
			return e.container == ev.container && e.reason == "Failed"
		}) {
			continue
		}
		out = append(out, ev)
	}
	return out
}

// terminate finishes a graceful deletion: kill the containers (Killing
// events), wait until they have stopped — Stages.Stop, capped by the
// grace period left — then post their terminated status and delete the
// pod with grace period 0, which removes it from the API server.
func (k *Kubelet) terminate(ctx context.Context, pod *corev1.Pod, rt *podRuntime, now time.Time) (controllers.Result, error) {
	if g := pod.DeletionGracePeriodSeconds; g != nil && *g == 0 {
		return controllers.Result{}, nil // already asked (a finalizer holds it)
	}
	key := pod.Namespace + "/" + pod.Name
	deadline := pod.DeletionTimestamp.Time
	if !rt.killing {
		// A real process stops at once: its endpoint goes away with it.
		k.stopReal(key)
		// A local image's process is asked to stop (SIGTERM) and killed
		// (SIGKILL) when the grace period is over.
		for _, lp := range k.local {
			if lp.podKey == key {
				k.stopLocalBy(lp, deadline)
			}
		}
		rt.killing, rt.killAt = true, now
		for _, c := range rt.containers {
			if c.state == containerRunning {
				k.podEvent(ctx, pod, podEvent{container: c.name, typ: "Normal", reason: "Killing", message: "Stopping container " + c.name})
			}
		}
	}
	if k.localAlive(key) {
		// It stops when its process has ended (which queues the pod
		// again), SIGKILL at the deadline at the latest.
		return controllers.Result{RequeueAfter: max(deadline.Sub(now), time.Second)}, nil
	}
	stop := k.cfg.Stages.Stop
	if b := k.cfg.Behaviour(pod); b.StopAfter > 0 {
		stop = b.StopAfter // containers slow to stop: past the grace period, SIGKILL
	}
	stopAt := rt.killAt.Add(stop)
	sigkill := stop > 0 && stopAt.After(deadline)
	if sigkill {
		stopAt = deadline
	}
	if now.Before(stopAt) {
		return controllers.Result{RequeueAfter: stopAt.Sub(now)}, nil
	}
	next := rt.clone()
	for i := range next.containers {
		c := &next.containers[i]
		if c.state != containerRunning {
			continue
		}
		c.state, c.ready, c.finishedAt, c.exitCode, c.termReason = containerTerminated, false, now, 0, "Completed"
		if sigkill {
			c.exitCode, c.termReason = 137, "Error"
		}
		if code, at, ok := k.localExit(c.id); ok {
			// A process says itself how it ended.
			c.finishedAt, c.exitCode, c.termReason = at, code, "Completed"
			if code != 0 {
				c.termReason = "Error"
			}
		}
	}
	if next.stage == stageStarted && mainTerminated(next.containers) {
		next.stage = stageTerminal
	}
	// The containers are stopped: their volumes are unmounted before the
	// status says so and the pod goes (the volume manager's unmount
	// precedes the pod worker's final removal), so that a detach follows
	// the unmount.
	k.unmountCSIVolumes(ctx, pod.Namespace+"/"+pod.Name, "")
	if rt.stage != stageTerminal {
		if err := k.writeStatus(ctx, pod, next, now); err != nil && !api.IsNotFound(err) {
			return controllers.Result{}, err
		}
	}
	*rt = *next
	uid := pod.UID
	zero := int64(0)
	err := k.c.Pods().Delete(ctx, pod.Namespace, pod.Name, &metav1.DeleteOptions{GracePeriodSeconds: &zero,
		Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !api.IsNotFound(err) && !api.IsConflict(err) {
		return controllers.Result{}, err
	}
	return controllers.Result{}, nil
}

// writeStatus posts the status rendered from rt if it differs from the
// pod's (compared as JSON, as the server stores times in seconds).
//
// The pod written is a shallow copy of the informer's with the new status
// (renderStatus made it from a deep copy): the client only encodes what it
// is given, so the shared pod's spec and metadata can be read in place
// rather than deep-copied for every status write (the pod's volumes made
// that copy ~3 % of the 10,000-pod run). The cache mutation detector of
// the cluster's tests catches a change to the shared pod.
func (k *Kubelet) writeStatus(ctx context.Context, pod *corev1.Pod, rt *podRuntime, now time.Time) error {
	status := k.renderStatus(pod, rt, now)
	a, _ := jsoncodec.Marshal(&status)
	b, _ := jsoncodec.Marshal(&pod.Status)
	if string(a) == string(b) {
		return nil
	}
	updated := *pod
	updated.Status = status
	if _, err := k.c.Pods().UpdateStatus(ctx, &updated); err != nil {
		return fmt.Errorf("updating status of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}

// renderStatus is the pod status the kubelet reports for rt (the status
// manager's generateAPIPodStatus): phase, conditions, addresses and one
// status per container, sorted by name as the kubelet sorts them.
func (k *Kubelet) renderStatus(pod *corev1.Pod, rt *podRuntime, now time.Time) corev1.PodStatus {
	st := *pod.Status.DeepCopy()
	if rt.stage == stageAccepted {
		return st
	}
	st.HostIP = k.cfg.InternalIP
	st.HostIPs = []corev1.HostIP{{IP: k.cfg.InternalIP}}
	start := metav1.NewTime(rt.startTime)
	st.StartTime = &start
	if rt.ip != "" && rt.stage >= stageStarted {
		st.PodIP = rt.ip
		st.PodIPs = []corev1.PodIP{{IP: rt.ip}}
		if rt.sandbox != nil && rt.sandbox.IPs[0] == rt.ip {
			// Every address the plugin gave, the primary first.
			st.PodIPs = nil
			for _, ip := range rt.sandbox.IPs {
				st.PodIPs = append(st.PodIPs, corev1.PodIP{IP: ip})
			}
		}
	}
	st.Phase = corev1.PodPending
	switch {
	case rt.stage == stageStarted && !rt.initialized:
		// Init containers run: the pod stays Pending.
	case rt.stage == stageStarted && neverRan(rt.containers):
		// A container has not started yet (its image, say): Pending,
		// as getPhase counts a waiting container with no last state.
	case rt.stage == stageStarted && !mainTerminated(rt.containers):
		st.Phase = corev1.PodRunning
	case rt.stage >= stageStarted:
		st.Phase = corev1.PodSucceeded
		for _, c := range rt.containers {
			if c.exitCode != 0 && !c.sidecar && !c.ephemeral {
				st.Phase = corev1.PodFailed
			}
		}
	}
	terminal := st.Phase == corev1.PodSucceeded || st.Phase == corev1.PodFailed
	var unready, incomplete []string
	hasInit := false
	for _, c := range rt.containers {
		if c.init {
			hasInit = true
			if !c.done() {
				incomplete = append(incomplete, c.name)
			}
		}
		if !c.ready && (!c.init || c.sidecar) && !c.ephemeral {
			unready = append(unready, c.name)
		}
	}
	initialized := corev1.PodCondition{Type: corev1.PodInitialized, Status: corev1.ConditionTrue}
	if hasInit && !rt.initialized && !(terminal && len(incomplete) == 0) {
		initialized.Status, initialized.Reason = corev1.ConditionFalse, "ContainersNotInitialized"
		initialized.Message = fmt.Sprintf("containers with incomplete status: [%s]", strings.Join(incomplete, " "))
	}
	ready := corev1.PodCondition{Status: corev1.ConditionTrue}
	switch {
	case terminal:
		ready = corev1.PodCondition{Status: corev1.ConditionFalse, Reason: "PodCompleted"}
	case len(unready) > 0:
		ready = corev1.PodCondition{Status: corev1.ConditionFalse, Reason: "ContainersNotReady",
			Message: fmt.Sprintf("containers with unready status: [%s]", strings.Join(unready, " "))}
	}
	podReady := readinessGated(pod, ready, st.Conditions)
	sandbox := corev1.ConditionFalse
	if rt.stage == stageStarted && !terminal {
		sandbox = corev1.ConditionTrue
	}
	owned := []corev1.PodCondition{
		{Type: corev1.PodReadyToStartContainers, Status: sandbox},
		initialized,
		{Type: corev1.PodReady, Status: podReady.Status, Reason: podReady.Reason, Message: podReady.Message},
		{Type: corev1.ContainersReady, Status: ready.Status, Reason: ready.Reason, Message: ready.Message},
	}
	conds := make([]corev1.PodCondition, 0, len(owned)+len(st.Conditions))
	for _, c := range owned {
		c.LastTransitionTime = metav1.NewTime(now)
		for _, old := range st.Conditions {
			if old.Type == c.Type && old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
		}
		conds = append(conds, c)
	}
	for _, old := range st.Conditions {
		if !slices.ContainsFunc(owned, func(c corev1.PodCondition) bool { return c.Type == old.Type }) {
			conds = append(conds, old)
		}
	}
	st.Conditions = conds
	st.ContainerStatuses, st.InitContainerStatuses, st.EphemeralContainerStatuses = nil, nil, nil
	for _, c := range rt.containers {
		if c.ephemeral {
			st.EphemeralContainerStatuses = append(st.EphemeralContainerStatuses, containerStatus(c))
			continue
		}
		if c.init {
			// Init containers in their order, as they run.
			st.InitContainerStatuses = append(st.InitContainerStatuses, containerStatus(c))
			continue
		}
		st.ContainerStatuses = append(st.ContainerStatuses, containerStatus(c))
	}
	sort.SliceStable(st.ContainerStatuses, func(i, j int) bool { return st.ContainerStatuses[i].Name < st.ContainerStatuses[j].Name })
	return st
}

// ReadinessGatesNotReady is the Ready condition's reason when the
// containers are ready but a readiness gate is not.
const ReadinessGatesNotReady = "ReadinessGatesNotReady"

// readinessGated is the status manager's GeneratePodReadyCondition: the
// pod is Ready when its containers are (containersReady) and the
// condition of every readiness gate is present in conds and True. Those
// conditions are someone else's to write (a load balancer's controller,
// say), through the status subresource; the kubelet keeps them and reads
// them here.
func readinessGated(pod *corev1.Pod, containersReady corev1.PodCondition, conds []corev1.PodCondition) corev1.PodCondition {
	if containersReady.Status != corev1.ConditionTrue {
		return containersReady
	}
	var unready []string
	for _, g := range pod.Spec.ReadinessGates {
		i := slices.IndexFunc(conds, func(c corev1.PodCondition) bool { return c.Type == g.ConditionType })
		switch {
		case i < 0:
			unready = append(unready, fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", string(g.ConditionType)))
		case conds[i].Status != corev1.ConditionTrue:
			unready = append(unready, fmt.Sprintf("the status of pod readiness gate %q is not \"True\", but %v", string(g.ConditionType), conds[i].Status))
		}
	}
	if len(unready) > 0 {
		return corev1.PodCondition{Status: corev1.ConditionFalse, Reason: ReadinessGatesNotReady, Message: strings.Join(unready, ", ")}
	}
	return containersReady
}

func containerStatus(c containerRuntime) corev1.ContainerStatus {
	started := c.state == containerRunning
	cs := corev1.ContainerStatus{Name: c.name, Image: c.image, Ready: c.ready, RestartCount: c.restarts,
		ContainerID: c.id, Started: &started, LastTerminationState: corev1.ContainerState{Terminated: c.last}}
	if c.everStarted {
		// The runtime's own names: the image in full, and by digest.
		cs.Image, cs.ImageID = images.Normalize(c.image), c.imageID
	}
	switch c.state {
	case containerWaiting:
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: c.waitingReason, Message: c.waitingMessage}
	case containerRunning:
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(c.startedAt)}
	case containerTerminated:
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: c.exitCode, Reason: c.termReason, Message: c.termMessage,
			StartedAt: metav1.NewTime(c.startedAt), FinishedAt: metav1.NewTime(c.finishedAt), ContainerID: c.id}
		// An init container that completed is ready (the prober
		// manager's UpdatePodStatus): its work is done.
		cs.Ready = cs.Ready || c.init && !c.sidecar && c.exitCode == 0
		if c.startFailed {
			cs.State.Terminated.StartedAt = metav1.NewTime(time.Unix(0, 0).UTC())
		}
	}
	return cs
}

// containerID is a stable fake runtime id for one start of a container.
func containerID(podUID, name string, restarts int32) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%s/%d", podUID, name, restarts))
	return "containerd://" + hex.EncodeToString(sum[:])
}

// formatPod is the kubelet's format.Pod: name_namespace(uid).
func formatPod(pod *corev1.Pod) string {
	return fmt.Sprintf("%s_%s(%s)", pod.Name, pod.Namespace, pod.UID)
}

// podEvent records ev about pod, pointing at the container as the kubelet
// does (fieldPath spec.containers{name}).
func (k *Kubelet) podEvent(ctx context.Context, pod *corev1.Pod, ev podEvent) {
	ref := record.Ref(pod, podGVK)
	if ev.container != "" {
		ref.FieldPath = "spec.containers{" + ev.container + "}"
	}
	k.event(ctx, ref, ev.typ, ev.reason, "%s", ev.message)
}

// adopt rebuilds the runtime of a pod the kubelet has no memory of (a new
// kubelet over an existing cluster) from the pod's status, so that a
// running pod keeps running instead of starting over.
func (k *Kubelet) adopt(pod *corev1.Pod, now time.Time) *podRuntime {
	rt := &podRuntime{uid: pod.UID, seenAt: now, stageAt: now, startTime: now}
	st := &pod.Status
	if st.StartTime != nil {
		rt.startTime = st.StartTime.Time
	}
	if st.Phase == corev1.PodSucceeded || st.Phase == corev1.PodFailed {
		rt.stage, rt.ip = stageTerminal, st.PodIP
		return rt
	}
	if len(st.ContainerStatuses) == 0 && len(st.InitContainerStatuses) == 0 {
		return rt
	}
	byName := map[string]corev1.ContainerStatus{}
	started, initStarted := false, false
	for _, cs := range st.ContainerStatuses {
		byName[cs.Name] = cs
		if cs.State.Running != nil || cs.State.Terminated != nil || cs.RestartCount > 0 {
			started = true
		}
	}
	for _, cs := range st.InitContainerStatuses {
		byName[cs.Name] = cs
		if cs.State.Running != nil || cs.State.Terminated != nil || cs.RestartCount > 0 {
			initStarted = true
		}
	}
	rt.stage = stageCreating
	if started || initStarted {
		rt.stage = stageStarted
		if k.cni != nil {
			// Its sandbox's record gives it its address (adoptSandbox);
			// without one it keeps what its status says.
			rt.ip = st.PodIP
		} else if st.PodIP != "" {
			k.ipam.reserve(st.PodIP)
			rt.ip, rt.ipHeld = st.PodIP, true
		} else if ip, err := k.ipam.allocate(); err == nil {
			rt.ip, rt.ipHeld = ip, true
		}
	}
	rt.initialized = started
	for _, c := range pod.Spec.InitContainers {
		cr := containerRuntime{name: c.Name, image: c.Image, init: true, state: containerWaiting, waitingReason: "PodInitializing",
			sidecar: c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways}
		if cs, ok := byName[c.Name]; ok && rt.stage == stageStarted {
			adoptContainer(&cr, cs, now)
		}
		rt.containers = append(rt.containers, cr)
	}
	for _, c := range pod.Spec.Containers {
		cr := containerRuntime{name: c.Name, image: c.Image, state: containerWaiting, waitingReason: "ContainerCreating"}
		if cs, ok := byName[c.Name]; ok && started {
			adoptContainer(&cr, cs, now)
		}
		rt.containers = append(rt.containers, cr)
	}
	for _, cs := range st.EphemeralContainerStatuses {
		// Those it started before keep their state; the rest start anew.
		i := slices.IndexFunc(pod.Spec.EphemeralContainers, func(ec corev1.EphemeralContainer) bool { return ec.Name == cs.Name })
		if started && i >= 0 {
			cr := containerRuntime{name: cs.Name, image: pod.Spec.EphemeralContainers[i].Image, ephemeral: true, state: containerWaiting}
			adoptContainer(&cr, cs, now)
			rt.containers = append(rt.containers, cr)
		}
	}
	return rt
}

// adoptContainer takes a container's state back from its reported status.
func adoptContainer(cr *containerRuntime, cs corev1.ContainerStatus, now time.Time) {
	if cs.State.Running == nil && cs.State.Terminated == nil && cs.RestartCount == 0 {
		return // never started
	}
	cr.restarts, cr.last, cr.id, cr.everStarted = cs.RestartCount, cs.LastTerminationState.Terminated, cs.ContainerID, true
	switch {
	case cs.State.Running != nil:
		cr.state, cr.startedAt, cr.ready = containerRunning, cs.State.Running.StartedAt.Time, cs.Ready
	case cs.State.Terminated != nil:
		t := cs.State.Terminated
		cr.state, cr.exitCode, cr.termReason = containerTerminated, t.ExitCode, t.Reason
		cr.startedAt, cr.finishedAt = t.StartedAt.Time, t.FinishedAt.Time
	default:
		// A new kubelet has no back-off entries (the real one keeps them in
		// memory): it starts the container at its first sync.
		cr.waitingReason = "CrashLoopBackOff"
		cr.backoffUntil = now
		if cs.State.Waiting != nil {
			cr.waitingMessage = cs.State.Waiting.Message
		}
	}
}
