package images

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Host is a registry host that answers.
type Host struct {
	// Name is the host as image references spell it (docker.io).
	Name string
	// Private: the registry serves nothing without the account's
	// credentials (PrivateUsername, PrivatePassword).
	Private bool
}

// Repository is one repository of a registry and the images it holds.
type Repository struct {
	// Name is the repository in full: docker.io/library/nginx.
	Name string
	// Images are its images, each under its tags.
	Images []Image
	// AnyTag: every tag resolves, to the repository's one image
	// (kubesim's own images, built in).
	AnyTag bool
	// Private: a pull needs the account's credentials.
	Private bool
}

// Image is one image of a repository.
type Image struct {
	// Tags name it (none for an AnyTag repository's).
	Tags []string
	// Size is its size in bytes, as the runtime reports it.
	Size int64
}

// Resolved is an image a reference resolved to: what a pull brings.
type Resolved struct {
	// Name is the repository in full; Tag the tag pulled ("" when the
	// reference named only a digest); Digest the image's digest.
	Name, Tag, Digest string
	// Size is the image's size in bytes.
	Size int64
}

// ID is the image's reference by digest, a container status's imageID:
// docker.io/library/nginx@sha256:….
func (r Resolved) ID() string { return r.Name + "@" + r.Digest }

// Credential is a username and password for a registry.
type Credential struct {
	Username, Password string
}

// The pace of a simulated pull: a request to resolve the reference
// (DefaultResolveTime), then the layers at DefaultBytesPerSecond. A pull
// of an image whose layers the node has is the request alone (Always on
// an image already pulled).
const (
	DefaultResolveTime    = 300 * time.Millisecond
	DefaultBytesPerSecond = 50 << 20
)

// Registry is every simulated registry: the hosts that answer and the
// repositories they hold. It is read-only once made, and shared by the
// kubelets.
type Registry struct {
	hosts map[string]Host
	repos map[string]*repository
	// ResolveTime and BytesPerSecond pace the pulls.
	ResolveTime    time.Duration
	BytesPerSecond int64
}

// repository is a Repository indexed by tag and digest.
type repository struct {
	Repository
	byTag    map[string]Resolved
	byDigest map[string]Resolved
}

// NewRegistry makes a registry of hosts holding repos, at the default
// pace. A repository whose host is not among hosts cannot be pulled.
func NewRegistry(hosts []Host, repos []Repository) *Registry {
	r := &Registry{hosts: map[string]Host{}, repos: map[string]*repository{},
		ResolveTime: DefaultResolveTime, BytesPerSecond: DefaultBytesPerSecond}
	for _, h := range hosts {
		r.hosts[h.Name] = h
	}
	for _, repo := range repos {
		ix := &repository{Repository: repo, byTag: map[string]Resolved{}, byDigest: map[string]Resolved{}}
		for _, img := range repo.Images {
			if len(img.Tags) == 0 {
				continue
			}
			res := Resolved{Name: repo.Name, Digest: digestOf(repo.Name, img.Tags[0]), Size: img.Size}
			ix.byDigest[res.Digest] = res
			for _, t := range img.Tags {
				res.Tag = t
				ix.byTag[t] = res
			}
		}
		r.repos[repo.Name] = ix
	}
	return r
}

// defaultRegistry is the table of catalog.go, indexed once: it never
// changes.
var defaultRegistry = sync.OnceValue(func() *Registry { return NewRegistry(knownHosts, catalog) })

// Default is the registries docs/containers.md lists. The same value is
// returned each time; it must not be changed.
func Default() *Registry { return defaultRegistry() }

// WithPace is a registry with r's contents whose pulls take resolve for
// the reference and the size at bytesPerSecond (0: no time for the
// layers). WithPace(0, 0) pulls in no time at all.
func (r *Registry) WithPace(resolve time.Duration, bytesPerSecond int64) *Registry {
	cp := *r
	cp.ResolveTime, cp.BytesPerSecond = resolve, bytesPerSecond
	return &cp
}

// Repositories lists the registry's repositories (for docs and tests).
func (r *Registry) Repositories() []Repository {
	out := make([]Repository, 0, len(r.repos))
	for _, repo := range r.repos {
		out = append(out, repo.Repository)
	}
	return out
}

