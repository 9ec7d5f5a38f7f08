package metrics

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
)

// APIServerComponent is the component label of the requests the API
// server answers itself (kube-apiserver's metrics.APIServerComponent).
const APIServerComponent = "apiserver"

// The request kinds of apiserver_current_inflight_requests, as the
// max-in-flight filter names its two pools.
const (
	ReadOnlyKind = "readOnly"
	MutatingKind = "mutating"
)

// DefaultObjectCountPeriod is how old apiserver_storage_objects may be
// before a scrape counts again (kube-apiserver's
// --etcd-count-metric-poll-period).
const DefaultObjectCountPeriod = time.Minute

// requestDurationBuckets are apiserver_request_duration_seconds' buckets,
// upstream's: fine below a second for the latency SLOs, up to the 60 s a
// request may take.
var requestDurationBuckets = []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3,
	4, 5, 6, 8, 10, 15, 20, 30, 45, 60}

// The admission histograms' buckets, upstream's: the chain's steps are
// fast, webhooks may take up to their timeout.
var (
	admissionStepBuckets    = []float64{0.005, 0.025, 0.1, 0.5, 1.0, 2.5}
	admissionWebhookBuckets = []float64{0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25}
)

// ObjectCounter counts the objects stored, by group-resource as
// apiserver_storage_objects labels them ("pods", "deployments.apps"); a
// resource it could not count is -1.
type ObjectCounter func(ctx context.Context) (map[string]int64, error)

// Config builds a Metrics.
type Config struct {
	// Registry receives the collectors, once, and is what Handler serves
	// (required): one per API server, never the default registerer.
	Registry *prometheus.Registry
	// Clock times the requests (required).
	Clock clock.Clock
	// Objects counts the stored objects for apiserver_storage_objects
	// (nil: the metric is left out).
	Objects ObjectCounter
	// ObjectCountPeriod is how long a count of Objects is reused
	// (DefaultObjectCountPeriod when 0; negative counts at every scrape).
	ObjectCountPeriod time.Duration
	// Sizer reports the storage's size for apiserver_storage_size_bytes
	// (nil: the metric is left out).
	Sizer store.Sizer
}

// Metrics are one API server's collectors. A nil *Metrics records
// nothing, so that code measured here needs no check.
type Metrics struct {
	clock    clock.Clock
	registry *prometheus.Registry

	requests    *prometheus.CounterVec
	durations   *prometheus.HistogramVec
	longRunning *prometheus.GaugeVec
	watchEvents *prometheus.CounterVec

	admissionSteps       *prometheus.HistogramVec
	admissionControllers *prometheus.HistogramVec
	admissionWebhooks    *prometheus.HistogramVec
	// steps are admissionSteps' series; plugins are
	// admissionControllers', a *admissionSeries by plugin name.
	steps   admissionSeries
	plugins sync.Map

	storage *storageMetrics
}

