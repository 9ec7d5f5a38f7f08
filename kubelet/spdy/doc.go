// Package spdy is the part of SPDY/3.1 (draft-mbelshe-httpbis-spdy) that
// `kubectl port-forward` needs from a server: the 8-byte frame headers,
// data frames, the control frames SYN_STREAM, SYN_REPLY, RST_STREAM,
// SETTINGS, PING, GOAWAY, HEADERS and WINDOW_UPDATE, and header blocks
// compressed with zlib and the protocol's fixed dictionary — one
// compression context per direction for the whole connection.
//
// Kubernetes uses SPDY through github.com/moby/spdystream and
// k8s.io/apimachinery/pkg/util/httpstream/spdy; kubectl v1.32 sends it
// either over a plain HTTP upgrade ("Upgrade: SPDY/3.1") or tunnelled in
// WebSocket binary messages (subprotocol "SPDY/3.1+portforward.k8s.io").
// Read the framing in golang.org/x/net's old spdy package or spdystream's
// spdy directory.
//
// Left out: flow control (spdystream sends WINDOW_UPDATE frames to nobody
// who waits for them; they are read and ignored), priorities, server
// push, the CREDENTIAL frame and SETTINGS persistence.
package spdy
