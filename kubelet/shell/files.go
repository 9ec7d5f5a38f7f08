package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/interp"
)

// The interpreter's file handlers: the files a script's shell opens
// (redirections, here-documents aside), stats (test, [[ ]], cd) and
// lists (globs) are the container's simulated ones (fs.go, volume.go),
// never the machine's kubesim runs on.

// open opens a redirection's file: `> FILE` and `>> FILE` write the
// container's layer or the volume mounted there, `< FILE` reads the
// container's files. A file that cannot be opened is reported as ash
// reports it and fails its command with status 2 (bash: 1); the
// interpreter would print its own words and give status 1, so open
// hands it a file that is no file, and call fails the command
// (handlers.go). It also opens the shell's own paths: the pipes of
// rewrite.go, the streams of stderrRedirect and the scripts `.` reads.
func (sh *shell) open(ctx context.Context, name string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	writing := flag&(os.O_WRONLY|os.O_RDWR) != 0
	switch {
	case strings.HasPrefix(name, pipePrefix):
		if writing {
			// The left-hand side starts: a new pipe, above those of
			// the pipelines running around it.
			sh.pipes[name] = append(sh.pipes[name], nil)
			return &pipeWriter{sh: sh, name: name, depth: len(sh.pipes[name])}, nil
		}
		stack := sh.pipes[name]
		if len(stack) == 0 {
			return readOnly{strings.NewReader("")}, nil
		}
		data := stack[len(stack)-1]
		sh.pipes[name] = stack[:len(stack)-1]
		return readOnly{bytes.NewReader(data)}, nil
	case name == fdStdout:
		// 2>&1: the interpreter's messages keep ash's words.
		return &shellErrors{sh: sh, w: hc.Stdout}, nil
	case name == fdStderr:
		// >&2: what a command prints is not the interpreter's.
		return writeOnly{underlying(hc.Stderr)}, nil
	case strings.HasPrefix(name, errFile):
		f, err := sh.open(ctx, strings.TrimPrefix(name, errFile), flag, perm)
		if _, failed := f.(*broken); failed || err != nil {
			return f, err
		}
		return &shellErrors{sh: sh, w: f}, nil
	case strings.HasPrefix(name, "\x00source/"):
		text := sh.sources[name]
		delete(sh.sources, name)
		return readOnly{strings.NewReader(text)}, nil
	case sh.broken > 0:
		// The command's redirection before this one failed: ash goes
		// no further.
		return sh.brokenFile(), nil
	}
	p := sh.process(ctx, hc)
	if writing {
		w, err := p.openForWrite(name, flag&os.O_APPEND != 0)
		if err != nil {
			if sh.proc.name == "bash" {
				if errors.Is(err, errNoDir) {
					err = errNotExist
				}
				fmt.Fprintf(p.stderr, "bash: %s: %v\n", name, err)
			} else {
				fmt.Fprintf(p.stderr, "%s: can't create %s: %v\n", p.ashName(), name, err)
			}
			return sh.brokenFile(), nil
		}
		return writeOnly{w}, nil
	}
	abs := p.abs(name)
	if data, ok := p.file(abs); ok {
		return readOnly{bytes.NewReader(data)}, nil
	}
	if p.isDir(abs) {
		return readOnly{strings.NewReader("")}, nil
	}
	if sh.proc.name == "bash" {
		fmt.Fprintf(p.stderr, "bash: %s: No such file or directory\n", name)
	} else {
		fmt.Fprintf(p.stderr, "sh: can't open %s: no such file\n", name)
	}
	return sh.brokenFile(), nil
}

// pipePrefix starts the paths rewrite.go gives a pipeline's output.
const pipePrefix = internal + "pipe/"

// pipeWriter collects what a pipeline's left-hand side prints, for its
// right-hand side to read.
type pipeWriter struct {
	sh    *shell
	name  string
	depth int
}

func (w *pipeWriter) Write(b []byte) (int, error) {
	if stack := w.sh.pipes[w.name]; w.depth <= len(stack) {
		stack[w.depth-1] = append(stack[w.depth-1], b...)
	}
	return len(b), nil
}

