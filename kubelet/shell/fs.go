package shell

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"sync"
)

// Layer is a container's writable layer: the files and directories its
// processes wrote (kubectl cp's tar, touch, mkdir), kept while the
// container runs and shared by every exec into it, as a container
// runtime keeps a container's upper directory. A restarted container
// gets a new, empty one. Safe for concurrent use; a nil Layer holds
// nothing and refuses writes.
type Layer struct {
	mu    sync.Mutex
	files map[string][]byte
	dirs  map[string]bool
	// gone are the image's files removed (rm): a runtime's whiteouts.
	gone map[string]bool
	// onChange, when set, hears of every file that appears or goes.
	onChange func(path string, present bool)
}

// NewLayer returns an empty writable layer.
func NewLayer() *Layer {
	return &Layer{files: map[string][]byte{}, dirs: map[string]bool{}, gone: map[string]bool{}}
}

// OnChange sets fn to hear of every file of the layer that appears
// (present) or goes: the kubelet learns from it when a container's own
// script touches and removes the files its exec probes look at. fn must
// not use the layer.
func (l *Layer) OnChange(fn func(path string, present bool)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.onChange = fn
}

// remove deletes p, and what is below it, from the layer, hiding the
// image's files of that name too.
func (l *Layer) remove(p string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for f := range l.files {
		if f == p || strings.HasPrefix(f, p+"/") {
			delete(l.files, f)
			if l.onChange != nil {
				l.onChange(f, false)
			}
		}
	}
	for d := range l.dirs {
		if d == p || strings.HasPrefix(d, p+"/") {
			delete(l.dirs, d)
		}
	}
	l.gone[p] = true
}

// hidden: p was removed from the image by rm.
func (l *Layer) hidden(p string) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gone[p]
}

func (l *Layer) file(p string) ([]byte, bool) {
	if l == nil {
		return nil, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	data, ok := l.files[p]
	return data, ok
}

// isDir: a directory made in the layer, or the parent of one of its files.
func (l *Layer) isDir(p string) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dirs[p] {
		return true
	}
	for f := range l.files {
		if strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	for d := range l.dirs {
		if strings.HasPrefix(d, p+"/") {
			return true
		}
	}
	return false
}

// each calls add with every path of the layer.
func (l *Layer) each(add func(string)) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for f := range l.files {
		add(f)
	}
	for d := range l.dirs {
		add(d)
	}
}

// errReadOnly and errNotExist are the errnos a write can meet, in the
// words of the C library.
var (
	errReadOnly = errors.New("Read-only file system")
	errNotExist = errors.New("No such file or directory")
	errIsDir    = errors.New("Is a directory")
)

// file reads p (absolute, clean): a writable volume's file when p is
// under its mount, else the layer's copy first, then the image's and the
// other volumes' files.
func (s *state) file(p string) ([]byte, bool) {
	if p == "/dev/null" {
		return nil, true // reads nothing
	}
	if v, rel, ok := s.mountAt(p); ok {
		return v.ReadFile(rel)
	}
	if data, ok := s.env.Layer.file(p); ok {
		return data, true
	}
	if s.env.Layer.hidden(p) {
		return nil, false
	}
	data, ok := s.env.Files[p]
	return data, ok
}

// writable reports why p cannot be written, or nil.
func (s *state) writable(p string) error {
	for _, ro := range s.env.ReadOnly {
		if p == ro || strings.HasPrefix(p, ro+"/") {
			return errReadOnly
		}
	}
	if _, _, ok := s.mountAt(p); ok {
		return nil
	}
	if s.env.Layer == nil || s.env.ReadOnlyRoot && !slices.Contains(s.env.Writable, p) {
		return errReadOnly
	}
	return nil
}

