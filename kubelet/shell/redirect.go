package shell

import (
	"errors"
	"io"
	"slices"
)

// errNoDir is busybox's wording for creating a file in a directory that
// does not exist.
var errNoDir = errors.New("nonexistent directory")

// openForWrite creates (or, appending, keeps) the file name and returns
// a writer adding to it in the container's layer. /dev/null discards.
func (s *state) openForWrite(name string, appendTo bool) (io.Writer, error) {
	p := s.abs(name)
	if p == "/dev/null" {
		return io.Discard, nil
	}
	data, exists := s.file(p)
	if !appendTo || !exists {
		data = nil
	}
	if err := s.writeFile(p, data); err != nil {
		if errors.Is(err, errNotExist) {
			err = errNoDir
		}
		return nil, err
	}
	return layerWriter{s: s, path: p}, nil
}

// layerWriter appends what a command prints to a file of the layer, or
// of the volume mounted where the file is.
type layerWriter struct {
	s    *state
	path string
}

func (w layerWriter) Write(b []byte) (int, error) {
	if v, rel, ok := w.s.mountAt(w.path); ok {
		if err := v.AppendFile(rel, b); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	l := w.s.env.Layer
	l.mu.Lock()
	defer l.mu.Unlock()
	l.files[w.path] = append(slices.Clip(l.files[w.path]), b...)
	return len(b), nil
}
