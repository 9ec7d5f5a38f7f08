package shell

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// redirect is one output redirection of a simple command: `> FILE`,
// `>> FILE`, `2> FILE`, `2>&1`. Tutorials write files this way
// (`kubectl exec web -- sh -c 'echo hello > /usr/share/nginx/html/index.html'`),
// so it is the one redirection the shell keeps; `<`, pipes and here-documents
// stay left out.
type redirect struct {
	// fd is the descriptor redirected: 1 (stdout) or 2 (stderr).
	fd int
	// appendTo is `>>`: the file is added to, not truncated.
	appendTo bool
	// dupOf is N of `>&N`: fd becomes a copy of N; 0 when target is a file.
	dupOf int
	// target is the file's word, expanded when the command runs.
	target word
}

// redirect reads a redirection operator at p.i ('>'); an unquoted "1" or
// "2" just before it, with no space, names the descriptor.
func (p *parser) redirect() error {
	fd := 1
	if p.inW && len(p.w) == 1 && p.w[0].literal() && !p.w[0].quoted && (p.w[0].text == "1" || p.w[0].text == "2") {
		fd = int(p.w[0].text[0] - '0')
		p.w, p.inW = nil, false
	} else {
		p.endWord()
	}
	if p.pending != nil {
		return fmt.Errorf("syntax error: unexpected %q", ">")
	}
	p.i++
	r := redirect{fd: fd}
	switch {
	case strings.HasPrefix(p.src[p.i:], ">"):
		r.appendTo = true
		p.i++
	case strings.HasPrefix(p.src[p.i:], "&1"), strings.HasPrefix(p.src[p.i:], "&2"):
		r.dupOf = int(p.src[p.i+1] - '0')
		p.i += 2
		p.cur.redirs = append(p.cur.redirs, r)
		return nil
	case strings.HasPrefix(p.src[p.i:], "&"):
		return fmt.Errorf("%q is not simulated (only >&1 and >&2 are)", ">&")
	}
	p.pending = &r
	return nil
}

// errNoRedirectTarget is ash's error for a `>` with no file after it;
// rest is the script from the token that came instead.
func errNoRedirectTarget(rest string) error {
	tok := "newline"
	switch {
	case rest == "" || rest[0] == '\n':
	case strings.HasPrefix(rest, "&&"), strings.HasPrefix(rest, "||"):
		tok = fmt.Sprintf("%q", rest[:2])
	default:
		tok = fmt.Sprintf("%q", rest[:1])
	}
	return fmt.Errorf("syntax error: unexpected %s", tok)
}

// redirected runs fn with the command's redirections in place, in order
// (so `> f 2>&1` sends both to f), and puts the streams back after. A
// file that cannot be created fails the command before it runs, with
// ash's message and status 2.
func (s *state) redirected(rs []redirect, fn func() int) int {
	if len(rs) == 0 {
		return fn()
	}
	stdout, stderr := s.stdout, s.stderr
	defer func() { s.stdout, s.stderr = stdout, stderr }()
	for _, r := range rs {
		var w io.Writer
		switch r.dupOf {
		case 1:
			w = s.stdout
		case 2:
			w = s.stderr
		default:
			name := s.expand(r.target)
			fw, err := s.openForWrite(name, r.appendTo)
			if err != nil {
				fmt.Fprintf(s.stderr, "sh: can't create %s: %s\n", name, err)
				return 2
			}
			w = fw
		}
		if r.fd == 1 {
			s.stdout = w
		} else {
			s.stderr = w
		}
	}
	return fn()
}

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
