package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/kubelet"
)

// fakeHost answers as one node's kubelet would.
type fakeHost struct {
	opts kubelet.LogOptions
	err  error
}

func (f *fakeHost) ContainerLogs(_ context.Context, ns, pod, container string, opts kubelet.LogOptions, w io.Writer) error {
	f.opts = opts
	if f.err != nil {
		return f.err
	}
	_, err := io.WriteString(w, ns+"/"+pod+"/"+container+"\n")
	return err
}

func (f *fakeHost) StatsSummary() kubelet.Summary {
	return kubelet.Summary{Node: kubelet.NodeStats{NodeName: "node-1"}}
}

func serve(t *testing.T, host *fakeHost, target string) *httptest.ResponseRecorder {
	t.Helper()
	s, err := New(Config{Node: func(h string) (Host, bool) {
		if h == "10.244.0.1" || h == "node-1" {
			return host, true
		}
		return nil, false
	}})
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	return rec
}

func TestContainerLogsRoute(t *testing.T) {
	h := &fakeHost{}
	rec := serve(t, h, "https://10.244.0.1:10250/containerLogs/ns/p/c?follow=true&tailLines=3&timestamps=true&limitBytes=10")
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "ns/p/c\n", rec.Body.String())
	assert.True(t, h.opts.Follow)
	assert.True(t, h.opts.Timestamps)
	assert.False(t, h.opts.Previous)
	require.NotNil(t, h.opts.TailLines)
	assert.Equal(t, int64(3), *h.opts.TailLines)
	require.NotNil(t, h.opts.LimitBytes)
	assert.Equal(t, int64(10), *h.opts.LimitBytes)

	rec = serve(t, &fakeHost{err: &kubelet.LogError{Code: http.StatusNotFound, Message: `pod "p" does not exist`}},
		"https://node-1:10250/containerLogs/ns/p/c")
	assert.Equal(t, http.StatusNotFound, rec.Code, "the host's refusal, with its code")
	assert.Equal(t, "pod \"p\" does not exist\n", rec.Body.String())

	rec = serve(t, h, "https://10.9.9.9:10250/containerLogs/ns/p/c")
	assert.Equal(t, http.StatusNotFound, rec.Code, "no node at that address")

	rec = serve(t, h, "https://node-1:10250/containerLogs/ns/p/c?tailLines=x")
	assert.Equal(t, http.StatusBadRequest, rec.Code)
}

func TestStatsSummaryRoute(t *testing.T) {
	rec := serve(t, &fakeHost{}, "https://node-1:10250/stats/summary")
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.JSONEq(t, `{"node":{"nodeName":"node-1","startTime":null},"pods":null}`, rec.Body.String())
}
