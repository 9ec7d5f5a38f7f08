package client

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
)

// InProcessTransport is an http.RoundTripper that calls an http.Handler
// directly: the same handlers that serve kubectl, without a socket. Tests,
// the demo and every in-process control loop talk to the API server through
// it, so they exercise exactly the code a remote client does.
//
// A request whose answer is one body (a get, a list, every write) runs the
// handler in the caller's goroutine and hands the caller the buffered
// answer: no goroutine, no pipe, and the handler grows no fresh stack — the
// caller's is already grown. A request that streams (Streams: a watch, a
// followed log, exec/attach/port-forward, a proxy) runs the handler in a
// goroutine of its own and streams the answer through a pipe: a watch's
// events reach the caller as the handler flushes them, and closing the
// response body cancels the request's context, which ends the watch on the
// server side. Either way the caller's context is the request's: cancelling
// it ends the handler.
type InProcessTransport struct {
	Handler http.Handler
}

// Streams reports whether the answer to req may stream — it is written
// and flushed piece by piece for as long as the handler runs — so that
// InProcessTransport must run the handler beside the caller, not in its
// goroutine: a watch (watch=true, as Kubernetes' parameter codec reads
// it: present and neither "0" nor "false"), a followed log (follow=true),
// a connect subresource or kubelet endpoint that streams (log, exec,
// attach, portforward, proxy, containerLogs) and any upgrade.
func Streams(req *http.Request) bool {
	if req.Header.Get("Upgrade") != "" {
		return true
	}
	q := req.URL.Query()
	for _, name := range []string{"watch", "follow"} {
		if vs, ok := q[name]; ok && (len(vs) == 0 || (vs[0] != "0" && !strings.EqualFold(vs[0], "false"))) {
			return true
		}
	}
	for _, seg := range strings.Split(req.URL.Path, "/") {
		switch seg {
		case "log", "exec", "attach", "portforward", "proxy", "containerLogs", "portForward":
			return true
		}
	}
	return false
}

// RoundTrip implements http.RoundTripper.
func (t *InProcessTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	sreq := req.Clone(ctx)
	sreq.RequestURI = req.URL.RequestURI()
	if sreq.RemoteAddr == "" {
		sreq.RemoteAddr = "in-process"
	}
	if sreq.Body == nil {
		sreq.Body = http.NoBody
	}
	if !Streams(req) {
		return t.roundTripBuffered(req, sreq, cancel)
	}
	pr, pw := io.Pipe()
	w := &pipeResponseWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				w.fail(http.StatusInternalServerError)
			}
			w.markReady(http.StatusOK)
			_ = pw.Close()
		}()
		t.Handler.ServeHTTP(w, sreq)
	}()
	select {
	case <-w.ready:
	case <-req.Context().Done():
		cancel()
		_ = pr.Close()
		return nil, req.Context().Err()
	}
	return response(req, w.code, w.sent, &cancelOnClose{ReadCloser: pr, cancel: cancel}, -1), nil
}

// roundTripBuffered serves a request that does not stream in the caller's
// goroutine, into a buffer. Its context ends when the handler returns, as
// net/http's does; a caller whose own context ended meanwhile gets its
// error, as from the streaming path.
func (t *InProcessTransport) roundTripBuffered(req, sreq *http.Request, cancel context.CancelFunc) (*http.Response, error) {
	w := &bufferedResponseWriter{header: http.Header{}}
	func() {
		defer func() {
			if r := recover(); r != nil {
				w.markReady(http.StatusInternalServerError)
			}
		}()
		t.Handler.ServeHTTP(w, sreq)
	}()
	cancel()
	w.markReady(http.StatusOK)
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	return response(req, w.code, w.sent, io.NopCloser(bytes.NewReader(w.body.Bytes())), int64(w.body.Len())), nil
}

// response is the HTTP/1.1 answer both paths hand the caller.
func response(req *http.Request, code int, header http.Header, body io.ReadCloser, length int64) *http.Response {
	return &http.Response{
		Status:        http.StatusText(code),
		StatusCode:    code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          body,
		ContentLength: length,
		Request:       req,
	}
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	c.cancel()
	return c.ReadCloser.Close()
}

// bufferedResponseWriter keeps a whole answer for roundTripBuffered: the
// status and headers as they were at the first WriteHeader, Write or
// Flush (later header changes are lost, as on a socket), and the body.
//
// The headers sent are the handler's own map, not a copy of it: most
// handlers never look at their headers again once they write, and every
// in-process request would pay for the copy. A handler that does asks
// Header() again and gets a copy of its own, whose changes go nowhere.
type bufferedResponseWriter struct {
	header http.Header
	sent   http.Header
	// detached: header is no longer the map sent.
	detached bool
	code     int
	body     bytes.Buffer
}

func (w *bufferedResponseWriter) Header() http.Header {
	if w.sent != nil && !w.detached {
		w.header, w.detached = w.sent.Clone(), true
	}
	return w.header
}

func (w *bufferedResponseWriter) markReady(code int) {
	if w.sent == nil {
		w.code = code
		w.sent = w.header
	}
}

func (w *bufferedResponseWriter) WriteHeader(code int) { w.markReady(code) }

func (w *bufferedResponseWriter) Write(b []byte) (int, error) {
	w.markReady(http.StatusOK)
	return w.body.Write(b)
}

// Flush sends the headers; the body goes with the whole answer.
func (w *bufferedResponseWriter) Flush() { w.markReady(http.StatusOK) }

// pipeResponseWriter writes the response body into a pipe the client
// reads. The status and headers are handed over at the first WriteHeader,
// Write or Flush, or when the handler returns.
type pipeResponseWriter struct {
	header http.Header
	sent   http.Header
	pw     *io.PipeWriter
	once   sync.Once
	ready  chan struct{}
	code   int
}

func (w *pipeResponseWriter) Header() http.Header { return w.header }

func (w *pipeResponseWriter) markReady(code int) {
	w.once.Do(func() {
		w.code = code
		w.sent = w.header.Clone()
		close(w.ready)
	})
}

func (w *pipeResponseWriter) WriteHeader(code int) { w.markReady(code) }

func (w *pipeResponseWriter) Write(b []byte) (int, error) {
	w.markReady(http.StatusOK)
	return w.pw.Write(b)
}

// Flush hands over the headers; the pipe itself has no buffer to flush.
func (w *pipeResponseWriter) Flush() { w.markReady(http.StatusOK) }

func (w *pipeResponseWriter) fail(code int) { w.markReady(code) }
