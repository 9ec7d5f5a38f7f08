package clientgo

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/e2e/framework"
)

// The media types client-go's generated clientset sends and accepts for
// built-in kinds, and the one kube-apiserver answers a protobuf watch with.
const (
	protobuf      = "application/vnd.kubernetes.protobuf"
	protobufWatch = "application/vnd.kubernetes.protobuf;stream=watch"
)

// exchange is one request a client sent and the media type of the answer.
type exchange struct {
	method, path string
	query        url.Values
	reqType      string // the request body's Content-Type
	accept       string
	respType     string // the response's Content-Type
	code         int
	// status is whether a JSON answer was a Status (kubesim writes
	// every Status, success or error, as JSON).
	status bool
}

// requestLog records every request a client sends; it watches the
// client, it does not change it.
type requestLog struct {
	mu        sync.Mutex
	exchanges []exchange
}

type recordingTransport struct {
	log  *requestLog
	next http.RoundTripper
}

func (r recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	ex := exchange{method: req.Method, path: req.URL.Path, query: req.URL.Query(),
		reqType: req.Header.Get("Content-Type"), accept: req.Header.Get("Accept")}
	if resp != nil {
		ex.respType, ex.code = resp.Header.Get("Content-Type"), resp.StatusCode
		if ex.respType == "application/json" && ex.query.Get("watch") != "true" {
			body, rerr := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(body))
			var kind struct{ Kind string }
			ex.status = rerr == nil && json.Unmarshal(body, &kind) == nil && kind.Kind == "Status"
		}
	}
	r.log.mu.Lock()
	r.log.exchanges = append(r.log.exchanges, ex)
	r.log.mu.Unlock()
	return resp, err
}

// find returns the recorded exchanges of method on path.
func (l *requestLog) find(method, path string) []exchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []exchange
	for _, e := range l.exchanges {
		if e.method == method && e.path == path {
			out = append(out, e)
		}
	}
	return out
}

// recordingClientset is the default clientset with a requestLog on its
// transport.
func recordingClientset(t *testing.T, k *framework.Kubesim) (kubernetes.Interface, *requestLog) {
	t.Helper()
	cfg := k.RestConfig()
	log := &requestLog{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return recordingTransport{log: log, next: rt} })
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return cs, log
}

// assertProtobuf checks that every exchange with path under prefix for
// which client-go chose protobuf (its Accept asks for it first; a few
// hand-written requests, such as pods/binding, stay JSON) sent protobuf
// when it had a create or update body (a patch's body is its patch
// format) and was answered in protobuf — so that kubesim, not a JSON
// fallback, carried the test. A Status answer is left out: kubesim
// writes every Status, errors included, as JSON, which client-go
// decodes by its Content-Type.
func assertProtobuf(t *testing.T, log *requestLog, prefix string) {
	t.Helper()
	log.mu.Lock()
	defer log.mu.Unlock()
	n := 0
	for _, e := range log.exchanges {
		if !strings.HasPrefix(e.path, prefix) {
			continue
		}
		if !strings.HasPrefix(e.accept, protobuf) {
			continue
		}
		n++
		if e.method == http.MethodPost || e.method == http.MethodPut {
			require.Equal(t, protobuf, e.reqType, "%s %s sends protobuf", e.method, e.path)
		}
		want := protobuf
		if e.query.Get("watch") == "true" {
			want = protobufWatch
		}
		if e.status {
			continue
		}
		require.Equal(t, want, e.respType, "%s %s?%s is answered in protobuf (Accept %q)", e.method, e.path, e.query.Encode(), e.accept)
	}
	require.NotZero(t, n, "no requests under %s", prefix)
}
