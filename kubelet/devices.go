package kubelet

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"

	"github.com/kubesim/kubesim/client/cache"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// The node's devices, with Config.DevicePlugins, from the device plugins
// that register with the kubelet's device manager (kubelet/deviceplugin):
// their resources join the node's capacity and allocatable through the
// heartbeat's node status (node.go); a pod is given its devices when it
// is admitted, PreStartContainer is called before its containers start,
// the plugin's answer is in the containers' environment and files, and
// the devices are given back when the pod ends or is gone.

// unexpectedAdmissionError is the reason of a pod the device manager
// could not admit (pkg/kubelet/cm/admission's ErrorReasonUnexpected).
const unexpectedAdmissionError = "UnexpectedAdmissionError"

// devicesChanged is told by the device manager that a plugin's devices
// or their health changed: the heartbeat posts the node status now
// rather than at its next renewal.
func (k *Kubelet) devicesChanged() {
	k.mu.Lock()
	l := k.loops
	k.mu.Unlock()
	if l != nil {
		l.heartbeat.Enqueue(k.cfg.NodeName, controllers.Cause{Event: "device plugin"})
	}
}

// AnnouncedDevices are the devices resource's plugin last sent, once the
// heartbeat has been woken for them (deviceplugin.Manager.Announced); nil
// without device plugins or before the plugin's first list.
func (k *Kubelet) AnnouncedDevices(resource string) []*pluginapi.Device {
	if k.devices == nil {
		return nil
	}
	return k.devices.Announced(resource)
}

// deviceResources adds the device plugins' resources to a node status's
// capacity and allocatable.
func (k *Kubelet) deviceResources(st *corev1.NodeStatus, now time.Time) {
	if k.devices == nil {
		return
	}
	capacity, allocatable := k.devices.Resources(now)
	for name, q := range capacity {
		st.Capacity[name] = q
	}
	for name, q := range allocatable {
		st.Allocatable[name] = q
	}
}

// devicesReported reports whether status shows the device plugins'
// resources as they are at now (statusChanged).
func (k *Kubelet) devicesReported(status corev1.NodeStatus, now time.Time) bool {
	if k.devices == nil {
		return true
	}
	capacity, allocatable := k.devices.Resources(now)
	for name, q := range capacity {
		if old, ok := status.Capacity[name]; !ok || old.Cmp(q) != 0 {
			return false
		}
	}
	for name, q := range allocatable {
		if old, ok := status.Allocatable[name]; !ok || old.Cmp(q) != 0 {
			return false
		}
	}
	return true
}

// admitDevices gives a newly seen pod its devices (the device manager's
// part of the kubelet's admission); pods lists those the kubelet's
// informer holds. The message is why it cannot be admitted, "" when it can.
// Called with stateMu held.
func (k *Kubelet) admitDevices(ctx context.Context, pod *corev1.Pod, pods func() []*corev1.Pod) string {
	if k.devices == nil {
		return ""
	}
	// The devices of pods no longer active are free first, as the
	// device manager frees them before each allocation: the pod this one
	// replaces may be gone from the informer while its own sync, which
	// releases them, is still queued.
	active := map[types.UID]bool{pod.UID: true}
	for _, p := range pods() {
		if p.Spec.NodeName == k.cfg.NodeName && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			active[p.UID] = true
		}
	}
	k.devices.Retain(active)
	if err := k.devices.Allocate(ctx, pod); err != nil {
		// GetPodAdmitResult's words for an error of no admission type.
		return fmt.Sprintf("Allocate failed due to %v, which is unexpected", err)
	}
	return ""
}

// rejectPod fails a pod the kubelet would not admit, as its rejectPod
// does: a Warning event with the reason and message, and the pod Failed
// with them ("Pod was rejected: ..."). Its containers never start.
func (k *Kubelet) rejectPod(ctx context.Context, pod *corev1.Pod, rt *podRuntime, reason, message string) (controllers.Result, error) {
	updated := pod.DeepCopy()
	updated.Status.Phase = corev1.PodFailed
	updated.Status.Reason = reason
	updated.Status.Message = "Pod was rejected: " + message
	if _, err := k.c.Pods().UpdateStatus(ctx, updated); err != nil {
		// Admitted again at the retry.
		delete(k.runtimes, cache.Key(&pod.ObjectMeta))
		return controllers.Result{}, fmt.Errorf("updating status of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	rt.stage = stageTerminal
	k.podEvent(ctx, pod, podEvent{typ: "Warning", reason: reason, message: message})
	return controllers.Result{}, nil
}

// preStartDevices calls PreStartContainer for the pod's containers that
// have devices, before they start; the message is the container's
// Failed event when a plugin refused, "" when all is well.
func (k *Kubelet) preStartDevices(ctx context.Context, pod *corev1.Pod) string {
	if k.devices == nil || !k.devices.Has(pod.UID) {
		return ""
	}
	for _, c := range pod.Spec.Containers {
		if err := k.devices.PreStart(ctx, pod, c.Name); err != nil {
			return "Error: " + err.Error()
		}
	}
	return ""
}

// releaseDevices gives back the devices of the pod uid.
func (k *Kubelet) releaseDevices(rt *podRuntime) {
	if k.devices != nil && rt != nil {
		k.devices.Release(rt.uid)
	}
}

// addDeviceEnv puts what the device plugins answered for container c
// into its environment, as the runtime would: their variables before the
// pod's own (GenerateRunContainerOptions puts the device manager's
// first, so the pod's win), each device node as a file at its container
// path, each mount's container path as a directory.
func (k *Kubelet) addDeviceEnv(env *shell.Environment, pod *corev1.Pod, c *corev1.Container) {
	if k.devices == nil {
		return
	}
	allocs := k.devices.Container(pod.UID, c.Name)
	if len(allocs) == 0 {
		return
	}
	var vars []shell.Var
	for _, a := range allocs {
		if a.Response == nil {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(a.Response.Envs)) {
			vars = append(vars, shell.Var{Name: name, Value: a.Response.Envs[name]})
		}
		for _, d := range a.Response.Devices {
			if env.Files == nil {
				env.Files = map[string][]byte{}
			}
			env.Files[d.ContainerPath] = nil
		}
		for _, m := range a.Response.Mounts {
			env.Dirs = append(env.Dirs, m.ContainerPath)
		}
	}
	env.Env = append(vars, env.Env...)
}
