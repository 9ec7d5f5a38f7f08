package kubelet

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// LogOptions are the query parameters of GET /containerLogs
// (PodLogOptions, as the API server passes them on).
type LogOptions struct {
	Follow, Previous, Timestamps bool
	TailLines, LimitBytes        *int64
	SinceSeconds                 *int64
	SinceTime                    *time.Time
}

// LogError is a refusal of the kubelet's log endpoint, with the HTTP code
// it answers (the API server turns it into a Status: 400 BadRequest, 404
// NotFound).
type LogError struct {
	Code    int
	Message string
}

func (e *LogError) Error() string { return e.Message }

func logErrorf(code int, format string, args ...any) error {
	return &LogError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ContainerLogs writes what a container of a pod of this node printed
// (the kubelet's GetKubeletContainerLogs and validateContainerLogStatus):
// the current instance or, with Previous, the one before.
func (k *Kubelet) ContainerLogs(ctx context.Context, namespace, podName, container string, opts LogOptions, w io.Writer) error {
	k.mu.Lock()
	inf := k.loops.pods
	k.mu.Unlock()
	pod, ok := inf.Get(namespace, podName)
	if !ok || pod.Spec.NodeName != k.cfg.NodeName {
		return logErrorf(http.StatusNotFound, "pod %q does not exist", podName)
	}
	if !hasContainer(pod, container) {
		return logErrorf(http.StatusNotFound, "container %q not found in pod %q", container, podName)
	}
	spec := specContainer(pod, container)
	inst, err := k.logInstance(pod, container, opts.Previous)
	if err != nil {
		return err
	}
	now := k.cfg.Clock.Now()
	end := inst.end(now)
	// A local image's run printed what its process printed; a simulated
	// container what its program says.
	tl, dropped, _, _, local := k.localLogLines(inst.id, inst.start)
	if !local {
		tl = k.withAttached(k.timeline(pod, spec, end.Sub(inst.start)), namespace+"/"+podName, inst.id)
	} else if inst.running {
		// Every line read was printed by now: the follower goes on
		// after the last of them.
		now = k.cfg.Clock.Now()
		end = now
	}
	lines := tl.linesUpTo(end.Sub(inst.start), maxLogLines)
	lw := &limitedWriter{w: w, left: -1}
	if opts.LimitBytes != nil {
		lw.left = *opts.LimitBytes
	}
	since := time.Time{}
	switch {
	case opts.SinceSeconds != nil:
		since = now.Add(-time.Duration(*opts.SinceSeconds) * time.Second)
	case opts.SinceTime != nil:
		since = *opts.SinceTime
	}
	var out []logLine
	for _, l := range lines {
		if !inst.start.Add(l.at).Before(since) {
			out = append(out, l)
		}
	}
	if opts.TailLines != nil && int64(len(out)) > *opts.TailLines {
		out = out[int64(len(out))-*opts.TailLines:]
	}
	if err := writeLines(lw, out, inst.start, opts.Timestamps); err != nil || lw.left == 0 {
		return err
	}
	if !opts.Follow || !inst.running {
		return nil
	}
	if f, ok := w.(interface{ Flush() }); ok {
		f.Flush()
	}
	if local {
		return k.followLocal(ctx, inst, dropped+len(tl.lines), lw, opts.Timestamps)
	}
	return k.follow(ctx, pod, spec, inst, end.Sub(inst.start), lw, opts.Timestamps)
}

// followLocal streams what a local image's process prints after the
// line numbered next (counting from its first line), until it ends or
// the client goes.
func (k *Kubelet) followLocal(ctx context.Context, inst logInstance, next int, w *limitedWriter, timestamps bool) error {
	for {
		tl, dropped, changed, ended, ok := k.localLogLines(inst.id, inst.start)
		if !ok {
			return nil // the run is forgotten: its pod is gone
		}
		fresh := tl.lines[max(next-dropped, 0):]
		if err := writeLines(w, fresh, inst.start, timestamps); err != nil || w.left == 0 {
			return err
		}
		if len(fresh) > 0 {
			if f, ok := w.w.(interface{ Flush() }); ok {
				f.Flush()
			}
		}
		next = dropped + len(tl.lines)
		if ended {
			return nil // kubectl logs -f ends when the container exits
		}
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		}
	}
}

// maxLogLines bounds what is kept of one container instance's output, as
// the kubelet rotates container logs.
const maxLogLines = 10000

// followPoll is how often a follower looks for lines a running program
// printed between two transitions of its container.
const followPoll = 50 * time.Millisecond

// follow streams the lines a running container prints after offset done,
// until it stops (kubectl logs -f ends when the container exits) or the
// client goes.
func (k *Kubelet) follow(ctx context.Context, pod *corev1.Pod, spec *corev1.Container, inst logInstance, done time.Duration, w *limitedWriter, timestamps bool) error {
	container := spec.Name
	tick := time.NewTicker(followPoll)
	defer tick.Stop()
	for {
		k.stateMu.Lock()
		if k.changed == nil {
			k.changed = make(chan struct{})
		}
		changed := k.changed
		k.stateMu.Unlock()
		cur, err := k.logInstance(pod, container, false)
		stopped := err != nil || cur.id != inst.id || !cur.running
		end := inst.end(k.cfg.Clock.Now())
		if cur.id != inst.id && inst.id != "" {
			// Restarted meanwhile: the old instance ended when it did.
			if k2, err := k.previousOf(pod, container, inst.id); err == nil {
				end = k2
			}
		} else if err == nil {
			end = cur.end(k.cfg.Clock.Now())
		}
		var fresh []logLine
		tl := k.withAttached(k.timeline(pod, spec, end.Sub(inst.start)), pod.Namespace+"/"+pod.Name, inst.id)
		for _, l := range tl.linesUpTo(end.Sub(inst.start), maxLogLines) {
			if l.at > done {
				fresh = append(fresh, l)
			}
		}
		if end.Sub(inst.start) > done {
			done = end.Sub(inst.start)
		}
		if err := writeLines(w, fresh, inst.start, timestamps); err != nil || w.left == 0 {
			return err
		}
		if len(fresh) > 0 {
			if f, ok := w.w.(interface{ Flush() }); ok {
				f.Flush()
			}
		}
		if stopped {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		case <-tick.C:
		}
	}
}

