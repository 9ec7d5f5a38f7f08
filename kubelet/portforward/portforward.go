package portforward

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kubesim/kubesim/kubelet/spdy"
)

// The protocol names.
const (
	// ProtocolV1Name is the SPDY subprotocol (X-Stream-Protocol-Version).
	ProtocolV1Name = "portforward.k8s.io"
	// TunnelProtocol is the WebSocket subprotocol of SPDY tunnelled in
	// WebSocket messages.
	TunnelProtocol = "SPDY/3.1+" + ProtocolV1Name
	// upgradeSPDY is the Upgrade header of a plain SPDY upgrade.
	upgradeSPDY = "SPDY/3.1"
)

// Dialer connects to a port of the pod, as the runtime does inside the
// pod's network namespace.
type Dialer func(ctx context.Context, port uint16) (net.Conn, error)

// Target is the pod being forwarded to.
type Target struct {
	// Name and UID name the pod in error messages: the kubelet's CRI
	// streaming server gives the pod sandbox's id and no uid.
	Name, UID string
	Dial      Dialer
}

// Serve upgrades the request (WebSocket tunnel or SPDY) and forwards the
// streams until the client goes.
func Serve(w http.ResponseWriter, r *http.Request, t Target) {
	if websocket.IsWebSocketUpgrade(r) {
		serveTunnel(w, r, t)
		return
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), upgradeSPDY) {
		http.Error(w, "unable to upgrade: missing upgrade headers in request: "+fmt.Sprint(r.Header["Upgrade"]), http.StatusBadRequest)
		return
	}
	offered := r.Header.Values("X-Stream-Protocol-Version")
	if !contains(offered, ProtocolV1Name) {
		http.Error(w, fmt.Sprintf("unable to upgrade: unable to negotiate protocol: client supports %v, server supports %v", offered, []string{ProtocolV1Name}), http.StatusForbidden)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "unable to upgrade: unable to hijack response", http.StatusInternalServerError)
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	// The 101 is written by hand: the connection is ours once hijacked.
	fmt.Fprintf(rw, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: %s\r\nX-Stream-Protocol-Version: %s\r\n\r\n", upgradeSPDY, ProtocolV1Name)
	if rw.Flush() != nil {
		return
	}
	newSession(rw.Reader, conn, t).run()
}

func contains(values []string, want string) bool {
	for _, v := range values {
		for _, one := range strings.Split(v, ",") {
			if strings.TrimSpace(one) == want {
				return true
			}
		}
	}
	return false
}

// serveTunnel accepts kubectl's WebSocket and reads SPDY from its binary
// messages.
func serveTunnel(w http.ResponseWriter, r *http.Request, t Target) {
	up := websocket.Upgrader{Subprotocols: []string{TunnelProtocol}, CheckOrigin: func(*http.Request) bool { return true }}
	ws, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer ws.Close()
	if ws.Subprotocol() != TunnelProtocol {
		msg := websocket.FormatCloseMessage(websocket.CloseProtocolError, "expected subprotocol "+TunnelProtocol)
		_ = ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		return
	}
	tc := &tunnelConn{ws: ws}
	newSession(tc, tc, t).run()
	_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
}

// tunnelConn is a byte stream over WebSocket binary messages: reads run
// message into message, each write is one message.
type tunnelConn struct {
	ws  *websocket.Conn
	cur io.Reader
}

func (c *tunnelConn) Read(p []byte) (int, error) {
	for {
		if c.cur == nil {
			typ, r, err := c.ws.NextReader()
			if err != nil {
				if websocket.IsCloseError(err, websocket.CloseNormalClosure) {
					return 0, io.EOF
				}
				return 0, err
			}
			if typ != websocket.BinaryMessage {
				return 0, fmt.Errorf("unexpected WebSocket message type %d in a SPDY tunnel", typ)
			}
			c.cur = r
		}
		n, err := c.cur.Read(p)
		if err == io.EOF {
			c.cur = nil
			if n == 0 {
				continue
			}
			err = nil
		}
		return n, err
	}
}

