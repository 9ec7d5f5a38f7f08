package spdy

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A client's frames as a server reads them, over one connection whose
// header blocks share one compression context each way.
func TestFramesRoundTrip(t *testing.T) {
	var wire bytes.Buffer
	client := NewFramer(nil, &wire)
	require.NoError(t, client.WriteSynStream(1, http.Header{"streamType": {"error"}, "port": {"80"}, "requestID": {"0"}}, false))
	require.NoError(t, client.WriteSynStream(3, http.Header{"streamType": {"data"}, "port": {"80"}, "requestID": {"0"}}, false))
	require.NoError(t, client.WriteData(3, bytes.Repeat([]byte("x"), MaxDataLength+5), true))
	require.NoError(t, client.WritePing(7))
	require.NoError(t, client.WriteRstStream(3, StatusCancel))
	require.NoError(t, client.WriteSynReply(5, http.Header{"a": {"1", "2"}}, true))
	require.NoError(t, client.WriteGoAway(3))

	server := NewFramer(&wire, io.Discard)
	read := func() *Frame {
		t.Helper()
		f, err := server.ReadFrame()
		require.NoError(t, err)
		return f
	}
	f := read()
	assert.Equal(t, TypeSynStream, f.Type)
	assert.Equal(t, uint32(1), f.StreamID)
	assert.Equal(t, http.Header{"Streamtype": {"error"}, "Port": {"80"}, "Requestid": {"0"}}, f.Headers)
	f = read()
	assert.Equal(t, uint32(3), f.StreamID)
	assert.Equal(t, []string{"data"}, f.Headers.Values("streamType"), "the second block decodes in the same context")
	f = read()
	assert.False(t, f.Control)
	assert.Len(t, f.Data, MaxDataLength)
	assert.False(t, f.Fin())
	f = read()
	assert.Len(t, f.Data, 5)
	assert.True(t, f.Fin(), "the last piece ends the stream")
	f = read()
	assert.Equal(t, TypePing, f.Type)
	assert.Equal(t, uint32(7), f.PingID)
	f = read()
	assert.Equal(t, TypeRstStream, f.Type)
	assert.Equal(t, StatusCancel, f.Status)
	f = read()
	assert.Equal(t, TypeSynReply, f.Type)
	assert.Equal(t, []string{"1", "2"}, f.Headers.Values("a"), "NUL-separated values")
	assert.True(t, f.Fin())
	f = read()
	assert.Equal(t, TypeGoAway, f.Type)
	assert.Equal(t, uint32(3), f.StreamID)
	_, err := server.ReadFrame()
	assert.Equal(t, io.EOF, err)
}

func TestDictionary(t *testing.T) {
	d := headerDictionary()
	assert.Len(t, d, 1423, "the SPDY/3 dictionary's length")
	assert.Equal(t, []byte{0, 0, 0, 7, 'o', 'p', 't', 'i', 'o', 'n', 's'}, d[:11])
	assert.Equal(t, "enq=0.", string(d[len(d)-6:]))
}

func TestParseFrameErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		err  string
	}{
		{"short", []byte{0x80, 3}, "frame shorter than its 8-byte header"},
		{"length mismatch", []byte{0, 0, 0, 1, 0, 0, 0, 4, 'a'}, "frame header says 4 bytes, 1 follow"},
		{"version", []byte{0x80, 2, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1}, "unsupported SPDY version 2"},
		{"short ping", []byte{0x80, 3, 0, 6, 0, 0, 0, 2, 0, 1}, "control frame type 6 too short: 2 bytes"},
		{"bad header block", []byte{0x80, 3, 0, 2, 0, 0, 0, 6, 0, 0, 0, 1, 'n', 'o'}, "header block: zlib: invalid header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFrame(tc.b)
			assert.EqualError(t, err, tc.err)
		})
	}
	f, err := ParseFrame([]byte{0, 0, 0, 9, 1, 0, 0, 2, 'h', 'i'})
	require.NoError(t, err)
	assert.Equal(t, &Frame{StreamID: 9, Flags: FlagFin, Data: []byte("hi")}, f)
}

// The decoder never panics on what a peer may send, whatever the bytes.
func FuzzParseFrame(f *testing.F) {
	var wire bytes.Buffer
	w := NewFramer(nil, &wire)
	_ = w.WriteSynStream(1, http.Header{"streamtype": {"data"}}, false)
	f.Add(wire.Bytes())
	f.Add([]byte{0, 0, 0, 9, 1, 0, 0, 2, 'h', 'i'})
	f.Add([]byte{0x80, 3, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := ParseFrame(b)
		if err != nil {
			return
		}
		if !fr.Control && len(fr.Data) != len(b)-8 {
			t.Fatalf("data frame of %d bytes from %d", len(fr.Data), len(b))
		}
	})
}
