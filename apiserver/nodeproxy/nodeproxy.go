package nodeproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

// KubeletPort is the kubelet API's port (the node's
// daemonEndpoints.kubeletEndpoint.port).
const KubeletPort = 10250

// Connection is how to reach one node's kubelet API.
type Connection struct {
	// Host is the kubelet's host:port, the node's InternalIP and
	// KubeletPort: the Host header the kubelet sees, and where a reverse
	// proxy would dial a kubelet in another process.
	Host string
	// Handler serves the kubelet API in process; nil means nothing
	// listens there (the node is stopped): the connection is refused.
	Handler http.Handler
	// Transport, for a kubelet in another process (NodeConnection),
	// reaches it over HTTPS at Host; Handler is nil then.
	Transport http.RoundTripper
}

// ConnectionGetter finds the kubelet of a node (the kubelet client's
// ConnectionInfoGetter). An unknown node is a NotFound error.
type ConnectionGetter interface {
	GetConnection(ctx context.Context, nodeName string) (Connection, error)
}

// Forward hands the client's request to the kubelet at conn as a request
// for path and query, answering on the client's own ResponseWriter. The
// method and headers stay (an Upgrade passes), except the client's
// credentials: the API server speaks to the kubelet as itself.
func Forward(w http.ResponseWriter, r *http.Request, conn Connection, path string, query url.Values) error {
	loc := &url.URL{Scheme: "https", Host: conn.Host, Path: path, RawQuery: query.Encode()}
	if conn.Handler == nil && conn.Transport == nil {
		return unreachable(r.Method, loc, conn.Host)
	}
	out := r.Clone(r.Context())
	out.URL, out.Host, out.RequestURI = loc, conn.Host, loc.RequestURI()
	out.Header.Del("Authorization")
	for _, h := range []string{"Impersonate-User", "Impersonate-Group", "Impersonate-Uid"} {
		out.Header.Del(h)
	}
	if conn.Handler == nil {
		return forwardRemote(w, out, conn)
	}
	conn.Handler.ServeHTTP(w, out)
	return nil
}

// unreachable is the error the API server returns when the kubelet does
// not answer: the transport's error, as a 500 with no reason, which
// kubectl prints as "Error from server: Get ...: connection refused".
func unreachable(method string, loc *url.URL, host string) error {
	verb := "Get"
	if method == http.MethodPost {
		verb = "Post"
	}
	return &api.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
		Message: fmt.Sprintf("%s %q: dial tcp %s: connect: connection refused", verb, loc.String(), host)}}
}

// ForwardStream is Forward for an answer that is a stream of bytes
// (pods/log): a kubelet's refusal (a plain-text body with a 4xx or 5xx)
// becomes a Status, as the API server's response checker makes it — 400
// BadRequest and 500 InternalError with the kubelet's words, 404 NotFound.
func ForwardStream(w http.ResponseWriter, r *http.Request, conn Connection, path string, query url.Values, gr schema.GroupResource, name string) error {
	cw := &checkedWriter{w: w}
	if err := Forward(cw, r, conn, path, query); err != nil {
		return err
	}
	if cw.failed {
		return checkResponse(cw.code, strings.TrimSpace(cw.body.String()), gr, name)
	}
	return nil
}

// checkResponse is the GenericHttpResponseChecker's error for a failed
// kubelet answer.
func checkResponse(code int, body string, gr schema.GroupResource, name string) error {
	switch code {
	case http.StatusBadRequest:
		return api.NewBadRequest(body)
	case http.StatusInternalServerError:
		return api.NewInternalError(errors.New(body))
	case http.StatusNotFound:
		return &api.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: int32(code), Reason: metav1.StatusReasonNotFound,
			Message: body, Details: &metav1.StatusDetails{Group: gr.Group, Kind: gr.Resource, Name: name}}}
	}
	return &api.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: int32(code), Message: body}}
}

// checkedWriter passes a successful answer through (flushing as it goes)
// and keeps a failed one's body to be answered as a Status.
type checkedWriter struct {
	w       http.ResponseWriter
	code    int
	failed  bool
	started bool
	body    bytes.Buffer
}

func (c *checkedWriter) Header() http.Header { return c.w.Header() }

func (c *checkedWriter) WriteHeader(code int) {
	if c.started || c.failed {
		return
	}
	c.code = code
	if code < 200 || code > 299 {
		c.failed = true
		return
	}
	c.started = true
	c.w.WriteHeader(code)
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if !c.started && !c.failed {
		c.WriteHeader(http.StatusOK)
	}
	if c.failed {
		if c.body.Len() < 64<<10 {
			c.body.Write(p)
		}
		return len(p), nil
	}
	return c.w.Write(p)
}

// Flush passes a flush on: kubectl logs -f sees each line as it comes.
func (c *checkedWriter) Flush() {
	if c.failed {
		return
	}
	if !c.started {
		c.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(c.w).Flush()
}

// Unwrap lets http.ResponseController reach the client's writer.
func (c *checkedWriter) Unwrap() http.ResponseWriter { return c.w }