// writeFile writes p; its directory must exist.
func (s *state) writeFile(p string, data []byte) error {
	if err := s.writable(p); err != nil {
		return err
	}
	if !s.isDir(path.Dir(p)) {
		return errNotExist
	}
	if s.isDir(p) {
		return errIsDir
	}
	if v, rel, ok := s.mountAt(p); ok {
		return v.WriteFile(rel, data)
	}
	l := s.env.Layer
	l.mu.Lock()
	defer l.mu.Unlock()
	_, existed := l.files[p]
	l.files[p] = data
	delete(l.gone, p)
	if !existed && l.onChange != nil {
		l.onChange(p, true)
	}
	return nil
}

// mkdirAll makes p and its parents.
func (s *state) mkdirAll(p string) error {
	if s.isDir(p) {
		return nil
	}
	if _, ok := s.file(p); ok {
		return errors.New("File exists")
	}
	if err := s.writable(p); err != nil {
		return err
	}
	if v, rel, ok := s.mountAt(p); ok {
		return v.MkdirAll(rel)
	}
	l := s.env.Layer
	l.mu.Lock()
	defer l.mu.Unlock()
	for d := p; d != "/"; d = path.Dir(d) {
		l.dirs[d] = true
	}
	return nil
}

// touch makes empty files (or leaves existing ones alone).
func (s *state) touch(args []string) int {
	code := 0
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		p := s.abs(a)
		if _, ok := s.file(p); ok || s.isDir(p) {
			continue
		}
		if err := s.writeFile(p, []byte{}); err != nil {
			fmt.Fprintf(s.stderr, "touch: %s: %v\n", a, err)
			code = 1
		}
	}
	return code
}

// mkdir makes directories; -p makes parents and accepts existing ones.
func (s *state) mkdir(args []string) int {
	parents, code := false, 0
	for _, a := range args {
		if a == "-p" {
			parents = true
			continue
		}
		p := s.abs(a)
		switch {
		case s.isDir(p) && !parents:
			fmt.Fprintf(s.stderr, "mkdir: can't create directory '%s': File exists\n", a)
			code = 1
		case !parents && !s.isDir(path.Dir(p)):
			fmt.Fprintf(s.stderr, "mkdir: can't create directory '%s': No such file or directory\n", a)
			code = 1
		default:
			if err := s.mkdirAll(p); err != nil {
				fmt.Fprintf(s.stderr, "mkdir: can't create directory '%s': %v\n", a, err)
				code = 1
			}
		}
	}
	return code
}

// tarOptions is a tar command line: the mode (c, x or t), the archive
// ("-" is the standard streams), the directory to work in and the paths.
type tarOptions struct {
	mode    byte
	file    string
	dir     string
	verbose bool
	paths   []string
}

// parseTar reads busybox tar's arguments: a first word of letters with
// or without a dash ("cf", "-xmf"), more dashed letters, -C DIR, long
// options kubectl sends (--no-same-permissions, --no-same-owner), then
// paths. The f letter takes the next word.
func parseTar(args []string) (tarOptions, error) {
	var o tarOptions
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "--"):
			continue // the ownership and permission options change nothing here
		case a == "-C":
			if i+1 >= len(args) {
				return o, errors.New("option requires an argument -- 'C'")
			}
			i++
			o.dir = args[i]
		case strings.HasPrefix(a, "-") || (i == 0 && a != ""):
			for _, c := range strings.TrimPrefix(a, "-") {
				switch c {
				case 'c', 'x', 't':
					o.mode = byte(c)
				case 'f':
					if i+1 >= len(args) {
						return o, errors.New("option requires an argument -- 'f'")
					}
					i++
					o.file = args[i]
				case 'v':
					o.verbose = true
				case 'm', 'o', 'p':
				case 'C':
					if i+1 >= len(args) {
						return o, errors.New("option requires an argument -- 'C'")
					}
					i++
					o.dir = args[i]
				default:
					return o, fmt.Errorf("invalid option -- '%c'", c)
				}
			}
		default:
			o.paths = append(o.paths, a)
		}
	}
	if o.mode == 0 {
		return o, errors.New("need to specify one of -c, -x or -t")
	}
	if o.file != "" && o.file != "-" {
		return o, fmt.Errorf("can't open '%s': %v", o.file, errReadOnly)
	}
	return o, nil
}

