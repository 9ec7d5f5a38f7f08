package podnet

import (
	"context"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A GET to a simulated pod address goes to the server of the node whose
// pod range holds it.
func TestSimulatedGetRoutesToTheNode(t *testing.T) {
	n := New()
	n.ServeNode(netip.MustParsePrefix("10.244.1.0/24"), func(_ context.Context, ip, port, path string) (int, []byte, bool) {
		return 200, []byte("node-1 " + ip + ":" + port + path), ip == "10.244.1.5"
	})
	n.ServeNode(netip.MustParsePrefix("10.244.2.0/24"), func(context.Context, string, string, string) (int, []byte, bool) {
		return 200, []byte("node-2"), true
	})
	code, body, ok := n.SimulatedGet(context.Background(), "10.244.1.5", "80", "/x")
	assert.True(t, ok)
	assert.Equal(t, 200, code)
	assert.Equal(t, "node-1 10.244.1.5:80/x", string(body))
	_, body, _ = n.SimulatedGet(context.Background(), "10.244.2.9", "80", "/")
	assert.Equal(t, "node-2", string(body))
	_, _, ok = n.SimulatedGet(context.Background(), "10.244.1.6", "80", "/")
	assert.False(t, ok, "nothing listens there")
	_, _, ok = n.SimulatedGet(context.Background(), "10.244.3.1", "80", "/")
	assert.False(t, ok, "no node has that range")
}
