package remotecommand

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/kubelet/spdy"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name     string
		msg      []byte
		protocol string
		want     Message
		err      string
	}{
		{name: "stdin", msg: []byte{0, 'h', 'i'}, protocol: StreamProtocolV5Name, want: Message{Channel: 0, Data: []byte("hi")}},
		{name: "resize", msg: append([]byte{4}, `{"Width":80,"Height":24}`...), protocol: StreamProtocolV4Name,
			want: Message{Channel: 4, Data: []byte(`{"Width":80,"Height":24}`)}},
		{name: "empty data", msg: []byte{0}, protocol: StreamProtocolV5Name, want: Message{Channel: 0, Data: []byte{}}},
		{name: "close stdin", msg: []byte{255, 0}, protocol: StreamProtocolV5Name, want: Message{Channel: 0, Close: true}},
		{name: "close in v4 is no channel", msg: []byte{255, 0}, protocol: StreamProtocolV4Name, err: "unknown channel 255"},
		{name: "close without channel", msg: []byte{255}, protocol: StreamProtocolV5Name, err: "close signal must name exactly one channel, got 0 bytes"},
		{name: "empty", msg: nil, protocol: StreamProtocolV5Name, err: "empty message: no channel byte"},
		{name: "unknown channel", msg: []byte{9, 1}, protocol: StreamProtocolV5Name, err: "unknown channel 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.msg, tc.protocol)
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	assert.Equal(t, []byte{1, 'o', 'k'}, Encode(1, []byte("ok")))
}

// Decoding never panics, and what decodes as data re-encodes to the
// same bytes.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{0, 'x'}, true)
	f.Add([]byte{255, 0}, true)
	f.Add([]byte{255}, false)
	f.Add([]byte{}, true)
	f.Fuzz(func(t *testing.T, msg []byte, v5 bool) {
		proto := StreamProtocolV4Name
		if v5 {
			proto = StreamProtocolV5Name
		}
		m, err := Decode(msg, proto)
		if err != nil {
			return
		}
		if m.Close {
			if !v5 || len(msg) != 2 || msg[0] != StreamClose || msg[1] != m.Channel {
				t.Fatalf("close signal %v from %v (%s)", m, msg, proto)
			}
			return
		}
		if got := Encode(m.Channel, m.Data); string(got) != string(msg) {
			t.Fatalf("re-encoded %v as %v", msg, got)
		}
	})
}

func TestOptionsFromQuery(t *testing.T) {
	o, err := OptionsFromQuery(map[string][]string{"stdin": {"true"}, "stdout": {"true"}, "stderr": {"true"}, "tty": {"true"}})
	require.NoError(t, err)
	assert.Equal(t, Options{Stdin: true, Stdout: true, TTY: true}, o, "a terminal merges stderr into stdout")
	o, err = OptionsFromQuery(map[string][]string{"output": {"1"}, "error": {"1"}})
	require.NoError(t, err)
	assert.Equal(t, Options{Stdout: true, Stderr: true}, o)
	_, err = OptionsFromQuery(map[string][]string{"tty": {"1"}})
	assert.EqualError(t, err, "you must specify at least 1 of stdin, stdout, stderr")
}

func TestExitStatus(t *testing.T) {
	data, err := json.Marshal(ExitStatus(0, []string{"true"}))
	require.NoError(t, err)
	assert.JSONEq(t, `{"metadata":{},"status":"Success"}`, string(data))
	data, err = json.Marshal(ExitStatus(3, []string{"sh", "-c", "exit 3"}))
	require.NoError(t, err)
	assert.JSONEq(t, `{"metadata":{},"status":"Failure","reason":"NonZeroExitCode",
		"message":"command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3",
		"details":{"causes":[{"reason":"ExitCode","message":"3"}]}}`, string(data))
}