// tar writes an archive of the container's files to stdout (c), or
// unpacks one read from stdin (x) — what kubectl cp runs in the
// container, both ways — or lists one (t).
func (s *state) tar(args []string) int {
	o, err := parseTar(args)
	if err != nil {
		fmt.Fprintf(s.stderr, "tar: %v\n", err)
		return 1
	}
	dir := s.dir
	if o.dir != "" {
		dir = s.abs(o.dir)
		if !s.isDir(dir) {
			fmt.Fprintf(s.stderr, "tar: can't change directory to '%s': No such file or directory\n", o.dir)
			return 1
		}
	}
	switch o.mode {
	case 'c':
		return s.tarCreate(dir, o)
	case 'x':
		return s.tarExtract(dir, o)
	}
	return s.tarList()
}

func (s *state) tarCreate(dir string, o tarOptions) int {
	if len(o.paths) == 0 {
		fmt.Fprintln(s.stderr, "tar: empty archive")
		return 1
	}
	tw := tar.NewWriter(s.stdout)
	code, warned := 0, false
	mtime := s.clock.Now()
	var add func(full, name string) error
	add = func(full, name string) error {
		if data, ok := s.file(full); ok {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: mtime}); err != nil {
				return err
			}
			_, err := tw.Write(data)
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755, ModTime: mtime}); err != nil {
			return err
		}
		for _, c := range s.children(full) {
			if err := add(path.Join(full, c), path.Join(name, c)); err != nil {
				return err
			}
		}
		return nil
	}
	for _, p := range o.paths {
		full := path.Clean(path.Join(dir, p))
		if strings.HasPrefix(p, "/") {
			full = path.Clean(p)
		}
		if _, ok := s.file(full); !ok && !s.isDir(full) {
			fmt.Fprintf(s.stderr, "tar: %s: No such file or directory\n", p)
			code = 1
			continue
		}
		name := path.Clean(p)
		if strings.HasPrefix(name, "/") {
			if !warned {
				fmt.Fprintln(s.stderr, "tar: removing leading '/' from member names")
				warned = true
			}
			name = strings.TrimLeft(name, "/")
		}
		if name == "" {
			name = "."
		}
		if err := add(full, name); err != nil {
			return 1 // the reader went away
		}
	}
	if err := tw.Close(); err != nil {
		return 1
	}
	return code
}

func (s *state) tarExtract(dir string, o tarOptions) int {
	tr := tar.NewReader(s.stdin)
	code := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return code
		}
		if err != nil {
			fmt.Fprintln(s.stderr, "tar: short read")
			return 1
		}
		name := path.Clean(strings.TrimLeft(h.Name, "/"))
		if name == "." || name == ".." || strings.HasPrefix(name, "../") {
			continue
		}
		full := path.Join(dir, name)
		if o.verbose {
			fmt.Fprintln(s.stdout, h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = s.mkdirAll(full)
		case tar.TypeReg:
			var data []byte
			if data, err = io.ReadAll(tr); err != nil {
				fmt.Fprintln(s.stderr, "tar: short read")
				return 1
			}
			if err = s.mkdirAll(path.Dir(full)); err == nil {
				err = s.writeFile(full, data)
			}
		default:
			continue // links and devices are not simulated
		}
		if err != nil {
			fmt.Fprintf(s.stderr, "tar: can't open '%s': %v\n", name, err)
			code = 1
		}
	}
}

func (s *state) tarList() int {
	tr := tar.NewReader(s.stdin)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintln(s.stderr, "tar: short read")
			return 1
		}
		names = append(names, h.Name)
	}
	for _, n := range names {
		fmt.Fprintln(s.stdout, n)
	}
	return 0
}

// ashName is the name ash's messages begin with: the shell's argv[0]
// ("/bin/sh: can't create /file: Read-only file system").
func (s *state) ashName() string {
	if s.arg0 != "" {
		return s.arg0
	}
	return "sh"
}
