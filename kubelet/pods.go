package kubelet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client/record"
	"github.com/kubesim/kubesim/controllers"
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
	last           *api.ContainerStateTerminated
	backoffUntil   time.Time
	id             string
}

// podRuntime is the simulated sandbox of one pod: the kubelet's memory of
// what it did, from which the pod status is rendered.
type podRuntime struct {
	uid        string
	seenAt     time.Time
	stage      stage
	stageAt    time.Time
	startTime  time.Time
	ip         string
	ipHeld     bool
	containers []containerRuntime
	killing    bool
	killAt     time.Time
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
)

// podEvent is an event to record once the status write succeeded.
type podEvent struct {
	container, typ, reason, message string
}

var podGVK = api.GroupVersionKind{Version: "v1", Kind: "Pod"}

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
	// Lock order: k.mu before stateMu (Start takes both).
	k.stateMu.Lock()
	defer k.stateMu.Unlock()
	pod, ok := inf.Get(ns, name)
	rt := k.runtimes[key]
	if !ok || pod.Spec.NodeName != k.cfg.NodeName || (rt != nil && rt.uid != pod.UID) {
		// Gone (or replaced by a pod of the same name): free its sandbox.
		k.stopReal(key)
		if rt != nil && rt.ipHeld {
			k.ipam.release(rt.ip)
		}
		delete(k.runtimes, key)
		if !ok {
			return controllers.Result{}, nil
		}
		rt = nil
	}
	now := k.cfg.Clock.Now()
	if rt == nil {
		rt = k.adopt(pod, now)
		k.runtimes[key] = rt
	}
	if pod.DeletionTimestamp != nil {
		return k.terminate(ctx, pod, rt, now)
	}
	if rt.stage == stageTerminal {
		return controllers.Result{}, nil
	}
	b := k.cfg.Behaviour(pod)
	next := rt.clone()
	var events []podEvent
	at, kind, idx, ok := k.pending(next, b)
	if i, changed := changedImage(next, pod); changed {
		// A spec change is acted on at once, before any timer; a process
		// run for the old image stops.
		k.stopReal(key)
		at, kind, idx, ok = now, toReplace, i, true
	}
	if ok && !now.Before(at) {
		var err error
		if events, err = k.apply(next, pod, b, kind, idx, now); err != nil {
			return controllers.Result{}, err
		}
	}
	if err := k.writeStatus(ctx, pod, next, now); err != nil {
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
	if next.stage == stageStarted && next.ipHeld {
		k.startReal(key, pod, next.ip)
	}
	if next.stage == stageTerminal && next.ipHeld {
		k.stopReal(key)
		// The sandbox is torn down; its address may be given again.
		k.ipam.release(next.ip)
		next.ipHeld = false
	}
	k.runtimes[key] = next
	for _, ev := range events {
		k.podEvent(ctx, pod, ev)
	}
	if at, _, _, ok := k.pending(next, b); ok {
		if !now.Before(at) {
			// Due already (zero delays): the watch event of our write
			// queues the pod again at once; this is the fallback.
			return controllers.Result{Requeue: true}, nil
		}
		return controllers.Result{RequeueAfter: at.Sub(now)}, nil
	}
	return controllers.Result{}, nil
}

// pending finds the earliest transition of rt and when it is due; ties
// go to the first container.
func (k *Kubelet) pending(rt *podRuntime, b PodBehaviour) (at time.Time, kind transition, idx int, ok bool) {
	st := k.cfg.Stages
	switch rt.stage {
	case stageAccepted:
		return rt.seenAt.Add(st.ContainerCreating), toCreating, 0, true
	case stageCreating:
		return rt.stageAt.Add(st.Running), toRunning, 0, true
	case stageStarted:
		for i, c := range rt.containers {
			var cAt time.Time
			var cKind transition
			switch c.state {
			case containerRunning:
				if c.ready {
					if !b.Exits() {
						continue
					}
					cAt, cKind = c.startedAt.Add(b.ExitAfter), toExit
				} else {
					cAt, cKind = c.startedAt.Add(st.Ready), toReady
					// A container that dies before it would be ready
					// never becomes ready.
					if b.Exits() && !c.startedAt.Add(b.ExitAfter).After(cAt) {
						cAt, cKind = c.startedAt.Add(b.ExitAfter), toExit
					}
				}
			case containerWaiting:
				cAt, cKind = c.backoffUntil, toRestart
			default:
				continue
			}
			if !ok || cAt.Before(at) {
				at, kind, idx, ok = cAt, cKind, i, true
			}
		}
	}
	return at, kind, idx, ok
}