func (w *pipeWriter) Read([]byte) (int, error) { return 0, io.EOF }
func (w *pipeWriter) Close() error             { return nil }

// brokenFile is what a redirection that failed opens: nothing is read
// from or written to it, and while it is open (its command runs) call
// fails every command.
func (sh *shell) brokenFile() io.ReadWriteCloser {
	sh.broken++
	return &broken{sh: sh}
}

type broken struct {
	sh     *shell
	closed bool
}

func (b *broken) Read([]byte) (int, error)    { return 0, io.EOF }
func (b *broken) Write(p []byte) (int, error) { return len(p), nil }

func (b *broken) Close() error {
	if !b.closed {
		b.closed = true
		b.sh.broken--
	}
	return nil
}

// readOnly and writeOnly are the files open hands out.
type readOnly struct{ io.Reader }

func (readOnly) Write([]byte) (int, error) { return 0, errors.New("Bad file descriptor") }
func (readOnly) Close() error              { return nil }

type writeOnly struct{ io.Writer }

func (writeOnly) Read([]byte) (int, error) { return 0, errors.New("Bad file descriptor") }
func (writeOnly) Close() error             { return nil }

// stat describes a file of the container: its files, directories and
// /dev/null.
func (sh *shell) stat(ctx context.Context, name string, _ bool) (fs.FileInfo, error) {
	p := sh.process(ctx, interp.HandlerCtx(ctx))
	abs := p.abs(name)
	if info, ok := p.info(abs); ok {
		return info, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// info describes the file or directory at abs.
func (s *state) info(abs string) (fileInfo, bool) {
	if abs == "/dev/null" {
		return fileInfo{name: "null", mode: fs.ModeDevice | fs.ModeCharDevice | 0o666}, true
	}
	if data, ok := s.file(abs); ok {
		info := fileInfo{name: path.Base(abs), size: int64(len(data)), mode: 0o644}
		if m, ok := s.metaOf(abs); ok {
			info.mode, info.owner = m.Mode, m.Owner
		}
		return info, true
	}
	if s.isDir(abs) {
		info := fileInfo{name: path.Base(abs), mode: fs.ModeDir | 0o755}
		if m, ok := s.metaOf(abs); ok {
			info.mode, info.owner = fs.ModeDir|m.Mode, m.Owner
		}
		return info, true
	}
	return fileInfo{}, false
}

// readDir lists a directory of the container, for a glob.
func (sh *shell) readDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	p := sh.process(ctx, interp.HandlerCtx(ctx))
	abs := p.abs(name)
	if !p.isDir(abs) {
		if _, ok := p.file(abs); ok {
			return nil, &fs.PathError{Op: "readdirent", Path: name, Err: syscall.ENOTDIR}
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	var out []fs.DirEntry
	for _, c := range p.children(abs) {
		if info, ok := p.info(path.Join(abs, c)); ok {
			out = append(out, fs.FileInfoToDirEntry(info))
		}
	}
	return out, nil
}

// access answers test's -r, -w and -x and cd's check: the shell runs as
// root, so what exists may be read and run, and written unless it is on
// a read-only mount.
func (sh *shell) access(ctx context.Context, name string, mode interp.AccessMode) error {
	p := sh.process(ctx, interp.HandlerCtx(ctx))
	abs := p.abs(name)
	if _, ok := p.info(abs); !ok {
		return &fs.PathError{Op: "access", Path: name, Err: fs.ErrNotExist}
	}
	if mode&interp.AccessWrite != 0 {
		if err := p.writable(abs); err != nil {
			return &fs.PathError{Op: "access", Path: name, Err: err}
		}
	}
	return nil
}

// fileInfo describes a simulated file: no time.
type fileInfo struct {
	name  string
	size  int64
	mode  fs.FileMode
	owner Owner
}

func (f fileInfo) Name() string       { return f.name }
func (f fileInfo) Size() int64        { return f.size }
func (f fileInfo) Mode() fs.FileMode  { return f.mode }
func (f fileInfo) ModTime() time.Time { return time.Time{} }
func (f fileInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fileInfo) Sys() any           { return nil }
