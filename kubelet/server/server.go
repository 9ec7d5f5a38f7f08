package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kubesim/kubesim/kubelet"
)

// Host is one node's kubelet as its API needs it (the real server's
// HostInterface).
type Host interface {
	// ContainerLogs writes what a container printed to w
	// (GetKubeletContainerLogs); a *kubelet.LogError says which answer.
	ContainerLogs(ctx context.Context, namespace, pod, container string, opts kubelet.LogOptions, w io.Writer) error
	// StatsSummary is the node's Summary API answer.
	StatsSummary() kubelet.Summary
}

// Config builds a Server.
type Config struct {
	// Node finds the kubelet a request is for from the request's Host
	// without its port: the node's InternalIP or its name (required).
	Node func(host string) (Host, bool)
}

// Server is the kubelet API of the nodes of this process.
type Server struct {
	cfg    Config
	router *mux.Router
}

// New builds the server.
func New(cfg Config) (*Server, error) {
	if cfg.Node == nil {
		return nil, errors.New("kubelet server: Node is required")
	}
	s := &Server{cfg: cfg, router: mux.NewRouter()}
	s.router.SkipClean(true)
	s.router.HandleFunc("/containerLogs/{namespace}/{pod}/{container}", s.containerLogs).Methods(http.MethodGet)
	s.router.HandleFunc("/stats/summary", s.statsSummary).Methods(http.MethodGet)
	s.router.HandleFunc("/metrics", s.metrics).Methods(http.MethodGet)
	s.installStreaming() // exec, attach, portForward (streaming.go)
	s.router.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok")
	})
	return s, nil
}

// MetricsHost is a node whose kubelet is measured: its registry, which
// /metrics serves (kubelet.Kubelet.Metrics).
type MetricsHost interface {
	Metrics() prometheus.Gatherer
}

// metrics serves GET /metrics: the node's kubelet's own registry in
// Prometheus' text format, as the kubelet's /metrics; 404 for a node whose
// kubelet is not measured.
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	node, ok := s.HostFor(w, r)
	if !ok {
		return
	}
	mh, ok := node.(MetricsHost)
	if !ok || mh.Metrics() == nil {
		http.Error(w, "this kubelet has no metrics", http.StatusNotFound)
		return
	}
	promhttp.HandlerFor(mh.Metrics(), promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}).ServeHTTP(w, r)
}

// Router is the server's router, for routes added beside the built-in
// ones (exec, attach, portForward).
func (s *Server) Router() *mux.Router { return s.router }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

// HostFor finds the node a request is for, or answers 404 itself.
func (s *Server) HostFor(w http.ResponseWriter, r *http.Request) (Host, bool) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	node, ok := s.cfg.Node(host)
	if !ok {
		http.Error(w, fmt.Sprintf("no node is served at %q", r.Host), http.StatusNotFound)
	}
	return node, ok
}

// containerLogs serves GET /containerLogs/{namespace}/{pod}/{container}
// with the query parameters of PodLogOptions.
func (s *Server) containerLogs(w http.ResponseWriter, r *http.Request) {
	node, ok := s.HostFor(w, r)
	if !ok {
		return
	}
	v := mux.Vars(r)
	opts, err := parseLogOptions(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	lw := &lazyWriter{w: w}
	err = node.ContainerLogs(r.Context(), v["namespace"], v["pod"], v["container"], opts, lw)
	if err == nil {
		lw.start()
		return
	}
	if lw.started {
		return // the stream broke off; nothing more can be said
	}
	code := http.StatusBadRequest
	var le *kubelet.LogError
	if errors.As(err, &le) {
		code = le.Code
	}
	http.Error(w, err.Error(), code)
}

// lazyWriter sends the 200 header only with the first bytes, so that an
// error found before any output can still be an error answer; it flushes
// every write (kubectl logs -f shows lines as they come).
type lazyWriter struct {
	w       http.ResponseWriter
	started bool
}

func (l *lazyWriter) start() {
	if !l.started {
		l.started = true
		l.w.Header().Set("Content-Type", "text/plain")
		l.w.WriteHeader(http.StatusOK)
	}
}

func (l *lazyWriter) Write(p []byte) (int, error) {
	l.start()
	n, err := l.w.Write(p)
	_ = http.NewResponseController(l.w).Flush()
	return n, err
}

// Flush sends the header now (a follow that has nothing to say yet).
func (l *lazyWriter) Flush() {
	l.start()
	_ = http.NewResponseController(l.w).Flush()
}

func parseLogOptions(r *http.Request) (kubelet.LogOptions, error) {
	q := r.URL.Query()
	var o kubelet.LogOptions
	o.Follow, o.Previous, o.Timestamps = q.Get("follow") == "true", q.Get("previous") == "true", q.Get("timestamps") == "true"
	for key, dst := range map[string]**int64{"tailLines": &o.TailLines, "limitBytes": &o.LimitBytes, "sinceSeconds": &o.SinceSeconds} {
		if v := q.Get(key); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return o, fmt.Errorf("invalid %s %q: %w", key, v, err)
			}
			*dst = &n
		}
	}
	if v := q.Get("sinceTime"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return o, fmt.Errorf("invalid sinceTime %q: %w", v, err)
		}
		o.SinceTime = &t
	}
	return o, nil
}

// statsSummary serves GET /stats/summary.
func (s *Server) statsSummary(w http.ResponseWriter, r *http.Request) {
	node, ok := s.HostFor(w, r)
	if !ok {
		return
	}
	data, err := json.Marshal(node.StatsSummary())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(data)
}
