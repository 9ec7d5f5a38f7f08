package podnet

import (
	"context"
	"io"
	"net"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A connection to a simulated pod address goes to the node whose pod
// range holds it; nothing listening there refuses it.
func TestDialRoutesSimulatedAddressesToTheirNode(t *testing.T) {
	n := New()
	serve := func(name string) SimulatedDialer {
		return func(ctx context.Context, ip, port string) (net.Conn, bool) {
			if ip == "10.244.2.9" && port != "80" || ip == "10.244.1.6" {
				return nil, false
			}
			client, server := net.Pipe()
			go func() {
				_, _ = io.WriteString(server, name+" "+ip+":"+port+" from "+Source(ctx))
				server.Close()
			}()
			return client, true
		}
	}
	n.ServeNode(netip.MustParsePrefix("10.244.1.0/24"), serve("node-1"))
	n.ServeNode(netip.MustParsePrefix("10.244.2.0/24"), serve("node-2"))
	read := func(addr string) (string, error) {
		c, err := n.DialContext(WithSource(context.Background(), "10.244.2.3"), "tcp", addr)
		if err != nil {
			return "", err
		}
		defer c.Close()
		b, err := io.ReadAll(c)
		return string(b), err
	}
	got, err := read("10.244.1.5:80")
	require.NoError(t, err)
	assert.Equal(t, "node-1 10.244.1.5:80 from 10.244.2.3", got)
	got, err = read("10.244.2.9:80")
	require.NoError(t, err)
	assert.Equal(t, "node-2 10.244.2.9:80 from 10.244.2.3", got)
	for _, addr := range []string{"10.244.1.6:80", "10.244.2.9:81", "10.244.3.1:80"} {
		_, err = read(addr)
		assert.ErrorContains(t, err, "connect: connection refused", addr)
	}
	// An address a CNI plugin gave a pod of node-2 inside node-1's range
	// goes to node-2 while it is served, to node-1's range again after.
	n.ServeNode(netip.MustParsePrefix("10.244.1.5/32"), serve("node-2"))
	got, err = read("10.244.1.5:80")
	require.NoError(t, err)
	assert.Equal(t, "node-2 10.244.1.5:80 from 10.244.2.3", got)
	n.ForgetNode(netip.MustParsePrefix("10.244.1.5/32"))
	got, err = read("10.244.1.5:80")
	require.NoError(t, err)
	assert.Equal(t, "node-1 10.244.1.5:80 from 10.244.2.3", got)
}
