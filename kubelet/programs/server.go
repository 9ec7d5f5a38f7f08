package programs

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server answers the connections to a port a program listens on.
type Server interface {
	// Serve speaks the server's protocol over c until either end closes.
	Serve(c *Conn)
}

// Unhealthy is a server whose answer to an HTTP GET of a path turns to an
// error status a while after its process starts (agnhost liveness's
// /healthz): the kubelet's HTTP probes read it ahead, as they are worked
// out for the container's whole life.
type Unhealthy interface {
	// FailsAfter is how long after its start the server answers a GET of
	// path with an error status, for good; ok false: its answer to path
	// does not change.
	FailsAfter(path string) (after time.Duration, ok bool)
}

// Conn is one connection to a server, with what the server's process
// reaches while it answers.
type Conn struct {
	net.Conn
	// Log writes a line to the container's log (an access log).
	Log func(line string)
	// Now is the cluster's clock.
	Now func() time.Time
	// Started is when the container's run began.
	Started time.Time
	// Memory is what the process keeps while it runs (redis's keys): one
	// per run of the container.
	Memory *Memory
	// Files is the container's filesystem, which a server reads its pages
	// from (nginx's document root); nil: the image's own files only.
	Files Files
}

// Files is a container's filesystem as its processes see it: the image's
// files, what kubectl exec or cp wrote, the volumes mounted.
type Files interface {
	// ReadFile returns the file at name (absolute), if there is one.
	ReadFile(name string) ([]byte, bool)
	// IsDir reports whether name is a directory.
	IsDir(name string) bool
	// OnMount reports whether name is on a volume mounted into the
	// container, which hides what the image has there.
	OnMount(name string) bool
}

// client is the connection's peer address, without its port.
func (c *Conn) client() string {
	if a := c.RemoteAddr(); a != nil {
		if host, _, err := net.SplitHostPort(a.String()); err == nil {
			return host
		}
		return a.String()
	}
	return "127.0.0.1"
}

// Memory is a server process's memory: the keys of a key-value store.
type Memory struct {
	mu sync.Mutex
	kv map[string]string
}

// with runs f with the memory's map, locked.
func (m *Memory) with(f func(kv map[string]string)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.kv == nil {
		m.kv = map[string]string{}
	}
	f(m.kv)
}

// response is an HTTP server's answer to one request.
type response struct {
	code   int
	header http.Header
	body   []byte
}

// httpHandler answers one request of a connection.
type httpHandler func(c *Conn, r *http.Request) response

// serveHTTP speaks HTTP/1.1 over c: one request after the other on the
// connection (keep-alive) until the client closes it or asks to
// (Connection: close, HTTP/1.0 without keep-alive). A request that does
// not parse gets 400 and the connection is closed, as nginx does.
func serveHTTP(c *Conn, server string, h httpHandler) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			if err != io.EOF && !isClosed(err) {
				_ = writeResponse(c, nil, server, c.Now(), response{code: http.StatusBadRequest, body: []byte(badRequest(server))}, true)
			}
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		resp := h(c, req)
		closing := req.Close || req.ProtoMajor == 1 && req.ProtoMinor == 0 && !strings.EqualFold(req.Header.Get("Connection"), "keep-alive")
		if writeResponse(c, req, server, c.Now(), resp, closing) != nil || closing {
			return
		}
	}
}

func isClosed(err error) bool {
	return strings.Contains(err.Error(), "closed")
}

// writeResponse writes resp with the headers every server sends (Server,
// Date at now, Content-Length, Connection); a HEAD gets the headers only.
func writeResponse(w io.Writer, req *http.Request, server string, now time.Time, resp response, closing bool) error {
	var b strings.Builder
	proto := "HTTP/1.1"
	fmt.Fprintf(&b, "%s %d %s\r\n", proto, resp.code, http.StatusText(resp.code))
	if server != "" {
		fmt.Fprintf(&b, "Server: %s\r\n", server)
	}
	h := resp.header
	if h == nil {
		h = http.Header{}
	}
	if h.Get("Date") == "" {
		h.Set("Date", now.UTC().Format(http.TimeFormat))
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "text/plain; charset=utf-8")
	}
	h.Set("Content-Length", strconv.Itoa(len(resp.body)))
	if closing {
		h.Set("Connection", "close")
	} else if h.Get("Connection") == "" {
		h.Set("Connection", "keep-alive")
	}
	for _, k := range headerOrder(h) {
		for _, v := range h[k] {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString("\r\n")
	if req == nil || req.Method != http.MethodHead {
		b.Write(resp.body)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// headerOrder is the order servers write their headers in: the usual
// ones first, as nginx writes them, then the rest sorted.
func headerOrder(h http.Header) []string {
	first := []string{"Date", "Content-Type", "Content-Length", "Last-Modified", "Connection", "Etag", "Accept-Ranges"}
	var out []string
	for _, k := range first {
		if _, ok := h[k]; ok {
			out = append(out, k)
		}
	}
	var rest []string
	for k := range h {
		if !slices.Contains(first, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// badRequest is an HTTP server's page for a request that does not parse.
func badRequest(server string) string {
	return "<html>\r\n<head><title>400 Bad Request</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n<hr><center>" +
		server + "</center>\r\n</body>\r\n</html>\r\n"
}
