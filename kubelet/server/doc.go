// Package server is the kubelet's HTTP API, the one a real kubelet serves
// on port 10250 and the API server forwards pods/log, exec, attach and
// port-forward to: GET /containerLogs/{namespace}/{pod}/{container}, GET
// /stats/summary (the Summary API the metrics server scrapes), and the
// streaming routes of streaming.go — /exec/{namespace}/{pod}/{container}
// and /attach/... (a WebSocket or SPDY, package remotecommand) and
// /portForward/{namespace}/{pod} (SPDY, package portforward).
//
// One handler serves every node this process hosts: a request names its
// node by its Host (the node's InternalIP:10250, as the API server dials
// it, or the node's name), and Config.Node finds that node's kubelet.
//
// It simulates kubernetes/pkg/kubelet/server (server.go: the routes,
// getContainerLogs, the stats handler, getExec, getAttach,
// getPortForward, and /metrics: the node's kubelet's own registry, which
// the API server reaches at /api/v1/nodes/NAME/proxy/metrics).
// `kubesim kubelet` serves it over TLS, one listener per node. Left out:
// the kubelet's own authentication and authorization (the real kubelet's
// flag defaults: anonymous, AlwaysAllow), /pods, /runningpods,
// /metrics/cadvisor, /metrics/resource, /configz, /debug, /checkpoint and
// the read-only port.
package server
