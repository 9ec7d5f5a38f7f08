package kubelet

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/kubesim/kubesim/api"
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
	k.stateMu.Lock()
	rt := k.runtimes[namespace+"/"+podName]
	var c *containerRuntime
	if rt != nil && rt.uid == pod.UID {
		if i := rt.find(container); i >= 0 {
			cp := rt.containers[i]
			c = &cp
		}
	}
	k.stateMu.Unlock()
	if c == nil {
		return logErrorf(http.StatusBadRequest, "container %q in pod %q is waiting to start: ContainerCreating", container, podName)
	}
	if err := validateLogStatus(c, podName, opts.Previous); err != nil {
		return err
	}
	return nil
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
// name (init containers included).
func hasContainer(pod *api.Pod, name string) bool {
	for _, cs := range [][]api.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
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