func (c *tunnelConn) Write(p []byte) (int, error) {
	if err := c.ws.WriteMessage(websocket.BinaryMessage, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// The stream types of the portforward.k8s.io protocol.
const (
	streamTypeError = "error"
	streamTypeData  = "data"
)

// stream is one SPDY stream the client opened.
type stream struct {
	id    uint32
	kind  string
	port  string
	reqID string
	// in receives the client's data (data streams only).
	in  *io.PipeReader
	inW *io.PipeWriter
}

// pair is the error and data stream of one forwarded connection.
type pair struct {
	errStream, dataStream *stream
	started               bool
}

type session struct {
	fr      *spdy.Framer
	t       Target
	ctx     context.Context
	cancel  context.CancelFunc
	streams map[uint32]*stream
	pairs   map[string]*pair
	wg      sync.WaitGroup
}

func newSession(r io.Reader, w io.Writer, t Target) *session {
	ctx, cancel := context.WithCancel(context.Background())
	return &session{fr: spdy.NewFramer(bufio.NewReader(r), w), t: t, ctx: ctx, cancel: cancel,
		streams: map[uint32]*stream{}, pairs: map[string]*pair{}}
}

// run reads frames until the client goes, then ends every forwarding.
func (s *session) run() {
	defer func() {
		s.cancel()
		for _, st := range s.streams {
			if st.inW != nil {
				st.inW.CloseWithError(io.ErrClosedPipe)
			}
		}
		s.wg.Wait()
	}()
	for {
		f, err := s.fr.ReadFrame()
		if err != nil {
			return
		}
		if !f.Control {
			s.data(f)
			continue
		}
		switch f.Type {
		case spdy.TypeSynStream:
			if err := s.open(f); err != nil {
				return
			}
		case spdy.TypeRstStream:
			if st := s.streams[f.StreamID]; st != nil && st.inW != nil {
				st.inW.CloseWithError(fmt.Errorf("stream %d reset by the client", f.StreamID))
			}
		case spdy.TypePing:
			if err := s.fr.WritePing(f.PingID); err != nil {
				return
			}
		case spdy.TypeGoAway:
			return
		}
	}
}

// open accepts a stream and, once its pair is complete, forwards it.
func (s *session) open(f *spdy.Frame) error {
	st := &stream{id: f.StreamID, kind: f.Headers.Get("streamtype"), port: f.Headers.Get("port"), reqID: f.Headers.Get("requestid")}
	if st.kind != streamTypeError && st.kind != streamTypeData {
		return s.fr.WriteRstStream(f.StreamID, spdy.StatusProtocolError)
	}
	if err := s.fr.WriteSynReply(f.StreamID, http.Header{}, false); err != nil {
		return err
	}
	if st.kind == streamTypeData {
		st.in, st.inW = io.Pipe()
	}
	s.streams[st.id] = st
	p := s.pairs[st.reqID]
	if p == nil {
		p = &pair{}
		s.pairs[st.reqID] = p
	}
	if st.kind == streamTypeError {
		p.errStream = st
	} else {
		p.dataStream = st
	}
	if p.errStream != nil && p.dataStream != nil && !p.started {
		p.started = true
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.forward(p)
		}()
	}
	return nil
}

// data hands a data frame to its stream (the error stream's input, if
// any, is dropped).
func (s *session) data(f *spdy.Frame) {
	st := s.streams[f.StreamID]
	if st == nil || st.inW == nil {
		return
	}
	if len(f.Data) > 0 {
		_, _ = st.inW.Write(f.Data)
	}
	if f.Fin() {
		st.inW.Close()
	}
}

// forward dials the pod's port and copies both ways; a failure is
// written on the error stream, as the kubelet does.
func (s *session) forward(p *pair) {
	errID, dataID := p.errStream.id, p.dataStream.id
	defer func() { _ = s.fr.WriteData(errID, nil, true) }()
	// Input nobody will read must not hold the session's read loop.
	defer p.dataStream.in.CloseWithError(io.ErrClosedPipe)
	port, err := strconv.ParseUint(p.dataStream.port, 10, 16)
	if err != nil || port == 0 {
		msg := fmt.Sprintf("error forwarding port %s to pod %s, uid %v: invalid port", p.dataStream.port, s.t.Name, s.t.UID)
		_ = s.fr.WriteData(errID, []byte(msg), false)
		_ = s.fr.WriteData(dataID, nil, true)
		return
	}
	conn, err := s.t.Dial(s.ctx, uint16(port))
	if err != nil {
		msg := fmt.Sprintf("error forwarding port %d to pod %s, uid %v: %v", port, s.t.Name, s.t.UID, err)
		_ = s.fr.WriteData(errID, []byte(msg), false)
		_ = s.fr.WriteData(dataID, nil, true)
		return
	}
	defer conn.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		// The client gone, the pod's connection goes too.
		select {
		case <-s.ctx.Done():
			conn.Close()
		case <-done:
		}
	}()
	go func() {
		// Client to pod; the client's end of input half-closes the
		// connection, so the server sees EOF and answers.
		_, _ = io.Copy(conn, p.dataStream.in)
		if cw, ok := conn.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
	}()
	buf := make([]byte, spdy.MaxDataLength)
	for {
		n, err := conn.Read(buf)
		if n > 0 {
			if s.fr.WriteData(dataID, buf[:n], false) != nil {
				return
			}
		}
		if err != nil {
			_ = s.fr.WriteData(dataID, nil, true)
			return
		}
	}
}
