package shell

import (
	"errors"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
)

// Volume is the storage behind a writable mount — an emptyDir, a
// persistent volume — whose files live apart from the container: what a
// process writes under the mount point goes to the volume, not to the
// container's layer, so that it outlives the container (an emptyDir lives
// as long as its pod, a persistent volume until it is deleted) and is
// seen by every container that mounts it. Paths are absolute within the
// volume ("/" is its root) and clean. Implementations are safe for
// concurrent use.
type Volume interface {
	// ReadFile returns the file at p, if there is one.
	ReadFile(p string) ([]byte, bool)
	// IsDir reports whether p is a directory ("/" always is).
	IsDir(p string) bool
	// List returns the names directly inside directory p, sorted.
	List(p string) []string
	// WriteFile creates or replaces the file at p; its directory exists.
	WriteFile(p string, data []byte) error
	// AppendFile adds data at the end of the file at p, which exists.
	AppendFile(p string, data []byte) error
	// MkdirAll makes directory p and its parents.
	MkdirAll(p string) error
	// RemoveAll removes p and what is below it.
	RemoveAll(p string) error
}

// Mount is a writable volume mounted into the container at Path (absolute,
// clean). A mount marked readOnly is in Environment.ReadOnly as well.
type Mount struct {
	Path   string
	Volume Volume
}

// errBusy is what rm says of a mount point.
var errBusy = errors.New("Resource busy")

// MemoryVolume is a Volume kept in memory: an emptyDir's storage (its
// medium is the node's disk or, for medium Memory, a tmpfs; both go with
// the pod).
type MemoryVolume struct {
	mu    sync.Mutex
	files map[string][]byte
	dirs  map[string]bool
}

// NewMemoryVolume returns an empty volume.
func NewMemoryVolume() *MemoryVolume {
	return &MemoryVolume{files: map[string][]byte{}, dirs: map[string]bool{}}
}

// ReadFile implements Volume.
func (v *MemoryVolume) ReadFile(p string) ([]byte, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	data, ok := v.files[p]
	return data, ok
}

// IsDir implements Volume.
func (v *MemoryVolume) IsDir(p string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if p == "/" || v.dirs[p] {
		return true
	}
	for f := range v.files {
		if strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}

// List implements Volume.
func (v *MemoryVolume) List(p string) []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	prefix := strings.TrimSuffix(p, "/") + "/"
	seen := map[string]bool{}
	add := func(full string) {
		if rest, ok := strings.CutPrefix(full, prefix); ok && rest != "" {
			name, _, _ := strings.Cut(rest, "/")
			seen[name] = true
		}
	}
	for f := range v.files {
		add(f)
	}
	for d := range v.dirs {
		add(d)
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// WriteFile implements Volume.
func (v *MemoryVolume) WriteFile(p string, data []byte) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.files[p] = slices.Clone(data)
	return nil
}

// AppendFile implements Volume.
func (v *MemoryVolume) AppendFile(p string, data []byte) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.files[p] = append(slices.Clip(v.files[p]), data...)
	return nil
}

// MkdirAll implements Volume.
func (v *MemoryVolume) MkdirAll(p string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	for d := p; d != "/" && d != "."; d = path.Dir(d) {
		v.dirs[d] = true
	}
	return nil
}

// RemoveAll implements Volume.
func (v *MemoryVolume) RemoveAll(p string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	for f := range v.files {
		if f == p || strings.HasPrefix(f, p+"/") {
			delete(v.files, f)
		}
	}
	for d := range v.dirs {
		if d == p || strings.HasPrefix(d, p+"/") {
			delete(v.dirs, d)
		}
	}
	return nil
}

// SubVolume is the part of v below dir (a volumeMount's subPath), made if
// it is missing, as the kubelet makes a subPath's directory.
func SubVolume(v Volume, dir string) Volume {
	dir = path.Clean("/" + dir)
	if dir == "/" {
		return v
	}
	_ = v.MkdirAll(dir)
	return subVolume{v: v, dir: dir}
}

type subVolume struct {
	v   Volume
	dir string
}

func (s subVolume) in(p string) string { return path.Join(s.dir, p) }

func (s subVolume) ReadFile(p string) ([]byte, bool)       { return s.v.ReadFile(s.in(p)) }
func (s subVolume) IsDir(p string) bool                    { return s.v.IsDir(s.in(p)) }
func (s subVolume) List(p string) []string                 { return s.v.List(s.in(p)) }
func (s subVolume) WriteFile(p string, data []byte) error  { return s.v.WriteFile(s.in(p), data) }
func (s subVolume) AppendFile(p string, data []byte) error { return s.v.AppendFile(s.in(p), data) }
func (s subVolume) MkdirAll(p string) error                { return s.v.MkdirAll(s.in(p)) }
func (s subVolume) RemoveAll(p string) error               { return s.v.RemoveAll(s.in(p)) }