// apply makes transition kind happen to rt now and returns the events it
// causes.
func (k *Kubelet) apply(rt *podRuntime, pod *api.Pod, b PodBehaviour, kind transition, idx int, now time.Time) ([]podEvent, error) {
	var events []podEvent
	switch kind {
	case toCreating:
		rt.stage, rt.stageAt, rt.startTime = stageCreating, now, now
		rt.containers = nil
		for _, c := range pod.Spec.Containers {
			rt.containers = append(rt.containers, containerRuntime{name: c.Name, image: c.Image,
				state: containerWaiting, waitingReason: "ContainerCreating"})
		}
	case toRunning:
		if !rt.ipHeld {
			ip, err := k.ipam.allocate()
			if err != nil {
				return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
			}
			rt.ip, rt.ipHeld = ip, true
		}
		rt.stage, rt.stageAt = stageStarted, now
		for i := range rt.containers {
			events = append(events, startContainer(&rt.containers[i], pod, now)...)
		}
	case toReady:
		rt.containers[idx].ready = true
	case toRestart:
		events = startContainer(&rt.containers[idx], pod, now)
	case toReplace:
		c := &rt.containers[idx]
		events = append(events, podEvent{container: c.name, typ: "Normal", reason: "Killing",
			message: fmt.Sprintf("Container %s definition changed, will be restarted", c.name)})
		if c.state == containerRunning {
			c.last = &api.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: api.NewTime(c.startedAt),
				FinishedAt: api.NewTime(now), ContainerID: c.id}
		}
		c.restarts++
		c.image = specImage(pod, c.name)
		events = append(events, startContainer(c, pod, now)...)
	case toExit:
		c := &rt.containers[idx]
		reason := "Completed"
		if b.ExitCode != 0 {
			reason = "Error"
		}
		term := api.ContainerStateTerminated{ExitCode: b.ExitCode, Reason: reason, StartedAt: api.NewTime(c.startedAt),
			FinishedAt: api.NewTime(now), ContainerID: c.id}
		c.ready = false
		restart := pod.Spec.RestartPolicy == api.RestartPolicyAlways || pod.Spec.RestartPolicy == "" ||
			(pod.Spec.RestartPolicy == api.RestartPolicyOnFailure && b.ExitCode != 0)
		if !restart {
			c.state, c.exitCode, c.termReason, c.finishedAt = containerTerminated, b.ExitCode, reason, now
			break
		}
		c.restarts++
		c.last = &term
		backoff := crashLoopBackOff(c.restarts)
		c.state, c.waitingReason, c.backoffUntil = containerWaiting, "CrashLoopBackOff", now.Add(backoff)
		c.waitingMessage = fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", backoff, c.name, formatPod(pod))
		events = append(events, podEvent{container: c.name, typ: "Warning", reason: "BackOff",
			message: fmt.Sprintf("Back-off restarting failed container %s in pod %s", c.name, formatPod(pod))})
	}
	if rt.stage == stageStarted && allTerminated(rt.containers) {
		rt.stage, rt.stageAt = stageTerminal, now
	}
	return events, nil
}

