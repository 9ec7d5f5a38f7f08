package spdy

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Version is the SPDY version of every control frame.
const Version = 3

// FrameType is a control frame's type.
type FrameType uint16

// The control frame types.
const (
	TypeSynStream    FrameType = 1
	TypeSynReply     FrameType = 2
	TypeRstStream    FrameType = 3
	TypeSettings     FrameType = 4
	TypePing         FrameType = 6
	TypeGoAway       FrameType = 7
	TypeHeaders      FrameType = 8
	TypeWindowUpdate FrameType = 9
)

// FlagFin ends the sender's half of a stream (data frames, SYN_STREAM,
// SYN_REPLY, HEADERS).
const FlagFin byte = 0x01

// RST_STREAM status codes used here.
const (
	StatusProtocolError uint32 = 1
	StatusCancel        uint32 = 5
)

// MaxDataLength is the largest data frame written (reads accept up to
// the 24-bit limit).
const MaxDataLength = 32 << 10

// Frame is one decoded frame. Control frames carry Type; the fields that
// follow are filled when the type has them.
type Frame struct {
	Control  bool
	Type     FrameType
	Flags    byte
	StreamID uint32
	// Data is a data frame's payload.
	Data []byte
	// Headers of SYN_STREAM, SYN_REPLY and HEADERS (sent lower case; read
	// them with Get).
	Headers http.Header
	// PingID of PING; Status of RST_STREAM and GOAWAY.
	PingID uint32
	Status uint32
}

// Fin says whether the frame ends the sender's half of its stream.
func (f *Frame) Fin() bool { return f.Flags&FlagFin != 0 }

// Framer reads and writes the frames of one connection. Reads are for
// one goroutine; writes may come from many.
type Framer struct {
	r io.Reader

	// Header blocks are one zlib stream per direction.
	inflateIn *feeder
	inflate   io.ReadCloser

	wmu       sync.Mutex
	w         io.Writer
	deflate   *zlib.Writer
	deflateTo bytes.Buffer
}

// NewFramer frames rw.
func NewFramer(r io.Reader, w io.Writer) *Framer {
	return &Framer{r: r, w: w, inflateIn: &feeder{}}
}

// ReadFrame reads the next frame.
func (f *Framer) ReadFrame() (*Frame, error) {
	var hdr [8]byte
	if _, err := io.ReadFull(f.r, hdr[:]); err != nil {
		return nil, err
	}
	length := int(hdr[5])<<16 | int(hdr[6])<<8 | int(hdr[7])
	payload := make([]byte, length)
	if _, err := io.ReadFull(f.r, payload); err != nil {
		return nil, fmt.Errorf("reading a %d-byte frame: %w", length, err)
	}
	return f.parse(hdr, payload)
}

// ParseFrame decodes one whole frame (header and payload) with a fresh
// header decompression context: what a connection's first frame is.
func ParseFrame(b []byte) (*Frame, error) {
	if len(b) < 8 {
		return nil, errors.New("frame shorter than its 8-byte header")
	}
	var hdr [8]byte
	copy(hdr[:], b)
	length := int(hdr[5])<<16 | int(hdr[6])<<8 | int(hdr[7])
	if len(b)-8 != length {
		return nil, fmt.Errorf("frame header says %d bytes, %d follow", length, len(b)-8)
	}
	return (&Framer{inflateIn: &feeder{}}).parse(hdr, b[8:])
}

