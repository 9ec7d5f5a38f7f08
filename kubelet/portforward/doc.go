// Package portforward is the server side of `kubectl port-forward`: the
// portforward.k8s.io protocol over SPDY/3.1 (package spdy), reached either
// by a plain upgrade ("Upgrade: SPDY/3.1", "X-Stream-Protocol-Version:
// portforward.k8s.io") or, as kubectl v1.32 tries first, tunnelled in
// WebSocket binary messages (subprotocol "SPDY/3.1+portforward.k8s.io").
// For each local connection kubectl opens two streams with the same
// requestID header: an error stream (where a failure is written as text)
// and a data stream (the bytes of the connection); the server dials the
// pod's port and copies both ways.
//
// Real counterparts: the kubelet's cri/streaming/portforward (httpstream.go:
// stream pairs, the "error forwarding port" message), k8s.io/apiserver's
// tunnelling handler (util/proxy/streamtunnel.go) which unwraps kubectl's
// WebSocket before the kubelet sees SPDY — here the kubelet accepts both —
// and client-go's tools/portforward, the client this must satisfy.
//
// Left out: the removed WebSocket-only v4 protocol, the stream pair
// creation timeout, UDP.
package portforward
