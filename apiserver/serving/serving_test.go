package serving

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/authn"
)

// start serves h with opts over plain HTTP/1.1 on a free port.
func start(t *testing.T, h http.Handler, opts Options) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := NewServer(h, nil, opts)
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String()
}

// closedByServer waits (bounded, generously: this is not a timing
// assertion) until the server closes c.
func closedByServer(t *testing.T, c net.Conn) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(30*time.Second)))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if err != nil && (!strings.Contains(err.Error(), "reset") && (!asNetErr(err, &ne) || ne.Timeout())) {
		t.Fatalf("the server did not close the connection: %v", err)
	}
}

func asNetErr(err error, target *net.Error) bool {
	ne, ok := err.(net.Error)
	if ok {
		*target = ne
	}
	return ok
}

func TestMaxInFlightAnswers429(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan string, 10)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- r.Method + " " + r.URL.String()
		<-release
	})
	addr := start(t, h, Options{MaxRequestsInFlight: 2, MaxMutatingRequestsInFlight: 1})
	defer close(release)
	url := "http://" + addr
	go func() { _, _ = http.Get(url + "/api/v1/pods") }()
	go func() { _, _ = http.Get(url + "/api/v1/pods") }()
	go func() {
		_, _ = http.Post(url+"/api/v1/namespaces/default/pods", "application/json", strings.NewReader("{}"))
	}()
	for range 3 {
		<-entered
	}
	// The read-only pool is full: a third GET is refused at once.
	resp, err := http.Get(url + "/api/v1/namespaces")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	var st metav1.Status
	require.NoError(t, json.Unmarshal(body, &st))
	assert.Equal(t, metav1.StatusReasonTooManyRequests, st.Reason)
	assert.Equal(t, "Too many requests, please try again later.", st.Message)
	assert.Equal(t, int32(1), st.Details.RetryAfterSeconds)

	// So is a second write; watches are long-running and not counted.
	resp, err = http.Post(url+"/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	go func() { _, _ = http.Get(url + "/api/v1/pods?watch=true") }()
	assert.Equal(t, "GET /api/v1/pods?watch=true", <-entered)
}

func TestIdleConnectionsAreClosed(t *testing.T) {
	addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }),
		Options{IdleTimeout: 100 * time.Millisecond})
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, "GET /version HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	closedByServer(t, c) // kept alive, then closed once idle
}

func TestStalledBodyIsCutOff(t *testing.T) {
	readErr := make(chan error, 1)
	addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		readErr <- err
	}), Options{BodyReadTimeout: 100 * time.Millisecond})
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	// Headers promise 100 bytes of body; 3 arrive, then nothing.
	_, err = io.WriteString(c, "POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"a")
	require.NoError(t, err)
	select {
	case err := <-readErr:
		require.Error(t, err, "the body read ended with an error, not a hang")
	case <-time.After(30 * time.Second):
		t.Fatal("a stalled body was waited for forever")
	}
	closedByServer(t, c)
}

func TestUnauthenticatedConnectionIsClosedAfter401(t *testing.T) {
	deny := authn.AuthenticatorFunc(func(*http.Request) (*authn.UserInfo, bool, error) { return nil, false, nil })
	h := authn.WithAuthentication(http.NotFoundHandler(), deny, nil)
	addr := start(t, h, Options{IdleTimeout: time.Hour})
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, "GET /api HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 401, resp.StatusCode)
	assert.True(t, resp.Close, "the 401 asks to close the connection")
	closedByServer(t, c) // long before the hour of idle timeout
}