// digestOf is an image's digest. kubesim has no image content to hash;
// it hashes the repository and the image's first tag, so that a digest
// is stable and every tag of one image shares it.
func digestOf(name, tag string) string {
	sum := sha256.Sum256([]byte(name + ":" + tag))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// LocalDigest is the digest of an image put on a node without a pull (a
// local image, `kubesim serve --local-image`).
func LocalDigest(ref Ref) string { return digestOf(ref.Name, ref.Tag) }

// PullTime is how long pulling an image of size takes; layersPresent: the
// node has its layers, so only the reference is resolved.
func (r *Registry) PullTime(size int64, layersPresent bool) time.Duration {
	d := r.ResolveTime
	if !layersPresent && r.BytesPerSecond > 0 {
		d += time.Duration(size*1000/r.BytesPerSecond) * time.Millisecond
	}
	return d
}

// PullError is a failed pull, worded as containerd's CRI answers the
// kubelet (the text after "Failed to pull image …: " in the event).
type PullError struct {
	// Code is the gRPC code: NotFound or Unknown.
	Code string
	// Ref is the reference in full; Cause what went wrong resolving it.
	Ref, Cause string
}

func (e *PullError) Error() string {
	return fmt.Sprintf("rpc error: code = %s desc = failed to pull and unpack image %q: failed to resolve reference %q: %s",
		e.Code, e.Ref, e.Ref, e.Cause)
}

// Resolve finds what ref names, as a pull with creds would: the image, or
// the error the registry (or the network to it) gives.
func (r *Registry) Resolve(ref Ref, creds []Credential) (Resolved, error) {
	full := ref.Name
	if ref.Tag != "" {
		full += ":" + ref.Tag
	}
	if ref.Digest != "" {
		full += "@" + ref.Digest
	}
	fail := func(code, cause string) (Resolved, error) {
		return Resolved{}, &PullError{Code: code, Ref: full, Cause: cause}
	}
	manifest := ref.Tag
	if ref.Digest != "" {
		manifest = ref.Digest
	}
	host, port, _ := strings.Cut(ref.Domain, ":")
	url := fmt.Sprintf("https://%s/v2/%s/manifests/%s", ref.Domain, ref.Path, manifest)
	h, known := r.hosts[ref.Domain]
	switch {
	case host == "localhost" || host == "127.0.0.1":
		// No registry listens on the node (kind's "localhost:5001"
		// registry is a container kubesim does not have).
		if port == "" {
			port = "443"
		}
		return fail("Unknown", fmt.Sprintf("failed to do request: Head %q: dial tcp 127.0.0.1:%s: connect: connection refused", url, port))
	case !known:
		return fail("Unknown", fmt.Sprintf("failed to do request: Head %q: dial tcp: lookup %s: no such host", url, host))
	}
	repo := r.repos[ref.Name]
	if (h.Private || repo != nil && repo.Private) && !authorized(creds) {
		if h.Name == DockerHub {
			return fail("Unknown", dockerHubDenied)
		}
		return fail("Unknown", fmt.Sprintf("unexpected status from HEAD request to %s: 401 Unauthorized", url))
	}
	notFound := func() (Resolved, error) { return fail("NotFound", full+": not found") }
	if repo == nil {
		if h.Name == DockerHub {
			// Docker Hub does not say whether a repository exists
			// to whom may not read it.
			return fail("Unknown", dockerHubDenied)
		}
		return notFound()
	}
	if repo.AnyTag {
		tag := ref.Tag
		if ref.Digest != "" {
			return notFound() // its digests are those of tags: name one
		}
		return Resolved{Name: repo.Name, Tag: tag, Digest: digestOf(repo.Name, tag), Size: repo.Images[0].Size}, nil
	}
	if ref.Digest != "" {
		res, ok := repo.byDigest[ref.Digest]
		if !ok {
			return notFound()
		}
		res.Tag = ""
		return res, nil
	}
	res, ok := repo.byTag[ref.Tag]
	if !ok {
		return notFound()
	}
	return res, nil
}

// dockerHubDenied is Docker Hub's answer for a repository that does not
// exist or that the client may not read.
const dockerHubDenied = "pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed"

// authorized: one of creds is the account's.
func authorized(creds []Credential) bool {
	for _, c := range creds {
		if c.Username == PrivateUsername && c.Password == PrivatePassword {
			return true
		}
	}
	return false
}
