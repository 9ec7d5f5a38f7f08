package remotecommand

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The subprotocols, newest first.
const (
	StreamProtocolV5Name = "v5.channel.k8s.io"
	StreamProtocolV4Name = "v4.channel.k8s.io"
)

// The channels: the first byte of every message.
const (
	StreamStdIn  byte = 0
	StreamStdOut byte = 1
	StreamStdErr byte = 2
	StreamErr    byte = 3
	StreamResize byte = 4
	// StreamClose (v5) half-closes the channel in the next byte.
	StreamClose byte = 255
)

// The Status an exit code travels in (remotecommand's constants).
const (
	NonZeroExitCodeReason metav1.StatusReason = "NonZeroExitCode"
	ExitCodeCauseType     metav1.CauseType    = "ExitCode"
)

// Options are the streams a client asked for.
type Options struct {
	Stdin, Stdout, Stderr, TTY bool
}

// OptionsFromQuery reads the streams asked for, under kubectl's names
// (stdin, stdout, stderr, tty) or the kubelet's (input, output, error,
// tty). With a terminal, stderr is merged into stdout.
func OptionsFromQuery(q url.Values) (Options, error) {
	flag := func(names ...string) bool {
		for _, n := range names {
			if v := q.Get(n); v != "" {
				b, err := strconv.ParseBool(v)
				return err == nil && b
			}
		}
		return false
	}
	o := Options{Stdin: flag("stdin", "input"), Stdout: flag("stdout", "output"), Stderr: flag("stderr", "error"), TTY: flag("tty")}
	if !o.Stdin && !o.Stdout && !o.Stderr {
		return o, errors.New("you must specify at least 1 of stdin, stdout, stderr")
	}
	if o.TTY {
		o.Stderr = false
	}
	return o, nil
}

// TerminalSize is what the resize channel carries.
type TerminalSize struct {
	Width  uint16
	Height uint16
}

// Message is one decoded WebSocket message.
type Message struct {
	// Channel the data is for; for a close signal, the channel closed.
	Channel byte
	// Close is a v5 close signal.
	Close bool
	Data  []byte
}

// Decode reads one binary message of protocol.
func Decode(msg []byte, protocol string) (Message, error) {
	if len(msg) == 0 {
		return Message{}, errors.New("empty message: no channel byte")
	}
	ch, data := msg[0], msg[1:]
	if ch == StreamClose && protocol == StreamProtocolV5Name {
		if len(data) != 1 {
			return Message{}, fmt.Errorf("close signal must name exactly one channel, got %d bytes", len(data))
		}
		return Message{Channel: data[0], Close: true}, nil
	}
	if ch > StreamResize {
		return Message{}, fmt.Errorf("unknown channel %d", ch)
	}
	return Message{Channel: ch, Data: data}, nil
}

// Encode frames data for channel.
func Encode(channel byte, data []byte) []byte {
	out := make([]byte, 1+len(data))
	out[0] = channel
	copy(out[1:], data)
	return out
}

// ExitStatus is the Status a command's end is reported with: Success, or
// NonZeroExitCode with the code as an ExitCode cause (what client-go turns
// into "command terminated with exit code N").
func ExitStatus(code int, command []string) metav1.Status {
	if code == 0 {
		return metav1.Status{Status: metav1.StatusSuccess}
	}
	return metav1.Status{
		Status:  metav1.StatusFailure,
		Reason:  NonZeroExitCodeReason,
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: ExitCodeCauseType, Message: strconv.Itoa(code)}}},
		Message: fmt.Sprintf("command terminated with non-zero exit code: error executing command [%s], exit code %d", strings.Join(command, " "), code),
	}
}

// ErrorStatus reports a failure that is not an exit code (the command
// could not run, attach ended).
func ErrorStatus(err error) metav1.Status {
	return metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonInternalError, Code: http.StatusInternalServerError, Message: err.Error()}
}

// IsWebSocket says whether r asks for a WebSocket.
func IsWebSocket(r *http.Request) bool { return websocket.IsWebSocketUpgrade(r) }

// Conn is the server side of one exec or attach.
type Conn struct {
	ws       *websocket.Conn
	protocol string
	opts     Options

	wmu sync.Mutex

	stdin     *io.PipeReader
	stdinW    *io.PipeWriter
	resize    chan TerminalSize
	done      chan struct{}
	closeOnce sync.Once
	// upgraded is when the handshake was answered (see firstFrameDelay).
	upgraded time.Time
}

// firstFrameDelay holds the first frame back this long after the
// handshake. kubectl 1.32's client (client-go before v0.33) starts reading
// frames before it has registered its streams, and drops a frame for a
// stream it does not know yet ("Unknown stream, discarding message"):
// with a command that answers at once, as the simulated ones do, the
// whole output or the exit status could be lost on a busy machine. A
// real container's process takes longer than this to start; newer
// client-go registers the streams first.
const firstFrameDelay = 100 * time.Millisecond

