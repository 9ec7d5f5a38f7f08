package podnet

import (
	"io"
	"net"
	"sync"
	"time"
)

// half is one direction of a Pipe: bytes written wait until read.
type half struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	closed bool // the writer is done: EOF after buf
	broken bool // the reader is gone: writes fail
}

func newHalf() *half {
	h := &half{}
	h.cond = sync.NewCond(&h.mu)
	return h
}

func (h *half) read(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for len(h.buf) == 0 && !h.closed && !h.broken {
		h.cond.Wait()
	}
	if h.broken {
		return 0, net.ErrClosed
	}
	if len(h.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, h.buf)
	h.buf = h.buf[n:]
	h.cond.Broadcast()
	return n, nil
}

// maxBuffered bounds what a writer may get ahead of its reader.
const maxBuffered = 1 << 20

func (h *half) write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for len(p) > 0 {
		for len(h.buf) >= maxBuffered && !h.broken && !h.closed {
			h.cond.Wait()
		}
		if h.broken || h.closed {
			return n, io.ErrClosedPipe
		}
		k := min(len(p), maxBuffered-len(h.buf))
		h.buf = append(h.buf, p[:k]...)
		p, n = p[k:], n+k
		h.cond.Broadcast()
	}
	return n, nil
}

// closeWrite ends the direction: the reader sees EOF after what is left.
func (h *half) closeWrite() {
	h.mu.Lock()
	h.closed = true
	h.cond.Broadcast()
	h.mu.Unlock()
}

// closeRead drops the direction: its writer's writes fail.
func (h *half) closeRead() {
	h.mu.Lock()
	h.broken = true
	h.buf = nil
	h.cond.Broadcast()
	h.mu.Unlock()
}

// pipeConn is one end of a Pipe.
type pipeConn struct {
	r, w          *half
	local, remote net.Addr
}

func (c *pipeConn) Read(p []byte) (int, error)  { return c.r.read(p) }
func (c *pipeConn) Write(p []byte) (int, error) { return c.w.write(p) }

// CloseWrite half-closes the connection: the peer reads EOF.
func (c *pipeConn) CloseWrite() error {
	c.w.closeWrite()
	return nil
}

// Close closes both directions.
func (c *pipeConn) Close() error {
	c.w.closeWrite()
	c.r.closeRead()
	return nil
}

func (c *pipeConn) LocalAddr() net.Addr  { return c.local }
func (c *pipeConn) RemoteAddr() net.Addr { return c.remote }

// Deadlines are not kept: the simulation's servers answer at once, and
// their clients bound their waits with contexts.
func (c *pipeConn) SetDeadline(time.Time) error      { return nil }
func (c *pipeConn) SetReadDeadline(time.Time) error  { return nil }
func (c *pipeConn) SetWriteDeadline(time.Time) error { return nil }
