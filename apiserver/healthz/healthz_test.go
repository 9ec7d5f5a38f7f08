package healthz

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/metrics/metricstest"
)

// endpoint is /livez with ping and an etcd check that fails when told,
// served on a mux as the API server installs it.
func endpoint(t *testing.T, etcdErr *error) (http.Handler, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	require.NoError(t, err)
	mux := http.NewServeMux()
	Endpoint{Path: "/livez", Metrics: m, Checks: []Checker{
		Ping(),
		NamedCheck("etcd", func(*http.Request) error { return *etcdErr }),
	}}.Install(mux.Handle)
	return mux, reg
}

func get(h http.Handler, path string) (int, string, http.Header) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String(), rec.Header()
}

// The answers, healthy and with etcd failing: a failure is a 500, verbose
// whatever was asked, its reason withheld except at the check's own path.
func TestEndpointAnswersAsKubeAPIServer(t *testing.T) {
	var etcdErr error
	h, _ := endpoint(t, &etcdErr)
	for _, c := range []struct {
		etcdDown bool
		path     string
		code     int
		body     string
	}{
		{false, "/livez", 200, "ok"},
		{false, "/livez?verbose", 200, "[+]ping ok\n[+]etcd ok\nlivez check passed\n"},
		{false, "/livez?verbose=1&exclude=etcd", 200, "[+]ping ok\n[+]etcd excluded: ok\nlivez check passed\n"},
		{false, "/livez?verbose&exclude=nope&exclude=etcd&exclude=alsono", 200,
			"[+]ping ok\n[+]etcd excluded: ok\nwarn: some health checks cannot be excluded: no matches for \"alsono\",\"nope\"\nlivez check passed\n"},
		{false, "/livez/ping", 200, "ok"},
		{false, "/livez/etcd", 200, "ok"},
		{true, "/livez", 500, "[+]ping ok\n[-]etcd failed: reason withheld\nlivez check failed\n"},
		{true, "/livez?verbose", 500, "[+]ping ok\n[-]etcd failed: reason withheld\nlivez check failed\n"},
		{true, "/livez?exclude=etcd", 200, "ok"},
		{true, "/livez/ping", 200, "ok"},
		{true, "/livez/etcd", 500, "internal server error: database not open\n"},
	} {
		etcdErr = nil
		if c.etcdDown {
			etcdErr = errors.New("database not open")
		}
		code, body, hdr := get(h, c.path)
		assert.Equal(t, c.code, code, c.path)
		assert.Equal(t, c.body, body, c.path)
		assert.Equal(t, "text/plain; charset=utf-8", hdr.Get("Content-Type"), c.path)
	}
}

// Each check run is counted for /metrics/slis under its name and the
// endpoint's; an excluded check and a check's own path are not.
func TestEndpointCountsSLIs(t *testing.T) {
	var etcdErr error
	h, reg := endpoint(t, &etcdErr)
	get(h, "/livez")
	get(h, "/livez?exclude=etcd")
	get(h, "/livez/etcd")
	etcdErr = errors.New("down")
	get(h, "/livez")
	f, err := metricstest.Gather(reg)
	require.NoError(t, err)
	assert.Equal(t, 3.0, f.Sum("kubernetes_healthchecks_total", map[string]string{"name": "ping", "type": "livez", "status": "success"}))
	assert.Equal(t, 1.0, f.Sum("kubernetes_healthchecks_total", map[string]string{"name": "etcd", "type": "livez", "status": "success"}))
	assert.Equal(t, 1.0, f.Sum("kubernetes_healthchecks_total", map[string]string{"name": "etcd", "type": "livez", "status": "error"}))
	assert.Equal(t, 1.0, f.Sum("kubernetes_healthcheck", map[string]string{"name": "ping", "type": "livez"}))
	assert.Equal(t, 0.0, f.Sum("kubernetes_healthcheck", map[string]string{"name": "etcd", "type": "livez"}), "the last result")
	assert.True(t, f.Has("kubernetes_healthcheck", map[string]string{"name": "etcd", "type": "livez"}))
}