// changedImage finds a container whose image the pod's spec has changed
// since the kubelet made it (computePodActions: its spec hash changed). A
// container not yet started simply takes the new image; one that ended
// for good under its restart policy stays as it is.
func changedImage(rt *podRuntime, pod *api.Pod) (int, bool) {
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
func specImage(pod *api.Pod, name string) string {
	for _, c := range pod.Spec.Containers {
		if c.Name == name {
			return c.Image
		}
	}
	return ""
}

// startContainer starts (or restarts) c, with the events the kubelet
// records for it.
func startContainer(c *containerRuntime, pod *api.Pod, now time.Time) []podEvent {
	c.state, c.startedAt, c.ready, c.everStarted = containerRunning, now, false, true
	c.waitingReason, c.waitingMessage = "", ""
	c.id = containerID(pod.UID, c.name, c.restarts)
	return []podEvent{
		{container: c.name, typ: "Normal", reason: "Pulled", message: fmt.Sprintf("Container image %q already present on machine", c.image)},
		{container: c.name, typ: "Normal", reason: "Created", message: "Created container " + c.name},
		{container: c.name, typ: "Normal", reason: "Started", message: "Started container " + c.name},
	}
}

func allTerminated(cs []containerRuntime) bool {
	for _, c := range cs {
		if c.state != containerTerminated {
			return false
		}
	}
	return len(cs) > 0
}

// terminate finishes a graceful deletion: kill the containers (Killing
// events), wait until they have stopped — Stages.Stop, capped by the
// grace period left — then post their terminated status and delete the
// pod with grace period 0, which removes it from the API server.
func (k *Kubelet) terminate(ctx context.Context, pod *api.Pod, rt *podRuntime, now time.Time) (controllers.Result, error) {
	if g := pod.DeletionGracePeriodSeconds; g != nil && *g == 0 {
		return controllers.Result{}, nil // already asked (a finalizer holds it)
	}
	if !rt.killing {
		// A real process stops at once: its endpoint goes away with it.
		k.stopReal(pod.Namespace + "/" + pod.Name)
		rt.killing, rt.killAt = true, now
		for _, c := range rt.containers {
			if c.state == containerRunning {
				k.podEvent(ctx, pod, podEvent{container: c.name, typ: "Normal", reason: "Killing", message: "Stopping container " + c.name})
			}
		}
	}
	deadline := pod.DeletionTimestamp.Time
	stopAt := rt.killAt.Add(k.cfg.Stages.Stop)
	sigkill := k.cfg.Stages.Stop > 0 && stopAt.After(deadline)
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
	}
	if next.stage == stageStarted && allTerminated(next.containers) {
		next.stage = stageTerminal
	}
	if rt.stage != stageTerminal {
		if err := k.writeStatus(ctx, pod, next, now); err != nil && !api.IsNotFound(err) {
			return controllers.Result{}, err
		}
	}
	*rt = *next
	uid := pod.UID
	zero := int64(0)
	err := k.c.Pods().Delete(ctx, pod.Namespace, pod.Name, &api.DeleteOptions{GracePeriodSeconds: &zero,
		Preconditions: &api.Preconditions{UID: &uid}})
	if err != nil && !api.IsNotFound(err) && !api.IsConflict(err) {
		return controllers.Result{}, err
	}
	return controllers.Result{}, nil
}

