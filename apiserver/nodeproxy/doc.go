// Package nodeproxy is the API server's way to a node's kubelet: nodes.go's
// nodes/NAME/proxy/PATH, which forwards any path of the kubelet API (the
// kubelet's /metrics among them) as the node's ProxyREST; and the
// pods/log subresource (and pods/exec, pods/attach and pods/portforward,
// streaming.go) finds the pod, checks the container, finds the pod's node
// and forwards the request to that node's kubelet API
// (/containerLogs/{namespace}/{pod}/{container}, /exec/..., /attach/...,
// /portForward/{namespace}/{pod} on port 10250), whose answer goes back to
// the client as it comes.
//
// It simulates kube-apiserver's pod REST connecters
// (kubernetes/pkg/registry/core/pod/rest/log.go and subresources.go, with
// LogLocation, streamLocation and ValidateContainer in
// pkg/registry/core/pod/strategy.go) and the kubelet client's
// ConnectionInfoGetter (pkg/kubelet/client). In-process, a kubelet is an
// http.Handler and the request is handed to it with the client's own
// ResponseWriter, so that a connection upgrade (exec, attach,
// port-forward) passes through; a kubelet in another process (`kubesim
// kubelet`) is reached over HTTPS at the node's address and kubelet port
// through a reverse proxy (remote.go). Left out: the API server's client
// certificate toward the kubelet, verifying the kubelet's certificate
// (--kubelet-certificate-authority), and the insecureSkipTLSVerifyBackend
// option. The WebSocket of exec and port-forward reaches the kubelet as
// kubectl sent it: kube-apiserver translates it to SPDY (StreamTranslator,
// the port-forward tunnel handler) and the kubelet speaks SPDY only; here
// the kubelet speaks the WebSocket itself.
package nodeproxy
