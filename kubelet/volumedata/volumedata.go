package volumedata

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/kubelet/shell"
)

// Store holds the PersistentVolumes' data. Safe for concurrent use.
type Store struct {
	// dir is the directory of the volumes' directories ("": memory).
	dir string
	mu  sync.Mutex
	mem map[string]*shell.MemoryVolume
}

// New returns the store of the volumes under dir, made if missing; an
// empty dir keeps them in memory.
func New(dir string) (*Store, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("volume data: %w", err)
		}
	}
	return &Store{dir: dir, mem: map[string]*shell.MemoryVolume{}}, nil
}

// key is the volume's directory name: its name, then its uid, so that a
// volume deleted and made again under the same name starts empty.
func key(name string, uid types.UID) (string, error) {
	if name == "" || uid == "" || strings.ContainsAny(name+string(uid), `/\`) || name == "." || name == ".." {
		return "", fmt.Errorf("volume data: bad volume %q (uid %q)", name, uid)
	}
	return name + "_" + string(uid), nil
}

// Volume is the data of the PersistentVolume name with uid.
func (s *Store) Volume(name string, uid types.UID) (shell.Volume, error) {
	k, err := key(name, uid)
	if err != nil {
		return nil, err
	}
	if s.dir == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		v := s.mem[k]
		if v == nil {
			v = shell.NewMemoryVolume()
			s.mem[k] = v
		}
		return v, nil
	}
	return diskVolume{root: filepath.Join(s.dir, k)}, nil
}

// Delete removes the data of the PersistentVolume name with uid (none is
// fine).
func (s *Store) Delete(name string, uid types.UID) error {
	k, err := key(name, uid)
	if err != nil {
		return err
	}
	if s.dir == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.mem, k)
		return nil
	}
	return os.RemoveAll(filepath.Join(s.dir, k))
}

// Volumes lists the names and uids of the volumes that hold data, sorted.
func (s *Store) Volumes() ([][2]string, error) {
	var keys []string
	if s.dir == "" {
		s.mu.Lock()
		for k := range s.mem {
			keys = append(keys, k)
		}
		s.mu.Unlock()
	} else {
		entries, err := os.ReadDir(s.dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() {
				keys = append(keys, e.Name())
			}
		}
	}
	slices.Sort(keys)
	var out [][2]string
	for _, k := range keys {
		if i := strings.LastIndex(k, "_"); i > 0 {
			out = append(out, [2]string{k[:i], k[i+1:]})
		}
	}
	return out, nil
}

// diskVolume is a volume's directory: its files are real files. The root
// is made at the first write.
type diskVolume struct{ root string }

// path is p (absolute and clean within the volume) on disk: a clean
// absolute path cannot climb out of the root.
func (v diskVolume) path(p string) string {
	return filepath.Join(v.root, filepath.FromSlash(filepath.ToSlash(filepath.Clean("/"+p))))
}

func (v diskVolume) ReadFile(p string) ([]byte, bool) {
	fi, err := os.Stat(v.path(p))
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	data, err := os.ReadFile(v.path(p))
	return data, err == nil
}

func (v diskVolume) IsDir(p string) bool {
	if p == "/" {
		return true
	}
	fi, err := os.Stat(v.path(p))
	return err == nil && fi.IsDir()
}

func (v diskVolume) List(p string) []string {
	entries, err := os.ReadDir(v.path(p))
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out // os.ReadDir sorts by name
}

func (v diskVolume) WriteFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(v.path(p)), 0o755); err != nil {
		return errno(err)
	}
	return errno(os.WriteFile(v.path(p), data, 0o644))
}

func (v diskVolume) AppendFile(p string, data []byte) error {
	f, err := os.OpenFile(v.path(p), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return errno(err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return errno(err)
}

func (v diskVolume) MkdirAll(p string) error { return errno(os.MkdirAll(v.path(p), 0o755)) }

func (v diskVolume) RemoveAll(p string) error {
	if p == "/" {
		return errors.New("Resource busy")
	}
	return errno(os.RemoveAll(v.path(p)))
}

// errno is the host's error as the C library words it to a container
// ("No space left on device"), without the host's path.
func errno(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		if msg != "" {
			msg = strings.ToUpper(msg[:1]) + msg[1:]
		}
		return errors.New(msg)
	}
	return err
}

// Dir is a directory of the host as a container's volume: what the
// kubelet hands a container for a volume a CSI driver published at dir.
func Dir(dir string) shell.Volume { return diskVolume{root: dir} }
