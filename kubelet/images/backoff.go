package images

import "time"

// The image pull back-off (the kubelet's imageBackOff): 10 s after a
// failed pull, doubling with each failure to at most 5 minutes.
const (
	BackOffInitial = 10 * time.Second
	BackOffMax     = 5 * time.Minute
)

// Backoff is the pull back-off of one container's image: the kubelet's
// flowcontrol.Backoff entry keyed by the pod and the image. A container
// keeps its own, so that it is cloned and dropped with the container.
type Backoff struct {
	// Image is the image it is about: another image starts afresh.
	Image string
	// Delay is the current back-off; LastUpdate when the last pull
	// failed.
	Delay      time.Duration
	LastUpdate time.Time
	// LastError is the last failure, "ErrImagePull: <message>": an
	// ImagePullBackOff's message repeats it.
	LastError string
}

// expired: no failure for twice the maximum; the back-off starts over.
func (b *Backoff) expired(now time.Time) bool {
	return now.Sub(b.LastUpdate) > 2*BackOffMax
}

// InBackOff reports whether a pull of image must wait at now.
func (b *Backoff) InBackOff(image string, now time.Time) bool {
	if b.Image != image || b.Delay == 0 || b.expired(now) {
		return false
	}
	return now.Sub(b.LastUpdate) < b.Delay
}

// Next records a failed pull of image at now: the back-off starts at
// BackOffInitial, or doubles, up to BackOffMax.
func (b *Backoff) Next(image string, now time.Time) {
	if b.Image != image || b.Delay == 0 || b.expired(now) {
		b.Image, b.Delay = image, BackOffInitial
	} else {
		b.Delay = min(2*b.Delay, BackOffMax)
	}
	b.LastUpdate = now
}
