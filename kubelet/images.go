package kubelet

import (
	"context"
	"net"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// Process is a container the kubelet runs for real.
type Process interface {
	// Addr is the real host:port it listens on.
	Addr() string
	// Stop stops it; it is safe to call more than once.
	Stop()
}

// ImageRunner starts a container of one image for real (in process). The
// pod's IP is still simulated: the kubelet records in the pod network that
// podIP:containerPort is served at the process's Addr.
type ImageRunner func(ctx context.Context, pod *corev1.Pod, container corev1.Container) (Process, error)

// realContainer is a running process and the pod addresses it serves.
type realContainer struct {
	proc     Process
	podAddrs []string
}

// startReal starts the containers of pod whose image has a runner (under
// stateMu), once the pod has its IP. A failure is logged; the container
// stays simulated, and its endpoint refuses connections.
func (k *Kubelet) startReal(key string, pod *corev1.Pod, ip string) {
	if len(k.cfg.Images) == 0 || k.real[key] != nil {
		return
	}
	for _, c := range pod.Spec.Containers {
		run, ok := k.cfg.Images[c.Image]
		if !ok {
			continue
		}
		proc, err := run(context.Background(), pod, c)
		if err != nil {
			k.logger.Error("running an image for real", "pod", key, "image", c.Image, "err", err)
			continue
		}
		rc := realContainer{proc: proc}
		for _, p := range c.Ports {
			podAddr := net.JoinHostPort(ip, strconv.Itoa(int(p.ContainerPort)))
			if k.cfg.Network != nil {
				k.cfg.Network.Register(podAddr, proc.Addr())
			}
			rc.podAddrs = append(rc.podAddrs, podAddr)
		}
		k.real[key] = append(k.real[key], rc)
	}
}

// stopReal stops the real containers of a pod (under stateMu).
func (k *Kubelet) stopReal(key string) {
	for _, rc := range k.real[key] {
		for _, a := range rc.podAddrs {
			if k.cfg.Network != nil {
				k.cfg.Network.Unregister(a)
			}
		}
		rc.proc.Stop()
	}
	delete(k.real, key)
}

// StopAllReal stops every real container of the node (the cluster is
// closing).
func (k *Kubelet) StopAllReal() {
	k.stateMu.Lock()
	defer k.stateMu.Unlock()
	for key := range k.real {
		k.stopReal(key)
	}
}
