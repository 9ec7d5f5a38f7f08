package cluster

import (
	"context"
	"net"
	"net/http"
	"strconv"

	"github.com/kubesim/kubesim/apiserver/nodeproxy"
	"github.com/kubesim/kubesim/kubelet"
	kubeletserver "github.com/kubesim/kubesim/kubelet/server"
)

// kubeletConnections builds the kubelet API of this process's nodes and
// returns how the API server reaches it: in process, a node's kubelet is
// the one handler, told apart by the node's address in the Host.
func (c *Cluster) kubeletConnections() nodeproxy.ConnectionGetter {
	srv, err := kubeletserver.New(kubeletserver.Config{Node: c.kubeletByHost})
	if err != nil {
		panic(err) // only a missing Node, which is given above
	}
	c.kubeletAPI = srv
	return kubeletConnections{c: c, remote: nodeproxy.KubeletTransport()}
}

// KubeletAPI is the kubelet API of every node of the cluster (the
// handler the API server forwards pods/log to; the metrics server scrapes
// /stats/summary from it). A request names its node by its Host: the
// node's InternalIP or name.
func (c *Cluster) KubeletAPI() http.Handler { return c.kubeletAPI }

// kubeletByHost finds the running kubelet at an address or node name.
func (c *Cluster) kubeletByHost(host string) (kubeletserver.Host, bool) {
	for _, name := range c.nodeOrder {
		k := c.kubelets[name]
		if (name == host || k.InternalIP() == host) && !k.Stopped() {
			return k, true
		}
	}
	return nil, false
}

type kubeletConnections struct {
	c *Cluster
	// remote reaches the kubelets of other processes over HTTPS.
	remote http.RoundTripper
}

// GetConnection finds the kubelet of a node: its address, and the
// handler unless the node is stopped (nothing answers there then). A node
// this process does not run (its kubelet is a `kubesim kubelet` process)
// is reached at the address and port its Node reports.
func (k kubeletConnections) GetConnection(ctx context.Context, node string) (nodeproxy.Connection, error) {
	kl, ok := k.c.kubelets[node]
	if !ok {
		n, err := k.c.Client("kube-apiserver").Nodes().Get(ctx, "", node)
		if err != nil {
			return nodeproxy.Connection{}, err
		}
		return nodeproxy.NodeConnection(n, k.remote)
	}
	conn := nodeproxy.Connection{Host: net.JoinHostPort(kl.InternalIP(), strconv.Itoa(nodeproxy.KubeletPort))}
	if !kl.Stopped() {
		conn.Handler = k.c.kubeletAPI
	}
	return conn, nil
}

var _ kubeletserver.Host = (*kubelet.Kubelet)(nil)
