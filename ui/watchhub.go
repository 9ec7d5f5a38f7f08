package ui

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// watchHub serves several of the API server's watches on one response:
// ?path=/api/v1/pods?watch=1&resourceVersion=N&path=... A browser opens at
// most six HTTP/1.1 connections to a host, and the page watches more
// resources than that (step mode's page is plain HTTP); over one
// connection the page's own requests (Step, Apply) are never queued
// behind the watches. Each event is the API server's line, unchanged,
// framed with the index of its watch: {"i":0,"e":EVENT}; a watch that
// ends says {"i":0,"end":true}, one refused {"i":0,"status":STATUS}. Each
// watch is the API server's with the session's token: it shows what the
// user may watch.
func (s *Server) watchHub(w http.ResponseWriter, r *http.Request, c *call) {
	paths := r.URL.Query()["path"]
	if len(paths) == 0 || len(paths) > 64 {
		writeStatus(w, http.StatusBadRequest, "BadRequest", "give 1 to 64 path parameters")
		return
	}
	for _, p := range paths {
		if (!strings.HasPrefix(p, "/api/") && !strings.HasPrefix(p, "/apis/")) || !strings.Contains(p, "watch=") {
			writeStatus(w, http.StatusBadRequest, "BadRequest", fmt.Sprintf("path %q is not a watch of the API", p))
			return
		}
	}
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	// The watches end with the session (its token no longer accepted,
	// logged out, expired), as the API server ends a watch at its timeout.
	ended := s.watchSession(ctx, c.sess.id)
	go func() {
		select {
		case <-ended:
			cancel()
		case <-ctx.Done():
		}
	}()
	lines := make(chan []byte, 256)
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.oneWatch(ctx, c.sess, i, p, lines)
		}()
	}
	go func() { wg.Wait(); close(lines) }()
	for {
		select {
		case <-ctx.Done():
			// Drain so the watches' writers are not blocked while they end.
			for range lines {
			}
			return
		case line, ok := <-lines:
			if !ok {
				return
			}
			if _, err := w.Write(line); err != nil {
				cancel()
				continue
			}
			// Write what is queued before flushing: one flush per burst.
			for more := true; more; {
				select {
				case l, ok := <-lines:
					if !ok {
						more = false
						lines = nil
						break
					}
					_, _ = w.Write(l)
				default:
					more = false
				}
			}
			if flusher != nil {
				flusher.Flush()
			}
			if lines == nil {
				return
			}
		}
	}
}

// oneWatch runs one watch through the API server with the session's
// credentials and sends its events, framed, to out.
func (s *Server) oneWatch(ctx context.Context, sess *session, i int, path string, out chan<- []byte) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, path, nil)
	if err != nil {
		send(ctx, out, fmt.Appendf(nil, "{\"i\":%d,\"end\":true}\n", i))
		return
	}
	req.Header.Set("Accept", "application/json")
	if sess.token != "" {
		req.Header.Set("Authorization", "Bearer "+sess.token)
	}
	lw := &lineWriter{ctx: ctx, i: i, out: out, header: http.Header{}}
	s.cfg.API.ServeHTTP(lw, req)
	if lw.code != 0 && lw.code != http.StatusOK {
		send(ctx, out, fmt.Appendf(nil, "{\"i\":%d,\"status\":%s}\n", i, bytes.TrimSpace(lw.buf.Bytes())))
		return
	}
	send(ctx, out, fmt.Appendf(nil, "{\"i\":%d,\"end\":true}\n", i))
}

func send(ctx context.Context, out chan<- []byte, b []byte) {
	select {
	case out <- b:
	case <-ctx.Done():
	}
}

// lineWriter is the ResponseWriter a watch writes to: it cuts the stream
// into lines (one event each) and frames them.
type lineWriter struct {
	ctx    context.Context
	i      int
	out    chan<- []byte
	header http.Header
	code   int
	buf    bytes.Buffer
}

func (l *lineWriter) Header() http.Header { return l.header }

func (l *lineWriter) WriteHeader(code int) {
	if l.code == 0 {
		l.code = code
	}
}

func (l *lineWriter) Write(p []byte) (int, error) {
	if l.code == 0 {
		l.code = http.StatusOK
	}
	if err := l.ctx.Err(); err != nil {
		return 0, err
	}
	l.buf.Write(p)
	if l.code != http.StatusOK {
		return len(p), nil // a Status, sent whole at the end
	}
	for {
		data := l.buf.Bytes()
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			break
		}
		line := bytes.TrimSpace(data[:nl])
		if len(line) > 0 {
			send(l.ctx, l.out, fmt.Appendf(nil, "{\"i\":%d,\"e\":%s}\n", l.i, line))
		}
		l.buf.Next(nl + 1)
	}
	return len(p), nil
}

// Flush is there for the watch handler, which flushes after each event;
// lines are sent as they complete.
func (l *lineWriter) Flush() {}
