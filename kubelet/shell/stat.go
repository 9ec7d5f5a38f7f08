package shell

import (
	"context"
	"io/fs"
	"path"
	"strings"
	"syscall"
)

// What stat and statfs say of a container's files beyond their content:
// the modes and owners the kubelet gave a mounted volume's files
// (defaultMode, an item's mode, fsGroup), the mode a process created a
// file with, and the filesystem a path is on (tmpfs for a memory-backed
// volume). Programs of the image read them through Process.FS (agnhost's
// mounttest prints them); the shell's own stat (test, globs) reads the
// same modes.

// Owner is a file's owning user and group.
type Owner struct {
	UID, GID int64
}

// FileMeta is a file's or directory's mode bits (permissions, setgid,
// sticky; its type comes from what it is) and owner.
type FileMeta struct {
	Mode fs.FileMode
	Owner
}

// FileStat is what stat says of a file: its full mode (type included),
// owner and size.
type FileStat struct {
	Mode fs.FileMode
	Owner
	Size int64
}

// Filesystem magic numbers (statfs's f_type, linux/magic.h): what a
// path not under a mount is on (the container's overlay root), a volume
// on the node's disk (ext4) and a memory-backed one (tmpfs).
const (
	OverlayfsMagic = 0x794c7630
	Ext4Magic      = 0xef53
	TmpfsMagic     = 0x01021994
)

// FS is the container's filesystem as one of its processes sees it, with
// the errors the kernel would give (*fs.PathError: "open /x: no such
// file or directory").
type FS interface {
	// ReadFile reads the file name.
	ReadFile(name string) ([]byte, error)
	// WriteFile creates or truncates name with perm (the process's umask
	// is 0, as mounttest sets it) and writes data.
	WriteFile(name string, data []byte, perm fs.FileMode) error
	// Stat describes name.
	Stat(name string) (FileStat, error)
	// Statfs is the magic number of the filesystem name is on.
	Statfs(name string) (int64, error)
}

// processFS is the FS of a process the shell runs.
type processFS struct{ s *state }

func (p processFS) ReadFile(name string) ([]byte, error) {
	abs := p.s.abs(name)
	if lv, ok := p.s.env.Network.(LiveVolumes); ok && p.s.onLiveVolume(abs) {
		if data, ok := lv.ReadVolumeFile(p.s.ctx, abs); ok {
			return data, nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ENOENT}
	}
	if data, ok := p.s.file(abs); ok {
		return data, nil
	}
	err := syscall.ENOENT
	if p.s.isDir(abs) {
		err = syscall.EISDIR
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: err}
}

func (p processFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	abs := p.s.abs(name)
	if err := p.s.writeFile(abs, data); err != nil {
		errno := syscall.ENOENT
		switch err {
		case errReadOnly:
			errno = syscall.EROFS
		case errIsDir:
			errno = syscall.EISDIR
		}
		return &fs.PathError{Op: "open", Path: name, Err: errno}
	}
	if p.s.meta == nil {
		p.s.meta = map[string]FileMeta{}
	}
	if _, ok := p.s.meta[abs]; !ok {
		// A new file: the process's user owns it, with the group of a
		// setgid directory (an emptyDir given an fsGroup).
		owner := p.s.env.User
		if dir, ok := p.s.info(path.Dir(abs)); ok && dir.mode&fs.ModeSetgid != 0 {
			owner.GID = dir.owner.GID
		}
		p.s.meta[abs] = FileMeta{Mode: perm & (fs.ModePerm | fs.ModeSetgid | fs.ModeSetuid | fs.ModeSticky), Owner: owner}
	}
	return nil
}

func (p processFS) Stat(name string) (FileStat, error) {
	info, ok := p.s.info(p.s.abs(name))
	if !ok {
		return FileStat{}, &fs.PathError{Op: "stat", Path: name, Err: syscall.ENOENT}
	}
	return FileStat{Mode: info.mode, Owner: info.owner, Size: info.size}, nil
}

func (p processFS) Statfs(name string) (int64, error) {
	abs := p.s.abs(name)
	if _, ok := p.s.info(abs); !ok {
		return 0, &fs.PathError{Op: "statfs", Path: name, Err: syscall.ENOENT}
	}
	return p.s.fsMagic(abs), nil
}

// fsMagic is the filesystem abs is on: tmpfs under a memory-backed
// volume, ext4 under another volume, else the overlay root.
func (s *state) fsMagic(abs string) int64 {
	best, magic := "", int64(OverlayfsMagic)
	under := func(mount string) bool {
		return abs == mount || strings.HasPrefix(abs, strings.TrimSuffix(mount, "/")+"/")
	}
	for _, t := range s.env.Tmpfs {
		if under(t) && len(t) > len(best) {
			best, magic = t, TmpfsMagic
		}
	}
	for _, m := range s.env.Mounts {
		if under(m.Path) && len(m.Path) > len(best) {
			best, magic = m.Path, Ext4Magic
		}
	}
	for _, d := range s.env.Dirs {
		// The other volumes' mount points (ConfigMaps, downward API).
		if _, ok := s.env.Meta[d]; ok && under(d) && len(d) > len(best) {
			best, magic = d, Ext4Magic
		}
	}
	return magic
}

// LiveVolumes reads the files of the volumes the kubelet keeps rewriting
// as their sources change (Environment.Live) as they are now.
type LiveVolumes interface {
	ReadVolumeFile(ctx context.Context, name string) ([]byte, bool)
}

// onLiveVolume says abs is under one of Environment.Live.
func (s *state) onLiveVolume(abs string) bool {
	for _, m := range s.env.Live {
		if strings.HasPrefix(abs, strings.TrimSuffix(m, "/")+"/") {
			return true
		}
	}
	return false
}

// metaOf is what the kubelet or a process said of abs, if anything.
func (s *state) metaOf(abs string) (FileMeta, bool) {
	if m, ok := s.meta[abs]; ok {
		return m, true
	}
	m, ok := s.env.Meta[abs]
	return m, ok
}