func (f *Framer) parse(hdr [8]byte, p []byte) (*Frame, error) {
	fr := &Frame{Flags: hdr[4]}
	if hdr[0]&0x80 == 0 {
		fr.StreamID = binary.BigEndian.Uint32(hdr[:4]) & 0x7fffffff
		fr.Data = p
		return fr, nil
	}
	fr.Control = true
	if v := binary.BigEndian.Uint16(hdr[:2]) & 0x7fff; v != Version {
		return nil, fmt.Errorf("unsupported SPDY version %d", v)
	}
	fr.Type = FrameType(binary.BigEndian.Uint16(hdr[2:4]))
	need := map[FrameType]int{TypeSynStream: 10, TypeSynReply: 4, TypeRstStream: 8, TypeSettings: 4, TypePing: 4,
		TypeGoAway: 8, TypeHeaders: 4, TypeWindowUpdate: 8}[fr.Type]
	if len(p) < need {
		return nil, fmt.Errorf("control frame type %d too short: %d bytes", fr.Type, len(p))
	}
	var err error
	switch fr.Type {
	case TypeSynStream:
		fr.StreamID = binary.BigEndian.Uint32(p) & 0x7fffffff
		fr.Headers, err = f.readHeaders(p[10:])
	case TypeSynReply, TypeHeaders:
		fr.StreamID = binary.BigEndian.Uint32(p) & 0x7fffffff
		fr.Headers, err = f.readHeaders(p[4:])
	case TypeRstStream:
		fr.StreamID = binary.BigEndian.Uint32(p) & 0x7fffffff
		fr.Status = binary.BigEndian.Uint32(p[4:])
	case TypePing:
		fr.PingID = binary.BigEndian.Uint32(p)
	case TypeGoAway:
		fr.StreamID = binary.BigEndian.Uint32(p) & 0x7fffffff
		fr.Status = binary.BigEndian.Uint32(p[4:])
	case TypeWindowUpdate:
		fr.StreamID = binary.BigEndian.Uint32(p) & 0x7fffffff
	}
	if err != nil {
		return nil, err
	}
	return fr, nil
}

// feeder hands header blocks to the connection's one inflater; being an
// io.ByteReader, it is read byte by byte, never ahead of the block.
type feeder struct{ buf []byte }