// writeStatus posts the status rendered from rt if it differs from the
// pod's (compared as JSON, as the server stores times in seconds).
func (k *Kubelet) writeStatus(ctx context.Context, pod *api.Pod, rt *podRuntime, now time.Time) error {
	status := k.renderStatus(pod, rt, now)
	a, _ := json.Marshal(&status)
	b, _ := json.Marshal(&pod.Status)
	if string(a) == string(b) {
		return nil
	}
	updated := pod.DeepCopy()
	updated.Status = status
	if _, err := k.c.Pods().UpdateStatus(ctx, updated); err != nil {
		return fmt.Errorf("updating status of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}

// renderStatus is the pod status the kubelet reports for rt (the status
// manager's generateAPIPodStatus): phase, conditions, addresses and one
// status per container, sorted by name as the kubelet sorts them.
func (k *Kubelet) renderStatus(pod *api.Pod, rt *podRuntime, now time.Time) api.PodStatus {
	st := *pod.Status.DeepCopy()
	if rt.stage == stageAccepted {
		return st
	}
	st.HostIP = k.cfg.InternalIP
	st.HostIPs = []api.HostIP{{IP: k.cfg.InternalIP}}
	start := api.NewTime(rt.startTime)
	st.StartTime = &start
	if rt.ip != "" && rt.stage >= stageStarted {
		st.PodIP = rt.ip
		st.PodIPs = []api.PodIP{{IP: rt.ip}}
	}
	st.Phase = api.PodPending
	switch {
	case rt.stage == stageStarted && !allTerminated(rt.containers):
		st.Phase = api.PodRunning
	case rt.stage >= stageStarted:
		st.Phase = api.PodSucceeded
		for _, c := range rt.containers {
			if c.exitCode != 0 {
				st.Phase = api.PodFailed
			}
		}
	}
	terminal := st.Phase == api.PodSucceeded || st.Phase == api.PodFailed
	var unready []string
	for _, c := range rt.containers {
		if !c.ready {
			unready = append(unready, c.name)
		}
	}
	ready := api.PodCondition{Status: api.ConditionTrue}
	switch {
	case terminal:
		ready = api.PodCondition{Status: api.ConditionFalse, Reason: "PodCompleted"}
	case len(unready) > 0:
		ready = api.PodCondition{Status: api.ConditionFalse, Reason: "ContainersNotReady",
			Message: fmt.Sprintf("containers with unready status: [%s]", strings.Join(unready, " "))}
	}
	sandbox := api.ConditionFalse
	if rt.stage == stageStarted && !terminal {
		sandbox = api.ConditionTrue
	}
	owned := []api.PodCondition{
		{Type: api.PodReadyToStartContainers, Status: sandbox},
		{Type: api.PodInitialized, Status: api.ConditionTrue},
		{Type: api.PodReady, Status: ready.Status, Reason: ready.Reason, Message: ready.Message},
		{Type: api.ContainersReady, Status: ready.Status, Reason: ready.Reason, Message: ready.Message},
	}
	conds := make([]api.PodCondition, 0, len(owned)+len(st.Conditions))
	for _, c := range owned {
		c.LastTransitionTime = api.NewTime(now)
		for _, old := range st.Conditions {
			if old.Type == c.Type && old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
		}
		conds = append(conds, c)
	}
	for _, old := range st.Conditions {
		if !slices.ContainsFunc(owned, func(c api.PodCondition) bool { return c.Type == old.Type }) {
			conds = append(conds, old)
		}
	}
	st.Conditions = conds
	st.ContainerStatuses = nil
	for _, c := range rt.containers {
		st.ContainerStatuses = append(st.ContainerStatuses, containerStatus(c))
	}
	sort.SliceStable(st.ContainerStatuses, func(i, j int) bool { return st.ContainerStatuses[i].Name < st.ContainerStatuses[j].Name })
	return st
}

func containerStatus(c containerRuntime) api.ContainerStatus {
	started := c.state == containerRunning
	cs := api.ContainerStatus{Name: c.name, Image: c.image, Ready: c.ready, RestartCount: c.restarts,
		ContainerID: c.id, Started: &started, LastState: api.ContainerState{Terminated: c.last}}
	if c.everStarted {
		cs.Image = normalizeImage(c.image)
		sum := sha256.Sum256([]byte(cs.Image))
		repo, _, _ := strings.Cut(cs.Image, "@")
		if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
			repo = repo[:i]
		}
		cs.ImageID = repo + "@sha256:" + hex.EncodeToString(sum[:])
	}
	switch c.state {
	case containerWaiting:
		cs.State.Waiting = &api.ContainerStateWaiting{Reason: c.waitingReason, Message: c.waitingMessage}
	case containerRunning:
		cs.State.Running = &api.ContainerStateRunning{StartedAt: api.NewTime(c.startedAt)}
	case containerTerminated:
		cs.State.Terminated = &api.ContainerStateTerminated{ExitCode: c.exitCode, Reason: c.termReason,
			StartedAt: api.NewTime(c.startedAt), FinishedAt: api.NewTime(c.finishedAt), ContainerID: c.id}
	}
	return cs
}

// normalizeImage spells an image reference in full, as the container
// runtime reports it: nginx → docker.io/library/nginx:latest.
func normalizeImage(image string) string {
	if image == "" {
		return image
	}
	name := image
	first, rest, hasSlash := strings.Cut(name, "/")
	if !hasSlash {
		name = "docker.io/library/" + name
	} else if !strings.ContainsAny(first, ".:") && first != "localhost" {
		name = "docker.io/" + first + "/" + rest
	}
	lastPart := name[strings.LastIndex(name, "/")+1:]
	if !strings.ContainsAny(lastPart, ":@") {
		name += ":latest"
	}
	return name
}

// containerID is a stable fake runtime id for one start of a container.
func containerID(podUID, name string, restarts int32) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%s/%d", podUID, name, restarts))
	return "containerd://" + hex.EncodeToString(sum[:])
}

// formatPod is the kubelet's format.Pod: name_namespace(uid).
func formatPod(pod *api.Pod) string {
	return fmt.Sprintf("%s_%s(%s)", pod.Name, pod.Namespace, pod.UID)
}

// podEvent records ev about pod, pointing at the container as the kubelet
// does (fieldPath spec.containers{name}).
func (k *Kubelet) podEvent(ctx context.Context, pod *api.Pod, ev podEvent) {
	ref := record.Ref(pod, podGVK)
	if ev.container != "" {
		ref.FieldPath = "spec.containers{" + ev.container + "}"
	}
	k.event(ctx, ref, ev.typ, ev.reason, "%s", ev.message)
}

// adopt rebuilds the runtime of a pod the kubelet has no memory of (a new
// kubelet over an existing cluster) from the pod's status, so that a
// running pod keeps running instead of starting over.
func (k *Kubelet) adopt(pod *api.Pod, now time.Time) *podRuntime {
	rt := &podRuntime{uid: pod.UID, seenAt: now, stageAt: now, startTime: now}
	st := &pod.Status
	if st.StartTime != nil {
		rt.startTime = st.StartTime.Time
	}
	if st.Phase == api.PodSucceeded || st.Phase == api.PodFailed {
		rt.stage, rt.ip = stageTerminal, st.PodIP
		return rt
	}
	if len(st.ContainerStatuses) == 0 {
		return rt
	}
	byName := map[string]api.ContainerStatus{}
	started := false
	for _, cs := range st.ContainerStatuses {
		byName[cs.Name] = cs
		if cs.State.Running != nil || cs.State.Terminated != nil || cs.RestartCount > 0 {
			started = true
		}
	}
	rt.stage = stageCreating
	if started {
		rt.stage = stageStarted
		if st.PodIP != "" {
			k.ipam.reserve(st.PodIP)
			rt.ip, rt.ipHeld = st.PodIP, true
		} else if ip, err := k.ipam.allocate(); err == nil {
			rt.ip, rt.ipHeld = ip, true
		}
	}
	for _, c := range pod.Spec.Containers {
		cr := containerRuntime{name: c.Name, image: c.Image, state: containerWaiting, waitingReason: "ContainerCreating"}
		if cs, ok := byName[c.Name]; ok && started {
			cr.restarts, cr.last, cr.id, cr.everStarted = cs.RestartCount, cs.LastState.Terminated, cs.ContainerID, true
			switch {
			case cs.State.Running != nil:
				cr.state, cr.startedAt, cr.ready = containerRunning, cs.State.Running.StartedAt.Time, cs.Ready
			case cs.State.Terminated != nil:
				t := cs.State.Terminated
				cr.state, cr.exitCode, cr.termReason = containerTerminated, t.ExitCode, t.Reason
				cr.startedAt, cr.finishedAt = t.StartedAt.Time, t.FinishedAt.Time
			default:
				cr.waitingReason = "CrashLoopBackOff"
				cr.backoffUntil = now.Add(crashLoopBackOff(max(cr.restarts, 1)))
				if cs.State.Waiting != nil {
					cr.waitingMessage = cs.State.Waiting.Message
				}
			}
		}
		rt.containers = append(rt.containers, cr)
	}
	return rt
}