// mountAt finds the mount p is in (the deepest), and p's path inside its
// volume ("/" for the mount point).
func (s *state) mountAt(p string) (Volume, string, bool) {
	best := -1
	for i, m := range s.env.Mounts {
		if p == m.Path || strings.HasPrefix(p, strings.TrimSuffix(m.Path, "/")+"/") {
			if best < 0 || len(m.Path) > len(s.env.Mounts[best].Path) {
				best = i
			}
		}
	}
	if best < 0 {
		return nil, "", false
	}
	m := s.env.Mounts[best]
	rel := "/" + strings.TrimPrefix(strings.TrimPrefix(p, m.Path), "/")
	return m.Volume, path.Clean(rel), true
}

// mountPointsIn lists the names of the mount points directly inside
// directory p (a mount below another one, or below an image directory).
func (s *state) mountPointsIn(p string) []string {
	prefix := strings.TrimSuffix(p, "/") + "/"
	var out []string
	for _, m := range s.env.Mounts {
		if rest, ok := strings.CutPrefix(m.Path, prefix); ok && rest != "" {
			name, _, _ := strings.Cut(rest, "/")
			out = append(out, name)
		}
	}
	return out
}

// Overlay is a copy-on-write view of lower: reads fall through to it,
// writes and removals stay in the view. A container's own command is
// played ahead of the clock, and again when it is replayed
// (kubelet/simulation.go): it reads its volumes through an overlay, so
// that what it would write does not land in them at the wrong time, or
// twice.
func Overlay(lower Volume) Volume {
	return &overlay{lower: lower, upper: NewMemoryVolume(), removed: map[string]bool{}}
}

type overlay struct {
	lower Volume
	upper *MemoryVolume
	mu    sync.Mutex
	// removed are the lower paths removed in the view (whiteouts).
	removed map[string]bool
}

// hidden: p or a parent of it was removed in the view.
func (o *overlay) hidden(p string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for d := p; ; d = path.Dir(d) {
		if o.removed[d] {
			return true
		}
		if d == "/" || d == "." {
			return false
		}
	}
}

func (o *overlay) ReadFile(p string) ([]byte, bool) {
	if data, ok := o.upper.ReadFile(p); ok {
		return data, true
	}
	if o.hidden(p) {
		return nil, false
	}
	return o.lower.ReadFile(p)
}

func (o *overlay) IsDir(p string) bool {
	return o.upper.IsDir(p) || !o.hidden(p) && o.lower.IsDir(p)
}

func (o *overlay) List(p string) []string {
	seen := map[string]bool{}
	for _, n := range o.upper.List(p) {
		seen[n] = true
	}
	if !o.hidden(p) {
		for _, n := range o.lower.List(p) {
			if !o.hidden(path.Join(p, n)) {
				seen[n] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

func (o *overlay) WriteFile(p string, data []byte) error { return o.upper.WriteFile(p, data) }

func (o *overlay) AppendFile(p string, data []byte) error {
	if _, ok := o.upper.ReadFile(p); !ok {
		if old, ok := o.ReadFile(p); ok {
			_ = o.upper.WriteFile(p, old)
		}
	}
	return o.upper.AppendFile(p, data)
}

func (o *overlay) MkdirAll(p string) error { return o.upper.MkdirAll(p) }

func (o *overlay) RemoveAll(p string) error {
	_ = o.upper.RemoveAll(p)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.removed[p] = true
	return nil
}

// ReadFile reads the file p of a container's filesystem as its processes
// see it (a mount's volume, its layer, the image's and the other volumes'
// files): what a server in the container would read, nginx its document
// root.
func ReadFile(env Environment, p string) ([]byte, bool) {
	return (&state{env: &env}).file(path.Clean("/" + p))
}

// IsDir reports whether p is a directory of the container's filesystem.
func IsDir(env Environment, p string) bool {
	return (&state{env: &env}).isDir(path.Clean("/" + p))
}

// OnMount reports whether p is on a writable volume mounted into the
// container (which hides what the image has there).
func OnMount(env Environment, p string) bool {
	_, _, ok := (&state{env: &env}).mountAt(path.Clean("/" + p))
	return ok
}
