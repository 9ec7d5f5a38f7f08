// Package remotecommand is the server side of the streams of `kubectl
// exec` and `kubectl attach`: a WebSocket (RFC 6455, through
// github.com/gorilla/websocket, the library client-go itself uses) whose
// subprotocol is v5.channel.k8s.io (or v4). Every binary message starts
// with a channel byte — 0 stdin, 1 stdout, 2 stderr, 3 error (a Status
// saying how the command ended), 4 resize (terminal size as JSON) — and
// v5 adds 255, "close": [255, channel] half-closes a channel, which is how
// kubectl says its stdin has ended.
//
// Real counterparts: k8s.io/apimachinery/pkg/util/remotecommand (the
// protocol names and the close signal), k8s.io/apiserver's wsstream (the
// channel framing), the kubelet's cri/streaming/remotecommand (the Status
// on the error channel: Success, or NonZeroExitCode with an ExitCode
// cause) and client-go's tools/remotecommand/websocket.go (the client this
// must satisfy). In Kubernetes the API server translates kubectl's
// WebSocket into SPDY towards the kubelet (StreamTranslator); here the
// kubelet speaks the WebSocket itself.
//
// The SPDY/3.1 transport (spdy.go, v4.channel.k8s.io: one SPDY stream per
// channel) serves kubectl's fallback when the WebSocket upgrade fails —
// with an RBAC role granting create but not get on pods/exec, say.
//
// Left out: the base64 channel protocols and v1–v3.
// gorilla/websocket is used rather than a hand-written RFC 6455 server:
// masking, fragmentation, control frames and the close handshake are
// what the library gets right and a page of our own would get subtly
// wrong; the Kubernetes part — the channels — is written out here.
package remotecommand