// New registers the API server's collectors on cfg.Registry.
func New(cfg Config) (*Metrics, error) {
	if cfg.Registry == nil || cfg.Clock == nil {
		return nil, errors.New("apiserver metrics: Registry and Clock are required")
	}
	if cfg.ObjectCountPeriod == 0 {
		cfg.ObjectCountPeriod = DefaultObjectCountPeriod
	}
	m := &Metrics{clock: cfg.Clock, registry: cfg.Registry,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_total",
			Help: "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
		}, []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_request_duration_seconds",
			Help:    "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
			Buckets: requestDurationBuckets,
		}, []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"}),
		longRunning: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_longrunning_requests",
			Help: "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
		}, []string{"verb", "group", "version", "resource", "subresource", "scope", "component"}),
		watchEvents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_watch_events_total",
			Help: "Number of events sent in watch clients",
		}, []string{"group", "version", "resource"}),
		admissionSteps: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_admission_step_admission_duration_seconds",
			Help:    "Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).",
			Buckets: admissionStepBuckets,
		}, []string{"type", "operation", "rejected"}),
		admissionControllers: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_admission_controller_admission_duration_seconds",
			Help:    "Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
			Buckets: admissionStepBuckets,
		}, []string{"name", "type", "operation", "rejected"}),
		admissionWebhooks: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_admission_webhook_admission_duration_seconds",
			Help:    "Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
			Buckets: admissionWebhookBuckets,
		}, []string{"name", "type", "operation", "rejected"}),
	}
	cs := []prometheus.Collector{m.requests, m.durations, m.longRunning, m.watchEvents, m.admissionSteps, m.admissionControllers, m.admissionWebhooks}
	if cfg.Objects != nil {
		cs = append(cs, &objectCollector{count: cfg.Objects, clock: cfg.Clock, period: cfg.ObjectCountPeriod,
			desc: prometheus.NewDesc("apiserver_storage_objects",
				"Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
				[]string{"resource"}, nil)})
	}
	for _, c := range cs {
		if err := cfg.Registry.Register(c); err != nil {
			return nil, err
		}
	}
	var err error
	if m.storage, err = newStorageMetrics(cfg.Registry, cfg.Clock, cfg.Sizer); err != nil {
		return nil, err
	}
	return m, nil
}

// Registry is the registry the metrics are on.
func (m *Metrics) Registry() *prometheus.Registry { return m.registry }

// Handler serves the registry in Prometheus' exposition formats (text,
// or what the scraper negotiates), as kube-apiserver's /metrics.
func Handler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// The non-resource paths counted, each under its own label (the
// subresource label, as upstream's InstrumentHandlerFunc for /healthz and
// discovery): any other path would make the label as unbounded as the
// paths clients try.
var nonResourcePaths = []string{"/version", "/healthz", "/livez", "/readyz", "/metrics", "/openapi/v2", "/openapi/v3"}

// NonResourceLabel is the label a non-resource request is counted under:
// its fixed path, discovery as /api or /apis, and false for a path not
// counted.
func NonResourceLabel(path string) (string, bool) {
	if slices.Contains(nonResourcePaths, path) {
		return path, true
	}
	for _, p := range []string{"/openapi/v3", "/api", "/apis"} {
		if strings.HasPrefix(path, p+"/") || path == p {
			return p, true
		}
	}
	return "", false
}

// MonitorRequest serves r with serve and counts it: apiserver_request_total
// and apiserver_request_duration_seconds once answered, and
// apiserver_longrunning_requests while a watch or a CONNECT lasts. info
// is r's; a resource request must be for a resource served, and a
// non-resource one is labelled path (NonResourceLabel). A write carries
// the metrics in its context for the admission chain to time its steps.
func (m *Metrics) MonitorRequest(w http.ResponseWriter, r *http.Request, info *request.Info, path string, serve http.HandlerFunc) {
	if m == nil {
		serve(w, r)
		return
	}
	l := labelsOf(r, info, path)
	if l.verb == "WATCH" || l.verb == "CONNECT" {
		g := m.longRunning.WithLabelValues(l.verb, l.group, l.version, l.resource, l.subresource, l.scope, APIServerComponent)
		g.Inc()
		defer g.Dec()
	}
	start := m.clock.Now()
	rw := &responseWriter{ResponseWriter: w}
	serve(rw, r)
	code := rw.code
	if code == 0 {
		code = http.StatusOK // nothing written: net/http answers 200
	}
	m.requests.WithLabelValues(l.verb, l.dryRun, l.group, l.version, l.resource, l.subresource, l.scope, APIServerComponent, strconv.Itoa(code)).Inc()
	m.durations.WithLabelValues(l.verb, l.dryRun, l.group, l.version, l.resource, l.subresource, l.scope, APIServerComponent).
		Observe(m.clock.Now().Sub(start).Seconds())
}

// labels are a request's labels.
type labels struct {
	verb, dryRun, group, version, resource, subresource, scope string
}

