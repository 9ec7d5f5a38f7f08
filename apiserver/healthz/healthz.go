package healthz

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Checker is one named health check (healthz.HealthChecker).
type Checker interface {
	// Name is the check's name: its line in a verbose answer, its own
	// path under the endpoint, what ?exclude= names.
	Name() string
	// Check is nil while healthy.
	Check(r *http.Request) error
}

// NamedCheck is a Checker of a function (healthz.NamedCheck).
func NamedCheck(name string, check func(r *http.Request) error) Checker {
	return namedCheck{name: name, check: check}
}

type namedCheck struct {
	name  string
	check func(r *http.Request) error
}

func (c namedCheck) Name() string                { return c.name }
func (c namedCheck) Check(r *http.Request) error { return c.check(r) }

// Ping is the check that always passes: the server answers
// (healthz.PingHealthz).
func Ping() Checker { return NamedCheck("ping", func(*http.Request) error { return nil }) }

// Endpoint is one of /healthz, /livez, /readyz with its checks.
type Endpoint struct {
	// Path is where it is served ("/livez"); each check is served at
	// Path/NAME.
	Path   string
	Checks []Checker
	// Metrics counts the results for /metrics/slis (nil: not counted).
	Metrics *Metrics
	// Logger receives the reasons a failed answer withholds (nil: none).
	Logger *slog.Logger
}

// name is the endpoint's name: "livez" for /livez, as the answers and
// the SLI's type label say.
func (e Endpoint) name() string {
	return strings.Split(strings.TrimPrefix(e.Path, "/"), "/")[0]
}

// Install serves the endpoint and a path per check through handle (a
// router's Handle, say).
func (e Endpoint) Install(handle func(path string, h http.Handler)) {
	handle(e.Path, e)
	for _, c := range e.Checks {
		handle(e.Path+"/"+c.Name(), CheckHandler(c))
	}
}

// ServeHTTP runs the checks not excluded, in order, and answers as
// kube-apiserver's handleRootHealth: "ok" (or the verbose lines) when all
// pass, a 500 listing each check otherwise, whatever ?verbose says.
func (e Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := e.name()
	query := r.URL.Query()
	excluded := query["exclude"]
	unknown := slices.Clone(excluded)
	var out, reasons bytes.Buffer
	var failed []string
	for _, c := range e.Checks {
		if slices.Contains(excluded, c.Name()) {
			unknown = slices.DeleteFunc(unknown, func(n string) bool { return n == c.Name() })
			fmt.Fprintf(&out, "[+]%s excluded: ok\n", c.Name())
			continue
		}
		if err := c.Check(r); err != nil {
			e.Metrics.observe(c.Name(), name, false)
			// The endpoint is public: the reason goes to the log and to
			// the check's own path, which needs its own permission.
			fmt.Fprintf(&out, "[-]%s failed: reason withheld\n", c.Name())
			fmt.Fprintf(&reasons, "[-]%s failed: %v\n", c.Name(), err)
			failed = append(failed, c.Name())
		} else {
			e.Metrics.observe(c.Name(), name, true)
			fmt.Fprintf(&out, "[+]%s ok\n", c.Name())
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		unknown = slices.Compact(unknown)
		quoted := make([]string, len(unknown))
		for i, n := range unknown {
			quoted[i] = fmt.Sprintf("%q", n)
		}
		fmt.Fprintf(&out, "warn: some health checks cannot be excluded: no matches for %s\n", strings.Join(quoted, ","))
	}
	if len(failed) > 0 {
		if e.Logger != nil {
			e.Logger.Info("health check failed", "endpoint", name, "checks", strings.Join(failed, ","), "reasons", reasons.String())
		}
		http.Error(w, fmt.Sprintf("%s%s check failed", out.String(), name), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if _, verbose := query["verbose"]; !verbose {
		fmt.Fprint(w, "ok")
		return
	}
	_, _ = out.WriteTo(w)
	fmt.Fprintf(w, "%s check passed\n", name)
}

// CheckHandler serves one check at its own path: "ok", or a 500 with the
// reason (adaptCheckToHandler).
func CheckHandler(c Checker) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := c.Check(r); err != nil {
			http.Error(w, fmt.Sprintf("internal server error: %v", err), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "ok")
	})
}

// Metrics are the health checks' service-level indicators, on the
// registry /metrics/slis serves (component-base's slis package).
type Metrics struct {
	healthcheck *prometheus.GaugeVec
	total       *prometheus.CounterVec
}

// NewMetrics registers kubernetes_healthcheck and
// kubernetes_healthchecks_total on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		healthcheck: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kubernetes_healthcheck",
			Help: "[STABLE] This metric records the result of a single healthcheck.",
		}, []string{"name", "type"}),
		total: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kubernetes_healthchecks_total",
			Help: "[STABLE] This metric records the results of all healthcheck.",
		}, []string{"name", "type", "status"}),
	}
	for _, c := range []prometheus.Collector{m.healthcheck, m.total} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// observe records one result of the check name of the endpoint typ
// (ObserveHealthcheck): the gauge 1 or 0, the counter by "success" or
// "error". The labels are bounded: the checks and endpoints are the
// server's own.
func (m *Metrics) observe(name, typ string, ok bool) {
	if m == nil {
		return
	}
	v, status := 1.0, "success"
	if !ok {
		v, status = 0, "error"
	}
	m.healthcheck.WithLabelValues(name, typ).Set(v)
	m.total.WithLabelValues(name, typ, status).Inc()
}
