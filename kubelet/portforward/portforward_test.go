package portforward

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/kubelet/spdy"
)

// echoTarget dials a loopback server on port 7 that upper-cases what it
// reads until EOF; every other port is refused.
func echoTarget(t *testing.T) Target {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				data, _ := io.ReadAll(c)
				c.Write([]byte(strings.ToUpper(string(data))))
			}()
		}
	}()
	return Target{Name: "web", UID: "u-1", Dial: func(ctx context.Context, port uint16) (net.Conn, error) {
		if port != 7 {
			return nil, errors.New("connect: connection refused")
		}
		var d net.Dialer
		return d.DialContext(ctx, "tcp", l.Addr().String())
	}}
}

// client plays kubectl's side: one error and one data stream for a port,
// data sent and closed, then everything read back.
func client(t *testing.T, rw io.ReadWriter, port string) (data, errMsg string) {
	t.Helper()
	fr := spdy.NewFramer(bufio.NewReader(rw), rw)
	require.NoError(t, fr.WriteSynStream(1, http.Header{"streamType": {"error"}, "port": {port}, "requestID": {"0"}}, false))
	require.NoError(t, fr.WriteData(1, nil, true))
	require.NoError(t, fr.WriteSynStream(3, http.Header{"streamType": {"data"}, "port": {port}, "requestID": {"0"}}, false))
	require.NoError(t, fr.WritePing(1))
	replies, pinged := 0, false
	finished := map[uint32]bool{}
	out := map[uint32]string{}
	sent := false
	for !(finished[1] && finished[3]) || replies < 2 || !pinged {
		f, err := fr.ReadFrame()
		require.NoError(t, err)
		switch {
		case f.Control && f.Type == spdy.TypeSynReply:
			replies++
			if replies == 2 && !sent && port == "7" {
				sent = true
				require.NoError(t, fr.WriteData(3, []byte("hello"), true))
			}
		case f.Control && f.Type == spdy.TypePing:
			assert.Equal(t, uint32(1), f.PingID)
			pinged = true
		case !f.Control:
			out[f.StreamID] += string(f.Data)
			if f.Fin() {
				finished[f.StreamID] = true
			}
		}
	}
	return out[3], out[1]
}

func TestSPDYUpgrade(t *testing.T) {
	target := echoTarget(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { Serve(w, r, target) }))
	defer srv.Close()
	for _, tc := range []struct{ port, data, err string }{
		{port: "7", data: "HELLO"},
		{port: "80", err: "error forwarding port 80 to pod web, uid u-1: connect: connection refused"},
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		require.NoError(t, err)
		_, err = io.WriteString(conn, "POST /portForward/default/web HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: portforward.k8s.io\r\n\r\n")
		require.NoError(t, err)
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		require.NoError(t, err)
		assert.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
		assert.Equal(t, ProtocolV1Name, resp.Header.Get("X-Stream-Protocol-Version"))
		data, msg := client(t, struct {
			io.Reader
			io.Writer
		}{br, conn}, tc.port)
		assert.Equal(t, tc.data, data)
		assert.Equal(t, tc.err, msg)
		conn.Close()
	}
}

func TestWebSocketTunnel(t *testing.T) {
	target := echoTarget(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { Serve(w, r, target) }))
	defer srv.Close()
	d := websocket.Dialer{Subprotocols: []string{TunnelProtocol}}
	ws, resp, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/portForward/default/web", nil)
	require.NoError(t, err)
	defer ws.Close()
	assert.Equal(t, TunnelProtocol, resp.Header.Get("Sec-WebSocket-Protocol"))
	data, msg := client(t, &tunnelConn{ws: ws}, "7")
	assert.Equal(t, "HELLO", data)
	assert.Empty(t, msg)
}

func TestRefusals(t *testing.T) {
	target := echoTarget(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { Serve(w, r, target) }))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, "unable to upgrade: missing upgrade headers in request: []\n", string(body))

	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "SPDY/3.1")
	req.Header.Set("X-Stream-Protocol-Version", "v9.portforward.k8s.io")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Equal(t, "unable to upgrade: unable to negotiate protocol: client supports [v9.portforward.k8s.io], server supports [portforward.k8s.io]\n", string(body))
}