// writeWait bounds one write to a client that stopped reading.
const writeWait = 60 * time.Second

// Upgrade answers the WebSocket handshake (101 with the chosen
// subprotocol) and starts reading the client's channels.
func Upgrade(w http.ResponseWriter, r *http.Request, opts Options) (*Conn, error) {
	up := websocket.Upgrader{
		Subprotocols: []string{StreamProtocolV5Name, StreamProtocolV4Name},
		// The API server has authenticated and authorized the request;
		// kubectl sends no Origin.
		CheckOrigin:     func(*http.Request) bool { return true },
		ReadBufferSize:  32 << 10,
		WriteBufferSize: 32 << 10,
	}
	ws, err := up.Upgrade(w, r, nil)
	if err != nil {
		return nil, err // the upgrader has answered with an error
	}
	if ws.Subprotocol() == "" {
		msg := websocket.FormatCloseMessage(websocket.CloseProtocolError, "no supported subprotocol: "+StreamProtocolV5Name+" or "+StreamProtocolV4Name)
		_ = ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		ws.Close()
		return nil, fmt.Errorf("client offered none of %s, %s", StreamProtocolV5Name, StreamProtocolV4Name)
	}
	c := &Conn{ws: ws, protocol: ws.Subprotocol(), opts: opts, resize: make(chan TerminalSize, 4), done: make(chan struct{}), upgraded: time.Now()}
	c.stdin, c.stdinW = io.Pipe()
	go c.readLoop()
	return c, nil
}

// Protocol is the negotiated subprotocol.
func (c *Conn) Protocol() string { return c.protocol }

// readLoop hands stdin and resize messages on until the client closes.
// (Reading also answers the client's pings with pongs.)
func (c *Conn) readLoop() {
	defer close(c.done)
	defer close(c.resize)
	defer c.stdinW.Close()
	for {
		typ, data, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		if typ != websocket.BinaryMessage {
			continue
		}
		msg, err := Decode(data, c.protocol)
		if err != nil {
			continue // as wsstream does: an unknown channel is ignored
		}
		switch {
		case msg.Close && msg.Channel == StreamStdIn:
			c.stdinW.Close()
		case msg.Close:
		case msg.Channel == StreamStdIn && c.opts.Stdin:
			if _, err := c.stdinW.Write(msg.Data); err != nil {
				// Nobody reads stdin any more; keep reading for close.
				continue
			}
		case msg.Channel == StreamResize:
			var size TerminalSize
			if json.Unmarshal(msg.Data, &size) == nil {
				select {
				case c.resize <- size:
				default: // only the latest size matters
				}
			}
		}
	}
}

// Stdin is what the client types or pipes (nil when not asked for); it
// ends when the client closes stdin or the connection.
func (c *Conn) Stdin() io.Reader {
	if !c.opts.Stdin {
		return nil
	}
	return c.stdin
}

// Stdout and Stderr write to the client's channels (nil when not asked
// for).
func (c *Conn) Stdout() io.Writer {
	if !c.opts.Stdout {
		return nil
	}
	return channelWriter{c, StreamStdOut}
}

// Stderr: see Stdout.
func (c *Conn) Stderr() io.Writer {
	if !c.opts.Stderr {
		return nil
	}
	return channelWriter{c, StreamStdErr}
}

// Resize delivers terminal sizes; it is closed with the connection.
func (c *Conn) Resize() <-chan TerminalSize { return c.resize }

// Done is closed when the client has gone.
func (c *Conn) Done() <-chan struct{} { return c.done }

func (c *Conn) write(channel byte, data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if wait := firstFrameDelay - time.Since(c.upgraded); wait > 0 {
		time.Sleep(wait)
	}
	_ = c.ws.SetWriteDeadline(time.Now().Add(writeWait))
	return c.ws.WriteMessage(websocket.BinaryMessage, Encode(channel, data))
}

type channelWriter struct {
	c  *Conn
	ch byte
}

func (w channelWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if err := w.c.write(w.ch, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Finish reports how the command ended on the error channel and closes
// the connection normally: the client reads each stream to its end, then
// the Status.
func (c *Conn) Finish(status metav1.Status) error {
	data, err := json.Marshal(status)
	if err != nil {
		return err
	}
	werr := c.write(StreamErr, data)
	// Input nobody will read must not hold the read loop.
	c.stdin.CloseWithError(io.ErrClosedPipe)
	c.Close()
	return werr
}

// Close ends the connection with a normal close (idempotent).
func (c *Conn) Close() {
	c.closeOnce.Do(func() {
		c.wmu.Lock()
		msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
		_ = c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		c.wmu.Unlock()
		// Give the client a moment to answer the close before the socket
		// goes; the read loop ends on its answer.
		select {
		case <-c.done:
		case <-time.After(time.Second):
		}
		c.ws.Close()
	})
}
