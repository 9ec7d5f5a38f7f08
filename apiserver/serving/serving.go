package serving

import (
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubesim/kubesim/apiserver/request"
)

// Options are the limits; zero values take the defaults below.
type Options struct {
	// ReadHeaderTimeout bounds how long a client may take to send a
	// request's headers (and, for a new connection, its TLS handshake).
	ReadHeaderTimeout time.Duration
	// BodyReadTimeout bounds how long reading one request body may take.
	BodyReadTimeout time.Duration
	// IdleTimeout closes a keep-alive connection with no request for this
	// long (kube-apiserver's HTTP/2 servers use 90 s).
	IdleTimeout time.Duration
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight cap concurrent
	// requests (kube-apiserver's defaults: 400 and 200); negative means no
	// limit.
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	// Logger receives the http.Server's own errors (at debug level).
	Logger *slog.Logger
	// Inflight, when set, counts the requests each pool holds: register
	// it on a registry for apiserver_current_inflight_requests.
	Inflight *Inflight
}

// The defaults.
const (
	DefaultReadHeaderTimeout           = 10 * time.Second
	DefaultBodyReadTimeout             = 60 * time.Second
	DefaultIdleTimeout                 = 90 * time.Second
	DefaultMaxRequestsInFlight         = 400
	DefaultMaxMutatingRequestsInFlight = 200
)

func (o *Options) defaults() {
	if o.ReadHeaderTimeout == 0 {
		o.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if o.BodyReadTimeout == 0 {
		o.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxRequestsInFlight == 0 {
		o.MaxRequestsInFlight = DefaultMaxRequestsInFlight
	}
	if o.MaxMutatingRequestsInFlight == 0 {
		o.MaxMutatingRequestsInFlight = DefaultMaxMutatingRequestsInFlight
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// NewServer returns an http.Server serving h over TLS (tlsConfig, with
// HTTP/2 offered) with the limits of opts applied.
func NewServer(h http.Handler, tlsConfig *tls.Config, opts Options) *http.Server {
	opts.defaults()
	inflight := opts.Inflight
	if inflight == nil {
		inflight = &Inflight{}
	}
	h = inflight.WithMaxInFlightLimit(h, opts.MaxRequestsInFlight, opts.MaxMutatingRequestsInFlight)
	h = withBodyReadTimeout(h, opts.BodyReadTimeout)
	if tlsConfig != nil {
		tlsConfig = tlsConfig.Clone()
		tlsConfig.NextProtos = []string{"h2", "http/1.1"}
	}
	return &http.Server{
		Handler:           h,
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: opts.ReadHeaderTimeout,
		IdleTimeout:       opts.IdleTimeout,
		// kube-apiserver's limit on request headers is 1 MiB, Go's default.
		MaxHeaderBytes: http.DefaultMaxHeaderBytes,
		ErrorLog:       slog.NewLogLogger(opts.Logger.Handler(), slog.LevelDebug),
	}
}

// longRunning reports the requests that the in-flight limit does not
// count, as kube-apiserver's BasicLongRunningRequestCheck: watches and the
// streaming subresources.
func longRunning(r *http.Request) bool {
	info := request.Parse(r)
	if info.Verb == "watch" {
		return true
	}
	switch info.Subresource {
	case "log", "exec", "attach", "portforward", "proxy":
		return true
	}
	return false
}

func mutating(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// Inflight counts the requests the max-in-flight filter holds, by pool,
// and is the collector of apiserver_current_inflight_requests.
type Inflight struct {
	readOnly, mutating atomic.Int64
}

var inflightDesc = prometheus.NewDesc("apiserver_current_inflight_requests",
	"Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
	[]string{"request_kind"}, nil)

// Describe implements prometheus.Collector.
func (f *Inflight) Describe(ch chan<- *prometheus.Desc) { ch <- inflightDesc }

// Collect implements prometheus.Collector: the requests held now
// (kube-apiserver reports the most held within the last second; a scrape
// here sees the moment).
func (f *Inflight) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(inflightDesc, prometheus.GaugeValue, float64(f.readOnly.Load()), "readOnly")
	ch <- prometheus.MustNewConstMetric(inflightDesc, prometheus.GaugeValue, float64(f.mutating.Load()), "mutating")
}

// WithMaxInFlightLimit runs at most nonMutating read-only and mutating
// mutating requests at once and answers the rest at once with 429 Too
// Many Requests and Retry-After: 1, without reading their bodies, so a
// flood of requests cannot queue up unbounded memory. A negative limit
// turns that pool's limit off.
func WithMaxInFlightLimit(h http.Handler, nonMutating, mutatingLimit int) http.Handler {
	return (&Inflight{}).WithMaxInFlightLimit(h, nonMutating, mutatingLimit)
}

// WithMaxInFlightLimit is the package's WithMaxInFlightLimit, counting
// the requests it holds in f.
func (f *Inflight) WithMaxInFlightLimit(h http.Handler, nonMutating, mutatingLimit int) http.Handler {
	pool := func(n int) chan struct{} {
		if n < 0 {
			return nil
		}
		return make(chan struct{}, n)
	}
	readOnly, writes := pool(nonMutating), pool(mutatingLimit)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if longRunning(r) {
			h.ServeHTTP(w, r)
			return
		}
		slots, count := readOnly, &f.readOnly
		if mutating(r) {
			slots, count = writes, &f.mutating
		}
		if slots != nil {
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
			default:
				tooManyRequests(w)
				return
			}
		}
		count.Add(1)
		defer count.Add(-1)
		h.ServeHTTP(w, r)
	})
}

// tooManyRequests answers as kube-apiserver's max-in-flight filter does
// (its message and Retry-After of one second), in the Status shape.
func tooManyRequests(w http.ResponseWriter) { WriteTooManyRequests(w) }

// withBodyReadTimeout sets a read deadline while a request's body is
// read and lifts it once the body is done, so a client that sends headers
// and then trickles (or never sends) its body is cut off, while a watch's
// long response is not.
func withBodyReadTimeout(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ProtoMajor != 1 {
			// HTTP/2 streams share one connection: its own flow control and
			// IdleTimeout bound them instead of a connection deadline.
			h.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(d)) != nil {
			h.ServeHTTP(w, r)
			return
		}
		r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
		h.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the read deadline once its body has been read.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		// The whole body arrived: lift the deadline. On any other error it
		// stays, so the server gives up the connection rather than wait
		// for the rest of a stalled body.
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}