func (f *feeder) Read(p []byte) (int, error) {
	if len(f.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

func (f *feeder) ReadByte() (byte, error) {
	if len(f.buf) == 0 {
		return 0, io.EOF
	}
	b := f.buf[0]
	f.buf = f.buf[1:]
	return b, nil
}

// maxHeaderBytes and maxHeaderPairs bound what one header block may
// expand to.
const (
	maxHeaderBytes = 1 << 20
	maxHeaderPairs = 1024
)

// readHeaders decodes a compressed name/value block.
func (f *Framer) readHeaders(block []byte) (http.Header, error) {
	f.inflateIn.buf = append(f.inflateIn.buf, block...)
	if f.inflate == nil {
		zr, err := zlib.NewReaderDict(f.inflateIn, headerDictionary())
		if err != nil {
			return nil, fmt.Errorf("header block: %w", err)
		}
		f.inflate = zr
	}
	budget := maxHeaderBytes
	readUint32 := func() (uint32, error) {
		var b [4]byte
		if _, err := io.ReadFull(f.inflate, b[:]); err != nil {
			return 0, err
		}
		return binary.BigEndian.Uint32(b[:]), nil
	}
	readString := func() (string, error) {
		n, err := readUint32()
		if err != nil {
			return "", err
		}
		if int(n) > budget || n > maxHeaderBytes {
			return "", errors.New("header block too large")
		}
		budget -= int(n)
		b := make([]byte, n)
		if _, err := io.ReadFull(f.inflate, b); err != nil {
			return "", err
		}
		return string(b), nil
	}
	count, err := readUint32()
	if err != nil {
		return nil, fmt.Errorf("header block: %w", err)
	}
	if count > maxHeaderPairs {
		return nil, fmt.Errorf("header block: %d pairs is too many", count)
	}
	h := http.Header{}
	for i := uint32(0); i < count; i++ {
		name, err := readString()
		if err != nil {
			return nil, fmt.Errorf("header block: %w", err)
		}
		value, err := readString()
		if err != nil {
			return nil, fmt.Errorf("header block: %w", err)
		}
		for _, v := range strings.Split(value, "\x00") {
			h.Add(name, v)
		}
	}
	return h, nil
}

// compressHeaders encodes h (names lower case, sorted values joined by
// NUL) with the connection's deflater (under wmu).
func (f *Framer) compressHeaders(h http.Header) ([]byte, error) {
	var raw []byte
	raw = binary.BigEndian.AppendUint32(raw, uint32(len(h)))
	for name, values := range h {
		raw = binary.BigEndian.AppendUint32(raw, uint32(len(name)))
		raw = append(raw, strings.ToLower(name)...)
		v := strings.Join(values, "\x00")
		raw = binary.BigEndian.AppendUint32(raw, uint32(len(v)))
		raw = append(raw, v...)
	}
	if f.deflate == nil {
		zw, err := zlib.NewWriterLevelDict(&f.deflateTo, zlib.DefaultCompression, headerDictionary())
		if err != nil {
			return nil, err
		}
		f.deflate = zw
	}
	f.deflateTo.Reset()
	if _, err := f.deflate.Write(raw); err != nil {
		return nil, err
	}
	if err := f.deflate.Flush(); err != nil {
		return nil, err
	}
	return bytes.Clone(f.deflateTo.Bytes()), nil
}

func controlHeader(t FrameType, flags byte, length int) []byte {
	b := []byte{0x80, Version, byte(t >> 8), byte(t), flags}
	return append(b, byte(length>>16), byte(length>>8), byte(length))
}

func (f *Framer) write(b []byte) error {
	_, err := f.w.Write(b)
	return err
}

// WriteSynReply accepts a stream.
func (f *Framer) WriteSynReply(streamID uint32, h http.Header, fin bool) error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	block, err := f.compressHeaders(h)
	if err != nil {
		return err
	}
	var flags byte
	if fin {
		flags = FlagFin
	}
	b := controlHeader(TypeSynReply, flags, 4+len(block))
	b = binary.BigEndian.AppendUint32(b, streamID)
	return f.write(append(b, block...))
}

// WriteSynStream opens a stream (used by tests acting as the client).
func (f *Framer) WriteSynStream(streamID uint32, h http.Header, fin bool) error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	block, err := f.compressHeaders(h)
	if err != nil {
		return err
	}
	var flags byte
	if fin {
		flags = FlagFin
	}
	b := controlHeader(TypeSynStream, flags, 10+len(block))
	b = binary.BigEndian.AppendUint32(b, streamID)
	b = append(b, 0, 0, 0, 0, 0, 0) // associated stream, priority, slot
	return f.write(append(b, block...))
}

// WriteData sends data on a stream in frames of at most MaxDataLength;
// fin ends the stream with the last one (an empty frame if data is).
func (f *Framer) WriteData(streamID uint32, data []byte, fin bool) error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	for {
		n := min(len(data), MaxDataLength)
		var flags byte
		if fin && n == len(data) {
			flags = FlagFin
		}
		b := binary.BigEndian.AppendUint32(nil, streamID&0x7fffffff)
		b = append(b, flags, byte(n>>16), byte(n>>8), byte(n))
		if err := f.write(append(b, data[:n]...)); err != nil {
			return err
		}
		data = data[n:]
		if len(data) == 0 {
			return nil
		}
	}
}

// WritePing answers (or sends) a PING.
func (f *Framer) WritePing(id uint32) error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	return f.write(binary.BigEndian.AppendUint32(controlHeader(TypePing, 0, 4), id))
}

// WriteRstStream resets a stream.
func (f *Framer) WriteRstStream(streamID, status uint32) error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	b := binary.BigEndian.AppendUint32(controlHeader(TypeRstStream, 0, 8), streamID)
	return f.write(binary.BigEndian.AppendUint32(b, status))
}

// WriteGoAway says no more streams will be accepted.
func (f *Framer) WriteGoAway(lastStreamID uint32) error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	b := binary.BigEndian.AppendUint32(controlHeader(TypeGoAway, 0, 8), lastStreamID)
	return f.write(binary.BigEndian.AppendUint32(b, 0))
}
