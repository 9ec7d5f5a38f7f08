package images

import (
	"fmt"

	"github.com/distribution/reference"
	corev1 "k8s.io/api/core/v1"
)

// Ref is an image reference as the kubelet and the container runtime read
// it: "nginx" is docker.io/library/nginx:latest.
type Ref struct {
	// Requested is the reference as the pod's spec names it: what the
	// kubelet's events and messages quote.
	Requested string
	// Name is the repository in full (docker.io/library/nginx), Domain its
	// registry host (docker.io) and Path the rest (library/nginx).
	Name, Domain, Path string
	// Tag is the tag ("latest" when the reference names neither a tag nor
	// a digest); Digest the digest, when one is named ("sha256:…"). A
	// reference may name both: the digest wins, as with containerd.
	Tag, Digest string
}

// Parse reads an image reference with the grammar of the distribution
// project (github.com/distribution/reference), which the kubelet uses:
// its error is the one an InvalidImageName reports, in the kubelet's words
// (applyDefaultImageTag in pkg/kubelet/images).
func Parse(image string) (Ref, error) {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return Ref{}, fmt.Errorf("couldn't parse image reference %q: %v", image, err)
	}
	r := Ref{Requested: image, Name: named.Name(), Domain: reference.Domain(named), Path: reference.Path(named)}
	if t, ok := named.(reference.Tagged); ok {
		r.Tag = t.Tag()
	}
	if d, ok := named.(reference.Digested); ok {
		r.Digest = d.Digest().String()
	}
	if r.Tag == "" && r.Digest == "" {
		r.Tag = "latest"
	}
	return r, nil
}

// String is the reference in full, as the container runtime reports it
// (a container status's image): docker.io/library/nginx:latest, or the
// name with its digest.
func (r Ref) String() string {
	if r.Digest != "" {
		return r.Name + "@" + r.Digest
	}
	return r.Name + ":" + r.Tag
}

// Normalize spells an image reference in full (nginx →
// docker.io/library/nginx:latest); a reference that does not parse is
// returned as it is.
func Normalize(image string) string {
	r, err := Parse(image)
	if err != nil {
		return image
	}
	return r.String()
}

// DefaultPullPolicy is the imagePullPolicy the API server gives a
// container that names none: Always for :latest or no tag, IfNotPresent
// otherwise (a digest alone pins the image). The kubelet applies it only
// to a pod that reached it without defaults.
func DefaultPullPolicy(r Ref) corev1.PullPolicy {
	if r.Tag == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}
