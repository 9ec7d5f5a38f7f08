package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/kubelet/portforward"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// streamingHost is a node that also streams; err refuses every target.
type streamingHost struct {
	fakeHost
	err error
}

func (s *streamingHost) ExecTarget(context.Context, string, string, string) (shell.Environment, error) {
	return shell.Environment{}, s.err
}

func (s *streamingHost) Exec(context.Context, shell.Environment, []string, shell.Stdio) int { return 0 }

func (s *streamingHost) AttachTarget(string, string, string) error { return s.err }

func (s *streamingHost) Attach(context.Context, string, string, string, shell.Stdio) error {
	return nil
}

func (s *streamingHost) PortForwardTarget(string, string) (portforward.Target, error) {
	return portforward.Target{}, s.err
}

func serveStreaming(t *testing.T, host Host, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	s, err := New(Config{Node: func(string) (Host, bool) { return host, true }})
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec
}

// The refusals answered before any upgrade, in the kubelet's words and
// as plain text (the API server passes them through).
func TestStreamingRefusals(t *testing.T) {
	notFound := &kubelet.StreamError{Code: http.StatusInternalServerError, Message: `container not found ("c")`}
	for _, tc := range []struct {
		name, method, target string
		host                 Host
		code                 int
		body                 string
	}{
		{"no command", http.MethodPost, "/exec/ns/p/c?output=1", &streamingHost{}, http.StatusBadRequest,
			"you must specify at least one command for the container\n"},
		{"no stream", http.MethodPost, "/exec/ns/p/c?command=ls", &streamingHost{}, http.StatusBadRequest,
			"you must specify at least 1 of stdin, stdout, stderr\n"},
		{"container not running", http.MethodPost, "/exec/ns/p/c?command=ls&output=1", &streamingHost{err: notFound},
			http.StatusInternalServerError, "container not found (\"c\")\n"},
		{"attach to a missing pod", http.MethodGet, "/attach/ns/p/c?output=1",
			&streamingHost{err: &kubelet.StreamError{Code: http.StatusNotFound, Message: "pod does not exist"}},
			http.StatusNotFound, "pod does not exist\n"},
		{"port-forward, other error", http.MethodPost, "/portForward/ns/p", &streamingHost{err: errors.New("boom")},
			http.StatusInternalServerError, "boom\n"},
		{"no upgrade", http.MethodPost, "/exec/ns/p/c?command=ls&output=1", &streamingHost{}, http.StatusBadRequest,
			"unable to upgrade: missing upgrade headers in request: []\n"},
		{"a node that does not stream", http.MethodPost, "/exec/ns/p/c?command=ls&output=1", &fakeHost{}, http.StatusNotFound,
			"streaming is not supported by this node\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := serveStreaming(t, tc.host, tc.method, tc.target)
			assert.Equal(t, tc.code, rec.Code)
			assert.Equal(t, tc.body, rec.Body.String())
		})
	}
}
