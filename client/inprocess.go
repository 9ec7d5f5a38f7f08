package client

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// InProcessTransport is an http.RoundTripper that calls an http.Handler
// directly: the same handlers that serve kubectl, without a socket. Tests,
// the demo and every in-process control loop talk to the API server through
// it, so they exercise exactly the code a remote client does.
//
// Responses stream: a watch's events reach the caller as the handler
// flushes them, and closing the response body cancels the request's
// context, which ends the watch on the server side.
type InProcessTransport struct {
	Handler http.Handler
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
	return &http.Response{
		Status:        http.StatusText(w.code),
		StatusCode:    w.code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.sent,
		Body:          &cancelOnClose{ReadCloser: pr, cancel: cancel},
		ContentLength: -1,
		Request:       req,
	}, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	c.cancel()
	return c.ReadCloser.Close()
}

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
