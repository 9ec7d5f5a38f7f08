package images

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The reasons a container waits for its image, as its status reports them
// (pkg/kubelet/images/types.go).
const (
	ErrImagePull        = "ErrImagePull"
	ImagePullBackOff    = "ImagePullBackOff"
	InvalidImageName    = "InvalidImageName"
	ErrImageNeverPull   = "ErrImageNeverPull"
	reasonPulling       = "Pulling"
	reasonPulled        = "Pulled"
	reasonFailed        = "Failed"
	reasonBackOff       = "BackOff"
	reasonInspectFailed = "InspectFailed"
)

// Event is an event the image manager records about a container.
type Event struct {
	Type, Reason, Message string
}

// Request is a container about to start, as the image manager sees it.
type Request struct {
	// Image is the image as the container's spec names it.
	Image string
	// Policy is its imagePullPolicy (empty: the API server's default).
	Policy corev1.PullPolicy
	// Keyring gives the credentials of the pod's pull secrets; it is
	// called only for a pull.
	Keyring func() Keyring
	// Backoff is the container's pull back-off; a failed pull updates it.
	Backoff *Backoff
}

// Result is what the image manager decided.
type Result struct {
	// Events are to be recorded about the container, in order.
	Events []Event
	// Image is the image to run: the container starts now.
	Image *Resolved
	// Pull is a pull under way: the container waits for its end (Finish).
	Pull *Pull
	// Reason and Message say why the container cannot start
	// (ErrImagePull, ImagePullBackOff, InvalidImageName,
	// ErrImageNeverPull); the container waits with them.
	Reason, Message string
}

// Pull is a pull the node's puller was given. Its outcome is known when
// it is asked for (the simulated registry answers at once); it is
// reported at Done, the end of the pull.
type Pull struct {
	// Requested is the image as the spec names it.
	Requested string
	// Image is what it brings, when Err is nil.
	Image Resolved
	// Err is why it fails.
	Err error
	// Asked is when the kubelet asked for it, Started when the puller
	// took it (after the pulls before it), Done when it ends.
	Asked, Started, Done time.Time
}

// Manager is a node's image manager (pkg/kubelet/images, imageManager's
// EnsureImageExists with the serialized puller): the pull policy, the
// node's images, the pull back-off and the pull itself.
type Manager struct {
	Registry *Registry
	Store    *Store
}

// Ensure decides, at now, what the container's start needs: its image is
// there (Image), a pull starts (Pull), or it cannot start (Reason).
func (m *Manager) Ensure(req Request, now time.Time) Result {
	ref, err := Parse(req.Image)
	if err != nil {
		msg := fmt.Sprintf("Failed to apply default image tag %q: %v", req.Image, err)
		return Result{Events: []Event{{corev1.EventTypeWarning, reasonInspectFailed, msg}}, Reason: InvalidImageName, Message: msg}
	}
	policy := req.Policy
	if policy == "" {
		policy = DefaultPullPolicy(ref)
	}
	if policy != corev1.PullAlways {
		if img, ok := m.Store.Find(ref, now); ok {
			msg := fmt.Sprintf("Container image %q already present on machine", req.Image)
			return Result{Events: []Event{{corev1.EventTypeNormal, reasonPulled, msg}}, Image: &img}
		}
		if policy == corev1.PullNever {
			msg := fmt.Sprintf("Container image %q is not present with pull policy of Never", req.Image)
			return Result{Events: []Event{{corev1.EventTypeWarning, ErrImageNeverPull, msg}}, Reason: ErrImageNeverPull, Message: msg}
		}
	}
	if req.Backoff.InBackOff(req.Image, now) {
		msg := fmt.Sprintf("Back-off pulling image %q", req.Image)
		full := msg
		if req.Backoff.LastError != "" {
			full += ": " + req.Backoff.LastError
		}
		return Result{Events: []Event{{corev1.EventTypeNormal, reasonBackOff, msg}}, Reason: ImagePullBackOff, Message: full}
	}
	var creds []Credential
	if req.Keyring != nil {
		creds = req.Keyring().Lookup(ref)
	}
	p := &Pull{Requested: req.Image, Asked: now}
	p.Image, p.Err = m.Registry.Resolve(ref, creds)
	d := m.Registry.ResolveTime
	if p.Err == nil {
		d = m.Registry.PullTime(p.Image.Size, m.Store.hasLayers(p.Image, m.Store.startOf(now)))
	}
	p.Started, p.Done = m.Store.reserve(now, d)
	if p.Err == nil {
		// Another pod's pull of the image, asked for before the end of
		// this one, finds it there.
		m.Store.Add(p.Image, p.Done)
	}
	return Result{Events: []Event{{corev1.EventTypeNormal, reasonPulling, fmt.Sprintf("Pulling image %q", req.Image)}}, Pull: p}
}

// Finish reports the end of pull p: the image to run, or the failure
// (ErrImagePull), which moves the container's back-off b on.
func (m *Manager) Finish(p *Pull, b *Backoff) Result {
	if p.Err != nil {
		msg := p.Err.Error()
		b.Next(p.Requested, p.Done)
		b.LastError = ErrImagePull + ": " + msg
		return Result{Events: []Event{{corev1.EventTypeWarning, reasonFailed, fmt.Sprintf("Failed to pull image %q: %s", p.Requested, msg)}},
			Reason: ErrImagePull, Message: msg}
	}
	img := p.Image
	msg := fmt.Sprintf("Successfully pulled image %q in %v (%v including waiting). Image size: %d bytes.",
		p.Requested, p.Done.Sub(p.Started).Truncate(time.Millisecond), p.Done.Sub(p.Asked).Truncate(time.Millisecond), img.Size)
	return Result{Events: []Event{{corev1.EventTypeNormal, reasonPulled, msg}}, Image: &img}
}
