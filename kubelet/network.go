package kubelet

import (
	"context"
	"errors"
	"maps"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/kubelet/cni"
)

// The pod's network, from the node's simulated allocator (ipam.go) or,
// with Config.CNI, from the CNI plugins the runtime calls (kubelet/cni):
// ADD when the sandbox is made, before the containers start; DEL when the
// pod ends or is gone. A sandbox the runtime cannot make is the pod's
// FailedCreatePodSandBox event, and the pod worker tries again after its
// back-off (workerBackOffPeriod, 10 s), as for a RuntimeClass the node
// lacks.

// setUpNetwork gives rt's sandbox its network through the CNI plugins, if
// it has none yet; msg is the FailedCreatePodSandBox message when that
// failed. Called with stateMu held: the pod worker waits for its runtime.
func (k *Kubelet) setUpNetwork(ctx context.Context, pod *corev1.Pod, rt, next *podRuntime) (msg string) {
	if k.cni == nil || rt.sandbox != nil {
		return ""
	}
	sb, err := k.cni.SetUp(ctx, sandboxID(pod), cni.Pod{Namespace: pod.Namespace, Name: pod.Name, UID: string(pod.UID)})
	if err != nil {
		k.logger.Info("pod sandbox network failed", "pod", pod.Namespace+"/"+pod.Name, "err", err)
		if errors.Is(err, cni.ErrDeadlineExceeded) {
			// The CRI call itself ran out of time.
			return "Failed to create pod sandbox: " + err.Error()
		}
		return "Failed to create pod sandbox: rpc error: code = Unknown desc = " + err.Error()
	}
	rt.sandbox, next.sandbox = sb, sb
	k.routeSandbox(sb, true)
	return ""
}

// releaseNetwork frees the address of a pod whose sandbox is torn down:
// DEL through the plugins, or back to the node's allocator. A DEL that
// fails leaves the sandbox's record, and the garbage collection of
// collectSandboxes tries again.
func (k *Kubelet) releaseNetwork(ctx context.Context, rt *podRuntime) {
	if k.cni == nil {
		k.ipam.release(rt.ip)
		return
	}
	if rt.sandbox == nil {
		return
	}
	sb := rt.sandbox
	rt.sandbox = nil
	k.routeSandbox(sb, false)
	if err := k.cni.TearDown(ctx, sb); err != nil {
		k.logger.Info("pod sandbox network teardown failed", "pod", sb.Pod.String(), "err", err)
		k.orphans[sb.Pod.UID] = sb
	}
}

// routeSandbox makes the pod network send the sandbox's addresses to this
// node (on) or stop doing so: the routes a CNI plugin's node agent adds.
func (k *Kubelet) routeSandbox(sb *cni.Sandbox, on bool) {
	if k.cfg.Network == nil {
		return
	}
	for _, ip := range sb.IPs {
		a, err := netip.ParseAddr(ip)
		if err != nil {
			continue
		}
		if on {
			k.cfg.Network.ServeNode(netip.PrefixFrom(a, a.BitLen()), k.dialSimulated)
		} else {
			k.cfg.Network.ForgetNode(netip.PrefixFrom(a, a.BitLen()))
		}
	}
}

// loadSandboxes reads the sandboxes a previous kubelet of this node
// recorded: each waits for its pod to adopt it (adoptSandbox), or for
// collectSandboxes to tear it down.
func (k *Kubelet) loadSandboxes() error {
	k.orphans = map[string]*cni.Sandbox{}
	if k.cni == nil {
		return nil
	}
	recorded, err := k.cni.Sandboxes()
	if err != nil {
		return err
	}
	for _, sb := range recorded {
		k.orphans[sb.Pod.UID] = sb
	}
	return nil
}

// adoptSandbox gives a pod the kubelet had no memory of the sandbox
// recorded for it, if there is one, and checks (CNI CHECK) that its
// network is still as ADD left it. Called with stateMu held.
func (k *Kubelet) adoptSandbox(ctx context.Context, pod *corev1.Pod, rt *podRuntime) {
	sb := k.orphans[string(pod.UID)]
	if sb == nil || rt.stage == stageTerminal {
		return
	}
	delete(k.orphans, string(pod.UID))
	rt.sandbox = sb
	if rt.stage == stageStarted {
		rt.ip, rt.ipHeld = sb.IPs[0], true
	}
	k.routeSandbox(sb, true)
	if err := k.cni.Check(ctx, sb); err != nil {
		k.logger.Info("adopted pod sandbox failed its check", "pod", sb.Pod.String(), "err", err)
	}
}

// collectSandboxes tears down the recorded sandboxes no pod of this node
// claims, once the kubelet knows its pods (the informer has synced): the
// container garbage collector's removal of the sandboxes of deleted
// pods. Called by the heartbeat.
func (k *Kubelet) collectSandboxes(ctx context.Context) {
	if k.cni == nil {
		return
	}
	k.mu.Lock()
	inf := k.loops.pods
	k.mu.Unlock()
	if !inf.HasSynced() {
		return
	}
	live := map[string]bool{}
	for _, pod := range inf.List() {
		if pod.Spec.NodeName == k.cfg.NodeName && pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
			live[string(pod.UID)] = true
		}
	}
	k.stateMu.Lock()
	defer k.stateMu.Unlock()
	// In order of uid: the step trace shows the calls.
	for _, uid := range slices.Sorted(maps.Keys(k.orphans)) {
		sb := k.orphans[uid]
		if live[uid] {
			continue // its pod's worker adopts it
		}
		if err := k.cni.TearDown(ctx, sb); err != nil {
			k.logger.Info("orphaned pod sandbox teardown failed", "pod", sb.Pod.String(), "err", err)
			continue
		}
		delete(k.orphans, uid)
	}
}
