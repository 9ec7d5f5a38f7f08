package kubelet

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/kubelet/containerenv"
	"github.com/kubesim/kubesim/kubelet/images"
)

// A container starts once its image is on the node (kubelet/images): the
// image manager applies its pull policy, and pulls — the node's puller
// takes one pull at a time, each for the time the registry's pace gives
// it. While a pull runs the pod's status is not written (the real pod
// worker is inside SyncPod, waiting for the pull), so a pod shows
// ContainerCreating until its images are there. A container whose image
// cannot be had waits with the image manager's reason (ErrImagePull,
// ImagePullBackOff, InvalidImageName, ErrImageNeverPull) and the pod is
// looked at again: the first failed pull a relist of the PLEG later (the
// pod's new sandbox is an event), anything else after the pod worker's
// back-off (workerBackOffPeriod), each look an attempt, or a BackOff event
// while the image's back-off lasts.

// starter starts the containers of one pod within one sync. It reads the
// pod's image pull secrets at most once, when a pull needs them.
type starter struct {
	k   *Kubelet
	ctx context.Context
	pod *corev1.Pod
	// keyring, once read; pending are the events reading it caused,
	// recorded before the pull's own.
	keyring *images.Keyring
	pending []podEvent
}

func (k *Kubelet) newStarter(ctx context.Context, pod *corev1.Pod) *starter {
	return &starter{k: k, ctx: ctx, pod: pod}
}

// pullKeyring is the keyring of the pod's image pull secrets (the
// kubelet's getPullSecretsForPod): a secret it cannot read is left out,
// with a FailedToRetrieveImagePullSecret event.
func (s *starter) pullKeyring() images.Keyring {
	if s.keyring != nil {
		return *s.keyring
	}
	var secrets []corev1.Secret
	var failed []string
	for _, ref := range s.pod.Spec.ImagePullSecrets {
		if ref.Name == "" {
			continue
		}
		secret, err := s.k.c.Secrets().Get(s.ctx, s.pod.Namespace, ref.Name)
		if err != nil {
			failed = append(failed, ref.Name)
			continue
		}
		secrets = append(secrets, *secret)
	}
	if len(failed) > 0 {
		s.pending = append(s.pending, podEvent{typ: "Warning", reason: "FailedToRetrieveImagePullSecret",
			message: fmt.Sprintf("Unable to retrieve some image pull secrets (%s); attempting to pull the image may not succeed.", strings.Join(failed, ", "))})
	}
	kr := images.MakeKeyring(secrets)
	s.keyring = &kr
	return kr
}

// startContainer starts (or restarts) c: its image first, then, if it is
// there, the container itself.
func (s *starter) startContainer(c *containerRuntime, now time.Time) []podEvent {
	if c.state == containerRunning {
		// Replaced (its image changed): what runs is gone.
		c.state, c.ready = containerWaiting, false
	}
	res := s.k.imgs.Ensure(images.Request{Image: c.image, Policy: pullPolicy(s.pod, c.name), Keyring: s.pullKeyring,
		Backoff: &c.pullBackoff}, now)
	events := s.pending
	s.pending = nil
	return append(append(events, imageEvents(c.name, res.Events)...), s.proceed(c, res, now)...)
}

// finishPull reports the end of c's pull: the container starts, or waits
// with the failure.
func (s *starter) finishPull(c *containerRuntime, now time.Time) []podEvent {
	p := c.pull
	c.pull = nil
	res := s.k.imgs.Finish(p, &c.pullBackoff)
	return append(imageEvents(c.name, res.Events), s.proceed(c, res, now)...)
}

// proceed acts on the image manager's decision for c.
func (s *starter) proceed(c *containerRuntime, res images.Result, now time.Time) []podEvent {
	switch {
	case res.Pull != nil:
		c.pull = res.Pull
		return nil
	case res.Image != nil:
		if err := s.configError(c); err != nil {
			// generateContainerConfig failed: the container waits and
			// is tried again at the next sync.
			c.waitingReason, c.waitingMessage = reasonCreateContainerConfigError, err.Error()
			c.backoffUntil = now.Add(workerBackOffPeriod)
			return []podEvent{{container: c.name, typ: "Warning", reason: "Failed", message: "Error: " + err.Error()}}
		}
		return createContainer(c, s.pod, *res.Image, now)
	}
	c.waitingReason, c.waitingMessage = res.Reason, res.Message
	resync := workerBackOffPeriod
	if res.Reason == images.ErrImagePull && c.pullBackoff.Delay == images.BackOffInitial {
		resync = plegRelist // the PLEG reports the sandbox the sync made
	}
	c.backoffUntil = now.Add(resync)
	// kuberuntime's startContainer reports the image manager's error.
	return []podEvent{{container: c.name, typ: "Warning", reason: "Failed", message: "Error: " + res.Reason}}
}

