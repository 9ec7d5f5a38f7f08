package podnet

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDialFollowsTheTable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			_, _ = c.Write([]byte("hi"))
			_ = c.Close()
		}
	}()
	n := New()
	_, err = n.DialContext(context.Background(), "tcp", "10.244.0.5:443")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "connection refused")

	n.Register("10.244.0.5:443", ln.Addr().String())
	c, err := n.DialContext(context.Background(), "tcp", "10.244.0.5:443")
	require.NoError(t, err)
	buf := make([]byte, 2)
	_, err = c.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "hi", string(buf))
	_ = c.Close()
	assert.Equal(t, []string{"10.244.0.5:443 -> " + ln.Addr().String()}, n.Entries())

	n.Unregister("10.244.0.5:443")
	_, err = n.DialContext(context.Background(), "tcp", "10.244.0.5:443")
	require.Error(t, err)
}