// A server that upper-cases stdin to stdout, writes "err" to stderr,
// reports the last terminal width as its exit code, and a client speaking
// as client-go does: v5, stdin closed with the close signal.
func TestConn(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		opts, err := OptionsFromQuery(r.URL.Query())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c, err := Upgrade(w, r, opts)
		if err != nil {
			return
		}
		in, _ := io.ReadAll(c.Stdin())
		io.WriteString(c.Stdout(), strings.ToUpper(string(in)))
		io.WriteString(c.Stderr(), "err")
		var width uint16
		for size := range c.Resize() {
			width = size.Width
			break
		}
		c.Finish(ExitStatus(int(width), []string{"upper"}))
	}))
	defer srv.Close()

	d := websocket.Dialer{Subprotocols: []string{StreamProtocolV5Name}}
	ws, resp, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/?stdin=true&stdout=true&stderr=true", nil)
	require.NoError(t, err)
	defer ws.Close()
	assert.Equal(t, StreamProtocolV5Name, resp.Header.Get("Sec-WebSocket-Protocol"))
	require.NoError(t, ws.WriteMessage(websocket.BinaryMessage, []byte{0, 'a', 'b'}))
	require.NoError(t, ws.WriteMessage(websocket.BinaryMessage, []byte{0, 'c'}))
	require.NoError(t, ws.WriteMessage(websocket.BinaryMessage, []byte{255, 0}))
	require.NoError(t, ws.WriteMessage(websocket.BinaryMessage, append([]byte{4}, `{"Width":7,"Height":2}`...)))
	got := map[byte]string{}
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			assert.True(t, websocket.IsCloseError(err, websocket.CloseNormalClosure), "closed normally: %v", err)
			break
		}
		got[data[0]] += string(data[1:])
	}
	assert.Equal(t, "ABC", got[1])
	assert.Equal(t, "err", got[2])
	var st metav1.Status
	require.NoError(t, json.Unmarshal([]byte(got[3]), &st))
	assert.Equal(t, NonZeroExitCodeReason, st.Reason)
	assert.Equal(t, "7", st.Details.Causes[0].Message)
}

// A client offering only protocols the server does not speak is closed
// with a protocol error.
func TestNoCommonProtocol(t *testing.T) {
	upgraded := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := Upgrade(w, r, Options{Stdout: true})
		upgraded <- err
	}))
	defer srv.Close()
	d := websocket.Dialer{Subprotocols: []string{"channel.k8s.io"}}
	ws, _, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	require.NoError(t, err)
	defer ws.Close()
	_, _, err = ws.ReadMessage()
	assert.True(t, websocket.IsCloseError(err, websocket.CloseProtocolError), "%v", err)
	assert.Error(t, <-upgraded)
}

// The SPDY transport as client-go's v4 protocol drives it: streams
// opened error first, stdin sent and closed, stdout read to its end,
// then the Status on the error stream.
func TestSPDYConn(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := UpgradeSPDY(w, r, Options{Stdin: true, Stdout: true})
		if err != nil {
			return
		}
		in, _ := io.ReadAll(c.Stdin())
		io.WriteString(c.Stdout(), strings.ToUpper(string(in)))
		c.Finish(ExitStatus(5, []string{"upper"}))
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"+
		"X-Stream-Protocol-Version: v5.channel.k8s.io\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
	assert.Equal(t, StreamProtocolV4Name, resp.Header.Get("X-Stream-Protocol-Version"), "v5 over SPDY is not the kubelet's")

	fr := spdy.NewFramer(br, conn)
	for i, kind := range []string{"error", "stdin", "stdout"} {
		require.NoError(t, fr.WriteSynStream(uint32(2*i+1), http.Header{"streamType": {kind}}, false))
	}
	out := map[uint32]string{}
	fin := map[uint32]bool{}
	replies := 0
	for !(fin[1] && fin[5]) {
		f, err := fr.ReadFrame()
		require.NoError(t, err)
		if f.Control {
			if f.Type == spdy.TypeSynReply {
				if replies++; replies == 3 {
					require.NoError(t, fr.WriteData(3, []byte("abc"), true))
				}
			}
			continue
		}
		out[f.StreamID] += string(f.Data)
		fin[f.StreamID] = fin[f.StreamID] || f.Fin()
	}
	assert.Equal(t, "ABC", out[5])
	var st metav1.Status
	require.NoError(t, json.Unmarshal([]byte(out[1]), &st))
	assert.Equal(t, "5", st.Details.Causes[0].Message)
}

func TestSPDYNegotiation(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = UpgradeSPDY(w, r, Options{Stdout: true})
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "SPDY/3.1")
	req.Header.Set("X-Stream-Protocol-Version", "channel.k8s.io")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Equal(t, "unable to upgrade: unable to negotiate protocol: client supports [channel.k8s.io], server supports [v4.channel.k8s.io]\n", string(body))
}
