package remotecommand

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/kubelet/spdy"
)

// Streams is one exec or attach, over either transport.
type Streams interface {
	// Stdin, Stdout and Stderr are nil when not asked for.
	Stdin() io.Reader
	Stdout() io.Writer
	Stderr() io.Writer
	// Done is closed when the client has gone.
	Done() <-chan struct{}
	// Finish reports how the command ended and closes the connection.
	Finish(status metav1.Status) error
}

var (
	_ Streams = (*Conn)(nil)
	_ Streams = (*SPDYConn)(nil)
)

// IsSPDY says whether r asks for a SPDY/3.1 upgrade.
func IsSPDY(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "SPDY/3.1")
}

// The stream types of the SPDY transport (the streamType header).
const (
	streamTypeError  = "error"
	streamTypeStdin  = "stdin"
	streamTypeStdout = "stdout"
	streamTypeStderr = "stderr"
	streamTypeResize = "resize"
)

// streamCreationTimeout is how long the client has to open its streams
// (the kubelet's default).
const streamCreationTimeout = 30 * time.Second

// SPDYConn is the server side of one exec or attach over SPDY/3.1 with
// v4.channel.k8s.io: one stream per channel, opened by the client (error
// first, then stdin, stdout, stderr and, with a terminal, resize). It is
// what kubectl v1.32 falls back to when the WebSocket upgrade fails (an
// RBAC role that grants create but not get on pods/exec, for one).
type SPDYConn struct {
	conn net.Conn
	fr   *spdy.Framer
	opts Options

	ids    map[string]uint32
	stdin  *io.PipeReader
	stdinW *io.PipeWriter
	done   chan struct{}
	once   sync.Once
}

// UpgradeSPDY answers the SPDY upgrade (101, X-Stream-Protocol-Version
// v4.channel.k8s.io) and waits for the client's streams.
func UpgradeSPDY(w http.ResponseWriter, r *http.Request, opts Options) (*SPDYConn, error) {
	var offered []string
	for _, v := range r.Header.Values("X-Stream-Protocol-Version") {
		for _, p := range strings.Split(v, ",") {
			offered = append(offered, strings.TrimSpace(p))
		}
	}
	if !contains(offered, StreamProtocolV4Name) {
		msg := fmt.Sprintf("unable to upgrade: unable to negotiate protocol: client supports %v, server supports %v", offered, []string{StreamProtocolV4Name})
		http.Error(w, msg, http.StatusForbidden)
		return nil, errors.New(msg)
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "unable to upgrade: unable to hijack response", http.StatusInternalServerError)
		return nil, errors.New("response cannot be hijacked")
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(rw, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: %s\r\n\r\n", StreamProtocolV4Name)
	if err := rw.Flush(); err != nil {
		conn.Close()
		return nil, err
	}
	c := &SPDYConn{conn: conn, fr: spdy.NewFramer(bufio.NewReader(rw.Reader), conn), opts: opts,
		ids: map[string]uint32{}, done: make(chan struct{})}
	c.stdin, c.stdinW = io.Pipe()
	want := 1 // error
	for _, on := range []bool{opts.Stdin, opts.Stdout, opts.Stderr, opts.TTY} {
		if on {
			want++
		}
	}
	ready := make(chan struct{})
	go c.readLoop(want, ready)
	select {
	case <-ready:
		return c, nil
	case <-c.done:
		conn.Close()
		return nil, errors.New("the client closed the connection before opening its streams")
	case <-time.After(streamCreationTimeout):
		conn.Close()
		return nil, errors.New("timed out waiting for the client to create streams")
	}
}

func contains(values []string, want string) bool {
	for _, v := range values {
		if v == want {
			return true
		}
	}
	return false
}

// readLoop accepts the streams (ready once want are open) and hands
// stdin on, until the client closes the connection.
func (c *SPDYConn) readLoop(want int, ready chan struct{}) {
	defer close(c.done)
	defer c.stdinW.Close()
	opened := 0
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			return
		}
		switch {
		case !f.Control:
			if f.StreamID == c.ids[streamTypeStdin] && c.ids[streamTypeStdin] != 0 {
				if len(f.Data) > 0 {
					_, _ = c.stdinW.Write(f.Data)
				}
				if f.Fin() {
					c.stdinW.Close()
				}
			}
		case f.Type == spdy.TypeSynStream:
			kind := f.Headers.Get("streamType")
			if err := c.fr.WriteSynReply(f.StreamID, http.Header{}, false); err != nil {
				return
			}
			if _, dup := c.ids[kind]; !dup {
				c.ids[kind] = f.StreamID
				if opened++; opened == want {
					close(ready)
				}
			}
		case f.Type == spdy.TypeRstStream && f.StreamID == c.ids[streamTypeStdin]:
			c.stdinW.Close()
		case f.Type == spdy.TypePing:
			if c.fr.WritePing(f.PingID) != nil {
				return
			}
		case f.Type == spdy.TypeGoAway:
			return
		}
	}
}

// Stdin is what the client sends (nil when not asked for).
func (c *SPDYConn) Stdin() io.Reader {
	if !c.opts.Stdin {
		return nil
	}
	return c.stdin
}

// Stdout writes to the client's stdout stream (nil when not asked for).
func (c *SPDYConn) Stdout() io.Writer {
	if !c.opts.Stdout {
		return nil
	}
	return spdyWriter{c, c.ids[streamTypeStdout]}
}

// Stderr writes to the client's stderr stream (nil when not asked for).
func (c *SPDYConn) Stderr() io.Writer {
	if !c.opts.Stderr {
		return nil
	}
	return spdyWriter{c, c.ids[streamTypeStderr]}
}

// Done is closed when the client has gone.
func (c *SPDYConn) Done() <-chan struct{} { return c.done }

type spdyWriter struct {
	c  *SPDYConn
	id uint32
}

func (w spdyWriter) Write(p []byte) (int, error) {
	if err := w.c.fr.WriteData(w.id, p, false); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Finish ends the output streams, reports the Status on the error stream
// and, once the client has closed (or after a while), the connection.
func (c *SPDYConn) Finish(status metav1.Status) error {
	var err error
	c.once.Do(func() {
		c.stdin.CloseWithError(io.ErrClosedPipe)
		for _, kind := range []string{streamTypeStdout, streamTypeStderr, streamTypeStdin} {
			if id := c.ids[kind]; id != 0 {
				_ = c.fr.WriteData(id, nil, true)
			}
		}
		data, merr := json.Marshal(status)
		if merr != nil {
			err = merr
			return
		}
		err = c.fr.WriteData(c.ids[streamTypeError], data, true)
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
		}
		c.conn.Close()
	})
	return err
}