func labelsOf(r *http.Request, info *request.Info, path string) labels {
	scope := CleanScope(info)
	l := labels{verb: CleanVerb(CanonicalVerb(strings.ToUpper(r.Method), scope), r, info), dryRun: cleanDryRun(r), scope: scope}
	if info.IsResourceRequest {
		l.group, l.version, l.resource, l.subresource = info.APIGroup, info.APIVersion, info.Resource, info.Subresource
	} else {
		l.subresource = path
	}
	return l
}

// WatchEvent counts one event sent to a watcher of group/version/resource.
func (m *Metrics) WatchEvent(group, version, resource string) {
	if m == nil {
		return
	}
	m.watchEvents.WithLabelValues(group, version, resource).Inc()
}

// CleanScope is a request's scope label: "resource" for one object (and
// a create), "namespace" for a collection in a namespace, "cluster" for
// one across namespaces or cluster-scoped, "" for a non-resource request.
func CleanScope(info *request.Info) string {
	if info.Name != "" || info.Verb == "create" {
		return "resource"
	}
	if info.Namespace != "" {
		return "namespace"
	}
	if info.IsResourceRequest {
		return "cluster"
	}
	return ""
}

// CanonicalVerb tells a LIST from a GET (and a HEAD) by the scope; other
// methods stay as they are. verb is upper case.
func CanonicalVerb(verb, scope string) string {
	switch verb {
	case http.MethodGet, http.MethodHead:
		if scope != "resource" && scope != "" {
			return "LIST"
		}
		return http.MethodGet
	}
	return verb
}

// The verbs reported; any other method is "other", so that a client's
// made-up methods do not become labels.
var validVerbs = []string{"APPLY", "CONNECT", "CREATE", "DELETE", "DELETECOLLECTION", "GET", "LIST", "PATCH", "POST",
	"PROXY", "PUT", "UPDATE", "WATCH", "WATCHLIST"}

// connectSubresources are the subresources reported as CONNECT.
var connectSubresources = []string{"log", "exec", "portforward", "attach", "proxy"}

// CleanVerb makes the reported verb: WATCH for a watch, APPLY for a
// server-side apply PATCH, CONNECT for the streaming subresources, "other"
// for a method Kubernetes does not serve.
func CleanVerb(verb string, r *http.Request, info *request.Info) string {
	switch {
	case info.IsResourceRequest && info.Subresource != "" && slices.Contains(connectSubresources, info.Subresource):
		verb = "CONNECT"
	case info.Verb == "watch" || verb == "WATCHLIST":
		verb = "WATCH"
	case verb == http.MethodPatch && r.Header.Get("Content-Type") == "application/apply-patch+yaml":
		verb = "APPLY"
	}
	if !slices.Contains(validVerbs, verb) {
		return "other"
	}
	return verb
}

// cleanDryRun is the dry_run label: "" for a real write, "All" for a dry
// run, "invalid" for a dryRun value the server refuses.
func cleanDryRun(r *http.Request) string {
	if !strings.Contains(r.URL.RawQuery, "dryRun") {
		return "" // no parse of the query for the common case
	}
	values := r.URL.Query()["dryRun"]
	if len(values) == 0 {
		return ""
	}
	for _, v := range values {
		if v != "All" {
			return "invalid"
		}
	}
	return "All"
}

// responseWriter notes the code answered. It is a Flusher and a Hijacker
// because watches flush and the streaming subresources upgrade through
// the writer they are given.
type responseWriter struct {
	http.ResponseWriter
	code int
}

