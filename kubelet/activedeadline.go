package kubelet

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/controllers"
)

// The kubelet's activeDeadlineHandler (pkg/kubelet/active_deadline.go): a
// pod with spec.activeDeadlineSeconds that has been active that long since
// its start is killed and fails, whatever its restart policy.
const (
	deadlineExceededReason  = "DeadlineExceeded"
	deadlineExceededMessage = "Pod was active on the node longer than the specified deadline"
)

// activeDeadline is when pod's activeDeadlineSeconds runs out, counted from
// its start; ok is false when it has none or has not started.
func activeDeadline(pod *corev1.Pod, rt *podRuntime) (at time.Time, ok bool) {
	d := pod.Spec.ActiveDeadlineSeconds
	if d == nil || rt.stage == stageAccepted || rt.startTime.IsZero() {
		return time.Time{}, false
	}
	return rt.startTime.Add(time.Duration(*d) * time.Second), true
}

// untilDeadline makes res come back no later than the pod's active
// deadline (the real kubelet's pod worker is resynced when it passes).
func untilDeadline(res controllers.Result, pod *corev1.Pod, rt *podRuntime, now time.Time) controllers.Result {
	at, ok := activeDeadline(pod, rt)
	if !ok || rt.stage == stageTerminal || res.Requeue {
		return res
	}
	if d := at.Sub(now); res.RequeueAfter == 0 || d < res.RequeueAfter {
		res.RequeueAfter = max(d, time.Millisecond)
	}
	return res
}

// exceedDeadline kills the containers of a pod past its active deadline
// (exit 137, as a SIGKILL ends them) and fails the pod with reason
// DeadlineExceeded; its sandbox is torn down. The caller holds stateMu.
func (k *Kubelet) exceedDeadline(ctx context.Context, pod *corev1.Pod, rt *podRuntime, now time.Time) (controllers.Result, error) {
	key := pod.Namespace + "/" + pod.Name
	k.stopReal(key)
	for _, lp := range k.local {
		if lp.podKey == key {
			k.stopLocalBy(lp, now)
		}
	}
	next := rt.clone()
	for i := range next.containers {
		c := &next.containers[i]
		if c.state != containerTerminated {
			c.state, c.ready, c.finishedAt, c.exitCode, c.termReason = containerTerminated, false, now, 137, "Error"
		}
	}
	next.stage = stageTerminal
	k.unmountCSIVolumes(ctx, key, "")
	status := k.renderStatus(pod, next, now)
	status.Phase, status.Reason, status.Message = corev1.PodFailed, deadlineExceededReason, deadlineExceededMessage
	updated := *pod
	updated.Status = status
	if _, err := k.c.Pods().UpdateStatus(ctx, &updated); err != nil {
		return controllers.Result{}, fmt.Errorf("updating status of pod %s: %w", key, err)
	}
	if next.ipHeld || next.sandbox != nil {
		k.releaseNetwork(ctx, next)
		next.ipHeld = false
	}
	k.releaseDevices(next)
	k.runtimes[key] = next
	if k.changed != nil {
		close(k.changed)
		k.changed = nil
	}
	k.podEvent(ctx, pod, podEvent{typ: "Warning", reason: deadlineExceededReason, message: deadlineExceededMessage})
	return controllers.Result{}, nil
}
