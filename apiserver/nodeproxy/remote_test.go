package nodeproxy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// A kubelet in another process is dialled at the node's address of the
// first preferred type and its daemonEndpoints port (10250 when unset).
func TestNodeConnectionPicksAddressAndPort(t *testing.T) {
	tr := KubeletTransport()
	node := &corev1.Node{Status: corev1.NodeStatus{
		Addresses:       []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "far-1"}, {Type: corev1.NodeInternalIP, Address: "127.0.0.1"}},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 40001}}}}
	conn, err := NodeConnection(node, tr)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:40001", conn.Host, "InternalIP before Hostname")
	assert.Nil(t, conn.Handler)
	assert.Equal(t, tr, conn.Transport)

	node.Status.Addresses = node.Status.Addresses[:1]
	node.Status.DaemonEndpoints = corev1.NodeDaemonEndpoints{}
	conn, err = NodeConnection(node, tr)
	require.NoError(t, err)
	assert.Equal(t, "far-1:10250", conn.Host)

	node.Status.Addresses = nil
	_, err = NodeConnection(node, tr)
	assert.EqualError(t, err, "no preferred addresses found; known addresses: []")
}
