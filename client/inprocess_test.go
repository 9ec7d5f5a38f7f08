package client

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goroutineID is the running goroutine's number, from its stack's first
// line ("goroutine 42 [running]:").
func goroutineID(t *testing.T) uint64 {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	buf = bytes.TrimPrefix(buf, []byte("goroutine "))
	id, err := strconv.ParseUint(string(buf[:bytes.IndexByte(buf, ' ')]), 10, 64)
	require.NoError(t, err)
	return id
}

func get(t *testing.T, ctx context.Context, h http.Handler, url string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	return (&InProcessTransport{Handler: h}).RoundTrip(req)
}

func TestStreamsDecidesByTheRequest(t *testing.T) {
	for url, want := range map[string]bool{
		"http://x/api/v1/pods":                                       false,
		"http://x/api/v1/namespaces/a/pods/p":                        false,
		"http://x/api/v1/namespaces/a/pods/p/status":                 false,
		"http://x/api/v1/pods?watch=true":                            true,
		"http://x/api/v1/pods?watch=1":                               true,
		"http://x/api/v1/pods?watch":                                 true,
		"http://x/api/v1/pods?watch=false":                           false,
		"http://x/api/v1/pods?watch=0":                               false,
		"http://x/api/v1/namespaces/a/pods/p/log":                    true,
		"http://x/api/v1/namespaces/a/pods/p/exec?command=ls":        true,
		"http://x/api/v1/namespaces/a/pods/p/attach":                 true,
		"http://x/api/v1/namespaces/a/pods/p/portforward":            true,
		"http://x/api/v1/namespaces/a/services/s/proxy/metrics":      true,
		"http://x/containerLogs/a/p/c":                               true,
		"http://x/stats/summary":                                     false,
		"http://x/apis/metrics.k8s.io/v1beta1/pods?follow=true":      true,
		"http://x/apis/apps/v1/namespaces/a/deployments/d/scale":     false,
		"http://x/apis/coordination.k8s.io/v1/namespaces/a/leases/l": false,
	} {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		require.NoError(t, err)
		assert.Equal(t, want, Streams(req), url)
	}
	req, err := http.NewRequest(http.MethodGet, "http://x/api/v1/pods", nil)
	require.NoError(t, err)
	req.Header.Set("Upgrade", "websocket")
	assert.True(t, Streams(req), "an upgrade")
}

// A request that does not stream runs its handler in the caller's
// goroutine and hands back the whole answer, status and headers included.
func TestInProcessAnswerIsServedInTheCallersGoroutine(t *testing.T) {
	caller := goroutineID(t)
	var handler uint64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler = goroutineID(t)
		assert.Equal(t, "/api/v1/pods", r.RequestURI)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Header().Set("X-Late", "lost") // after the header was sent, as on a socket
		_, _ = w.Write([]byte(`{"kind":`))
		_, _ = w.Write([]byte(`"Pod"}`))
	})
	resp, err := get(t, context.Background(), h, "http://in-process/api/v1/pods")
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, caller, handler, "the handler ran in the caller's goroutine")
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Empty(t, resp.Header.Get("X-Late"))
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, `{"kind":"Pod"}`, string(body))
}

// A watch still streams: its first event reaches the caller while the
// handler runs on, in a goroutine of its own, and closing the body ends
// the handler's context.
func TestInProcessWatchStreamsFromItsOwnGoroutine(t *testing.T) {
	caller := goroutineID(t)
	handlerID := make(chan uint64, 1)
	ended := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlerID <- goroutineID(t)
		_, _ = w.Write([]byte("event 1\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(ended)
	})
	resp, err := get(t, context.Background(), h, "http://in-process/api/v1/pods?watch=true")
	require.NoError(t, err)
	line := make([]byte, len("event 1\n"))
	_, err = io.ReadFull(resp.Body, line)
	require.NoError(t, err)
	assert.Equal(t, "event 1\n", string(line), "the event arrived while the handler still runs")
	assert.NotEqual(t, caller, <-handlerID)
	require.NoError(t, resp.Body.Close())
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("closing the body did not end the watch")
	}
}

// Cancelling the caller's context ends a handler that does not stream,
// and the caller gets the context's error.
func TestInProcessCancelEndsABufferedRequest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	go func() {
		<-started
		cancel()
	}()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
		w.WriteHeader(http.StatusGatewayTimeout)
	})
	resp, err := get(t, ctx, h, "http://in-process/api/v1/pods")
	assert.Nil(t, resp)
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)
}

// A buffered request's context ends when its handler returns, as
// net/http's does.
func TestInProcessBufferedContextEndsWithTheHandler(t *testing.T) {
	var reqCtx context.Context
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reqCtx = r.Context() })
	resp, err := get(t, context.Background(), h, "http://in-process/api/v1/pods")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a handler that writes nothing answers 200")
	assert.Error(t, reqCtx.Err())
}

// A handler that panics before answering answers 500, in either path.
func TestInProcessPanicIsA500(t *testing.T) {
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	for _, url := range []string{"http://in-process/api/v1/pods", "http://in-process/api/v1/pods?watch=true"} {
		resp, err := get(t, context.Background(), h, url)
		require.NoError(t, err, url)
		resp.Body.Close()
		assert.Equal(t, http.StatusInternalServerError, resp.StatusCode, url)
	}
}

// The answer's headers are the handler's own map, not a copy of it, which
// every in-process request would pay for; a handler that changes its
// headers after writing changes a copy of its own.
func TestInProcessAnswerHeadersAreTheHandlers(t *testing.T) {
	var sent http.Header
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent = w.Header()
		sent.Set("X-A", "1")
		_, _ = w.Write([]byte(`{}`))
		w.Header().Set("X-A", "late")
	})
	resp, err := get(t, context.Background(), h, "http://in-process/api/v1/pods")
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "1", resp.Header.Get("X-A"), "a change after writing is lost")
	resp.Header.Set("X-Mark", "y")
	assert.Equal(t, "y", sent.Get("X-Mark"), "the answer's headers are the handler's map")
}