func (w *responseWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes flushes on (watches, logs -f).
func (w *responseWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the connection.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Hijack hands the connection to an upgrade (exec, attach,
// port-forward), which answers 101 on the raw connection.
func (w *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil && w.code == 0 {
		w.code = http.StatusSwitchingProtocols
	}
	return conn, rw, err
}

// Admission is what times the admission chain, for a write's context
// (admission.WithMetrics); nil for a nil m.
func (m *Metrics) Admission() admission.Metrics {
	if m == nil {
		return nil
	}
	return admissionMetrics{m}
}

// admissionMetrics times the admission chain for admission.Metrics.
type admissionMetrics struct{ m *Metrics }

func (a admissionMetrics) Now() time.Time { return a.m.clock.Now() }

func (a admissionMetrics) ObserveStep(step string, op admission.Operation, rejected bool, start, end time.Time) {
	a.m.admissionStep(step, op, rejected).Observe(end.Sub(start).Seconds())
}

// admissionStep is the series of one step: the few there are (two steps,
// four operations, refused or not) are resolved once each, not hashed
// again on every write.
func (m *Metrics) admissionStep(step string, op admission.Operation, rejected bool) prometheus.Observer {
	return m.steps.get(m.admissionSteps, "", step, op, rejected)
}

func (a admissionMetrics) ObservePlugin(name, step string, op admission.Operation, rejected bool, start time.Time) time.Time {
	end := a.m.clock.Now()
	a.m.admissionPlugin(name, step, op, rejected).Observe(end.Sub(start).Seconds())
	return end
}

// admissionPlugin is the series of one plugin's calls. A write calls some
// fifteen plugins, so the series is found by the plugin's name alone (a
// string key hashes four times faster than the label tuple) and then by
// position. The names are the chain's plugins', as bounded as the steps.
func (m *Metrics) admissionPlugin(name, step string, op admission.Operation, rejected bool) prometheus.Observer {
	s, ok := m.plugins.Load(name)
	if !ok {
		s, _ = m.plugins.LoadOrStore(name, new(admissionSeries))
	}
	return s.(*admissionSeries).get(m.admissionControllers, name, step, op, rejected)
}

// admissionOperations are the operations an admissionSeries holds.
var admissionOperations = []admission.Operation{admission.Create, admission.Update, admission.Delete, admission.Connect}

// admissionSeries are the series of one admission histogram (of one
// plugin's, for the plugins') by operation, then step, then refusal:
// looked up by position, each made at its first use, as WithLabelValues
// would, and kept.
type admissionSeries [2 * 2 * 4]atomic.Pointer[prometheus.Observer]

// get is the series of vec for step, op and rejected, and for the plugin
// name unless it is "" (vec has no name label then).
func (a *admissionSeries) get(vec *prometheus.HistogramVec, name, step string, op admission.Operation, rejected bool) prometheus.Observer {
	i := slices.Index(admissionOperations, op)
	if i >= 0 {
		if step == admission.StepValidate {
			i += len(admissionOperations)
		}
		if rejected {
			i += 2 * len(admissionOperations)
		}
		if o := a[i].Load(); o != nil {
			return *o
		}
	}
	labels := []string{step, string(op), strconv.FormatBool(rejected)}
	if name != "" {
		labels = append([]string{name}, labels...)
	}
	o := vec.WithLabelValues(labels...)
	if i >= 0 {
		a[i].Store(&o)
	}
	return o
}

func (a admissionMetrics) ObserveWebhook(name, step string, op admission.Operation, rejected bool, start time.Time) {
	a.m.admissionWebhooks.WithLabelValues(name, step, string(op), strconv.FormatBool(rejected)).Observe(a.m.clock.Now().Sub(start).Seconds())
}

// objectCollector is apiserver_storage_objects: counted when scraped,
// unless the last count is younger than period.
type objectCollector struct {
	count  ObjectCounter
	clock  clock.Clock
	period time.Duration
	desc   *prometheus.Desc

	mu     sync.Mutex
	at     time.Time
	counts map[string]int64
}

func (c *objectCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *objectCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	if c.counts == nil || c.period < 0 || now.Sub(c.at) >= c.period {
		counts, err := c.count(context.Background())
		if err != nil {
			// Upstream reports -1 for a count that failed.
			counts = map[string]int64{}
			for r := range c.counts {
				counts[r] = -1
			}
		}
		c.counts, c.at = counts, now
	}
	for r, n := range c.counts {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), r)
	}
}
