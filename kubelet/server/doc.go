// Package server is the kubelet's HTTP API, the one a real kubelet serves
// on port 10250 and the API server forwards pods/log (and exec, attach,
// port-forward) to: GET /containerLogs/{namespace}/{pod}/{container} and
// GET /stats/summary (the Summary API the metrics server scrapes).
//
// One handler serves every node this process hosts: a request names its
// node by its Host (the node's InternalIP:10250, as the API server dials
// it, or the node's name), and Config.Node finds that node's kubelet.
//
// It simulates kubernetes/pkg/kubelet/server (server.go: the routes,
// getContainerLogs, the stats handler). Left out: TLS and the kubelet's
// own authentication and authorization (the API server is the only
// client in process), /pods, /runningpods, /metrics, /configz, /debug,
// /checkpoint and the read-only port.
package server
