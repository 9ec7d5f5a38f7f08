package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/kubesim/kubesim/kubelet"
	"github.com/kubesim/kubesim/kubelet/portforward"
	"github.com/kubesim/kubesim/kubelet/remotecommand"
	"github.com/kubesim/kubesim/kubelet/shell"
)

// StreamingHost is what a node's kubelet offers for exec, attach and
// port-forward (the real server's streaming runtime: GetExec, GetAttach,
// GetPortForward).
type StreamingHost interface {
	// ExecTarget checks the container runs here and returns what an exec
	// into it sees; a *kubelet.StreamError says which answer.
	ExecTarget(ctx context.Context, namespace, pod, container string) (shell.Environment, error)
	// Exec runs a command in env and returns its exit code.
	Exec(ctx context.Context, env shell.Environment, cmd []string, stdio shell.Stdio) int
	// AttachTarget checks the container runs here.
	AttachTarget(namespace, pod, container string) error
	// Attach connects stdio to the container's process: what it prints
	// from now on, and, for a container started with stdin, its input.
	Attach(ctx context.Context, namespace, pod, container string, stdio shell.Stdio) error
	// PortForwardTarget is the pod a port-forward reaches.
	PortForwardTarget(namespace, pod string) (portforward.Target, error)
}

var _ StreamingHost = (*kubelet.Kubelet)(nil)

// installStreaming adds the routes of exec, attach and portForward (GET for a
// WebSocket, POST for SPDY, as the real kubelet accepts both).
func (s *Server) installStreaming() {
	s.router.HandleFunc("/exec/{namespace}/{pod}/{container}", s.exec).Methods(http.MethodGet, http.MethodPost)
	s.router.HandleFunc("/attach/{namespace}/{pod}/{container}", s.attach).Methods(http.MethodGet, http.MethodPost)
	s.router.HandleFunc("/portForward/{namespace}/{pod}", s.portForward).Methods(http.MethodGet, http.MethodPost)
}

// streamingHost finds the node's kubelet, or answers itself.
func (s *Server) streamingHost(w http.ResponseWriter, r *http.Request) (StreamingHost, bool) {
	node, ok := s.HostFor(w, r)
	if !ok {
		return nil, false
	}
	sh, ok := node.(StreamingHost)
	if !ok {
		http.Error(w, "streaming is not supported by this node", http.StatusNotFound)
	}
	return sh, ok
}

// writeStreamError answers a refusal in the kubelet's words, as plain
// text: the API server passes a failed upgrade's answer through.
func writeStreamError(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	var se *kubelet.StreamError
	if errors.As(err, &se) {
		code = se.Code
	}
	http.Error(w, err.Error(), code)
}

// upgrade answers the handshake of either transport kubectl uses: a
// WebSocket (v5.channel.k8s.io) or, its fallback, SPDY/3.1
// (v4.channel.k8s.io).
func upgrade(w http.ResponseWriter, r *http.Request, opts remotecommand.Options) (remotecommand.Streams, bool) {
	switch {
	case remotecommand.IsWebSocket(r):
		c, err := remotecommand.Upgrade(w, r, opts)
		return c, err == nil
	case remotecommand.IsSPDY(r):
		c, err := remotecommand.UpgradeSPDY(w, r, opts)
		return c, err == nil
	}
	http.Error(w, "unable to upgrade: missing upgrade headers in request: "+fmt.Sprint(r.Header["Upgrade"]), http.StatusBadRequest)
	return nil, false
}

// streamContext ends when the client goes away.
func streamContext(conn remotecommand.Streams) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-conn.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// exec serves /exec/{namespace}/{pod}/{container}?command=...&input=1&output=1&error=1&tty=1.
func (s *Server) exec(w http.ResponseWriter, r *http.Request) {
	sh, ok := s.streamingHost(w, r)
	if !ok {
		return
	}
	v := mux.Vars(r)
	q := r.URL.Query()
	opts, err := remotecommand.OptionsFromQuery(q)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	cmd := q["command"]
	if len(cmd) == 0 {
		http.Error(w, "you must specify at least one command for the container", http.StatusBadRequest)
		return
	}
	env, err := sh.ExecTarget(r.Context(), v["namespace"], v["pod"], v["container"])
	if err != nil {
		writeStreamError(w, err)
		return
	}
	conn, ok := upgrade(w, r, opts)
	if !ok {
		return // the upgrade has answered
	}
	ctx, cancel := streamContext(conn)
	defer cancel()
	code := sh.Exec(ctx, env, cmd, shell.Stdio{Stdin: conn.Stdin(), Stdout: conn.Stdout(), Stderr: conn.Stderr(), TTY: opts.TTY})
	_ = conn.Finish(remotecommand.ExitStatus(code, cmd))
}

// attach serves /attach/{namespace}/{pod}/{container}?input=1&output=1&error=1&tty=1.
func (s *Server) attach(w http.ResponseWriter, r *http.Request) {
	sh, ok := s.streamingHost(w, r)
	if !ok {
		return
	}
	v := mux.Vars(r)
	opts, err := remotecommand.OptionsFromQuery(r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := sh.AttachTarget(v["namespace"], v["pod"], v["container"]); err != nil {
		writeStreamError(w, err)
		return
	}
	conn, ok := upgrade(w, r, opts)
	if !ok {
		return
	}
	ctx, cancel := streamContext(conn)
	defer cancel()
	status := remotecommand.ExitStatus(0, nil)
	stdio := shell.Stdio{Stdout: conn.Stdout(), Stderr: conn.Stderr(), TTY: opts.TTY}
	if opts.Stdin {
		stdio.Stdin = conn.Stdin()
	}
	if err := sh.Attach(ctx, v["namespace"], v["pod"], v["container"], stdio); err != nil {
		status = remotecommand.ErrorStatus(err)
	}
	_ = conn.Finish(status)
}

// portForward serves /portForward/{namespace}/{pod}: a WebSocket tunnel
// of SPDY (GET) or a SPDY upgrade (POST).
func (s *Server) portForward(w http.ResponseWriter, r *http.Request) {
	sh, ok := s.streamingHost(w, r)
	if !ok {
		return
	}
	v := mux.Vars(r)
	target, err := sh.PortForwardTarget(v["namespace"], v["pod"])
	if err != nil {
		writeStreamError(w, err)
		return
	}
	portforward.Serve(w, r, target)
}