// createContainer creates and starts c from img, with the events the
// kubelet records for it.
func createContainer(c *containerRuntime, pod *corev1.Pod, img images.Resolved, now time.Time) []podEvent {
	c.state, c.startedAt, c.ready, c.everStarted = containerRunning, now, false, true
	c.waitingReason, c.waitingMessage, c.layer, c.exited, c.livenessFailures = "", "", nil, nil, 0
	c.backoffUntil, c.termMessage, c.startFailed = time.Time{}, "", false
	c.imageID = img.ID()
	c.id = containerID(string(pod.UID), c.name, c.restarts)
	return []podEvent{
		{container: c.name, typ: "Normal", reason: "Created", message: "Created container " + c.name},
		{container: c.name, typ: "Normal", reason: "Started", message: "Started container " + c.name},
	}
}

// imageEvents are the image manager's events about container name.
func imageEvents(name string, evs []images.Event) []podEvent {
	out := make([]podEvent, 0, len(evs))
	for _, ev := range evs {
		out = append(out, podEvent{container: name, typ: ev.Type, reason: ev.Reason, message: ev.Message})
	}
	return out
}

// pullPolicy is the imagePullPolicy of the pod's container name.
func pullPolicy(pod *corev1.Pod, name string) corev1.PullPolicy {
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			if cs[i].Name == name {
				return cs[i].ImagePullPolicy
			}
		}
	}
	for i := range pod.Spec.EphemeralContainers {
		if ec := &pod.Spec.EphemeralContainers[i]; ec.Name == name {
			return ec.ImagePullPolicy
		}
	}
	return ""
}

// pulling reports whether a pull for one of the pod's containers runs.
func (r *podRuntime) pulling() bool {
	for i := range r.containers {
		if r.containers[i].pull != nil {
			return true
		}
	}
	return false
}

// loadLocalImages puts the local images on the node, as `kind load
// docker-image` does: a container that names one with IfNotPresent (a
// tag other than latest) finds it there.
func (k *Kubelet) loadLocalImages(now time.Time) {
	if k.cfg.LocalImages == nil {
		return
	}
	for name, path := range k.cfg.LocalImages.Paths {
		k.loadLocalImage(name, path, now)
	}
	for name := range k.cfg.LocalImages.InProcess {
		k.loadLocalImage(name, "", now) // in kubesim's own binary: no size of its own
	}
}

// loadLocalImage puts one local image on the node, its size the binary's
// at path.
func (k *Kubelet) loadLocalImage(name, path string, now time.Time) {
	ref, err := images.Parse(name)
	if err != nil {
		return
	}
	img := images.Resolved{Name: ref.Name, Tag: ref.Tag, Digest: ref.Digest}
	if img.Digest == "" {
		img.Digest = images.LocalDigest(ref)
	}
	if fi, err := os.Stat(path); path != "" && err == nil {
		img.Size = fi.Size()
	}
	k.imgs.Store.Add(img, now)
}

// nodeImages are the images the node reports in its status.
func (k *Kubelet) nodeImages(now time.Time) []corev1.ContainerImage {
	k.stateMu.Lock()
	defer k.stateMu.Unlock()
	return k.imgs.Store.NodeImages(now)
}

// imagesReported reports whether the node's status already lists the
// images the node has.
func (k *Kubelet) imagesReported(reported []corev1.ContainerImage, now time.Time) bool {
	k.stateMu.Lock()
	defer k.stateMu.Unlock()
	return k.imgs.Store.Reported(reported, now)
}

// reasonCreateContainerConfigError is the waiting reason of a container
// whose configuration the kubelet could not make (kuberuntime's
// ErrCreateContainerConfig).
const reasonCreateContainerConfigError = "CreateContainerConfigError"

// configError is why container c of the starter's pod cannot be
// configured, or nil: a subPath or subPathExpr that is absolute or steps
// out of its volume.
func (s *starter) configError(c *containerRuntime) error {
	spec := specContainer(s.pod, c.name)
	if spec == nil {
		return nil
	}
	needed := false
	for _, m := range spec.VolumeMounts {
		needed = needed || m.SubPath != "" || m.SubPathExpr != ""
	}
	if !needed {
		return nil
	}
	env := containerenv.Build(s.ctx, s.pod, spec, simSources{envSources: s.k.envSources(false)})
	return containerenv.CheckSubPaths(spec, env.Env)
}