// logInstance is one run of a container whose output is read.
type logInstance struct {
	id       string
	start    time.Time
	finished time.Time
	running  bool
}

// end is when the instance stopped printing: its finish, or now.
func (i logInstance) end(now time.Time) time.Time {
	if i.running {
		return now
	}
	return i.finished
}

// logInstance finds the container instance whose log is asked for: the
// current (or, if it waits to restart, the last that ran) or the
// previous one, refusing as the kubelet refuses.
func (k *Kubelet) logInstance(pod *corev1.Pod, container string, previous bool) (logInstance, error) {
	k.stateMu.Lock()
	defer k.stateMu.Unlock()
	rt := k.runtimes[pod.Namespace+"/"+pod.Name]
	var c *containerRuntime
	if rt != nil && rt.uid == pod.UID {
		if i := rt.find(container); i >= 0 {
			c = &rt.containers[i]
		}
	}
	if c == nil {
		return logInstance{}, logErrorf(http.StatusBadRequest, "container %q in pod %q is waiting to start: ContainerCreating", container, pod.Name)
	}
	if err := validateLogStatus(c, pod.Name, previous); err != nil {
		return logInstance{}, err
	}
	switch {
	case !previous && c.state == containerRunning:
		return logInstance{id: c.id, start: c.startedAt, running: true}, nil
	case !previous && c.state == containerTerminated:
		return logInstance{id: c.id, start: c.startedAt, finished: c.finishedAt}, nil
	}
	return logInstance{id: c.last.ContainerID, start: c.last.StartedAt.Time, finished: c.last.FinishedAt.Time}, nil
}

// previousOf is when the instance id of a container finished, once a
// newer one replaced it.
func (k *Kubelet) previousOf(pod *corev1.Pod, container, id string) (time.Time, error) {
	k.stateMu.Lock()
	defer k.stateMu.Unlock()
	if rt := k.runtimes[pod.Namespace+"/"+pod.Name]; rt != nil {
		if i := rt.find(container); i >= 0 {
			if last := rt.containers[i].last; last != nil && last.ContainerID == id {
				return last.FinishedAt.Time, nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("instance %s is gone", id)
}

// writeLines writes lines as the runtime's log shows them, with the
// RFC 3339 timestamp first when asked.
func writeLines(w *limitedWriter, lines []logLine, start time.Time, timestamps bool) error {
	var b []byte
	for _, l := range lines {
		if timestamps {
			b = start.Add(l.at).UTC().AppendFormat(b, time.RFC3339Nano)
			b = append(b, ' ')
		}
		b = append(b, l.text...)
		b = append(b, '\n')
	}
	if len(b) == 0 {
		return nil
	}
	_, err := w.Write(b)
	return err
}

// limitedWriter stops after left bytes (limitBytes; -1: no limit).
type limitedWriter struct {
	w    io.Writer
	left int64
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.left == 0 {
		return 0, nil
	}
	if l.left > 0 && int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.w.Write(p)
	if l.left > 0 {
		l.left -= int64(n)
	}
	return n, err
}

// specContainer is the spec of a container of pod (init and ephemeral
// containers included).
func specContainer(pod *corev1.Pod, name string) *corev1.Container {
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers, ephemeralSpecs(pod)} {
		for i := range cs {
			if cs[i].Name == name {
				return &cs[i]
			}
		}
	}
	return &corev1.Container{Name: name}
}

// validateLogStatus refuses what the real kubelet refuses
// (validateContainerLogStatus): a previous instance that never was, a
// container that has not started yet.
func validateLogStatus(c *containerRuntime, podName string, previous bool) error {
	switch {
	case previous:
		if c.last == nil {
			return logErrorf(http.StatusBadRequest, "previous terminated container %q in pod %q not found", c.name, podName)
		}
	case c.state == containerRunning, c.state == containerTerminated, c.last != nil:
	default:
		reason := c.waitingReason
		if reason == "" {
			return logErrorf(http.StatusBadRequest, "container %q in pod %q is waiting to start - no logs yet", c.name, podName)
		}
		return logErrorf(http.StatusBadRequest, "container %q in pod %q is waiting to start: %s", c.name, podName, reason)
	}
	return nil
}

// hasContainer reports whether the pod's spec has a container of that
// name (init and ephemeral containers included).
func hasContainer(pod *corev1.Pod, name string) bool {
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers, ephemeralSpecs(pod)} {
		for _, c := range cs {
			if c.Name == name {
				return true
			}
		}
	}
	return false
}

// find is the index of the container name in r, or -1.
func (r *podRuntime) find(name string) int {
	for i := range r.containers {
		if r.containers[i].name == name {
			return i
		}
	}
	return -1
}
