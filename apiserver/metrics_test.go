package apiserver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/apiservertest"
	"github.com/kubesim/kubesim/apiserver/authn"
	"github.com/kubesim/kubesim/apiserver/authz"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/metrics/metricstest"
	"github.com/kubesim/kubesim/apiserver/rbacregistry"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store/boltstore"
)

// monitoredServer is an API server with RBAC and tokens: the admin, prom
// in the group system:monitoring, and bob in no group.
func monitoredServer(t testing.TB) (*apiserver.Server, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(apiservertest.Start)
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	srv, err := apiserver.New(apiserver.Config{
		Storage: st, Clock: clk, Rand: rand.NewChaCha8([32]byte{1}), Resources: kinds.Builtin(),
		Authenticator: authn.NewTokenAuthenticator(map[string]authn.UserInfo{
			"admin-token": {Name: "admin", Groups: []string{"system:masters"}},
			"prom-token":  {Name: "prometheus", Groups: []string{rbacregistry.MonitoringGroup}},
			"bob-token":   {Name: "bob"},
		}),
		AuthorizationMode: authz.ModeRBAC,
	})
	require.NoError(t, err)
	require.NoError(t, srv.Bootstrap(context.Background()))
	return srv, clk
}

// scrape reads /metrics as prom.
func scrape(t testing.TB, h http.Handler) metricstest.Families {
	t.Helper()
	code, _, body := call(t, h, "prom-token", "GET", "/metrics", "")
	require.Equal(t, http.StatusOK, code, body)
	f, err := metricstest.ParseString(body)
	require.NoError(t, err)
	return f
}

// /metrics is a non-resource URL authorized as kube-apiserver's: nobody
// without credentials, not an ordinary user, but the group
// system:monitoring through the bootstrap role (and the admin).
func TestMetricsEndpointAuthorization(t *testing.T) {
	srv, _ := monitoredServer(t)
	h := srv.Handler()

	code, st, _ := call(t, h, "", "GET", "/metrics", "")
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Equal(t, "Unauthorized", string(st.Reason))
	code, st, _ = call(t, h, "bob-token", "GET", "/metrics", "")
	assert.Equal(t, http.StatusForbidden, code)
	assert.Equal(t, "Forbidden", string(st.Reason))
	assert.Equal(t, `forbidden: User "bob" cannot get path "/metrics"`, st.Message)
	for _, tok := range []string{"prom-token", "admin-token"} {
		req := httptest.NewRequest("GET", "/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, http.StatusOK, rec.Code, tok)
		assert.True(t, strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain; version=0.0.4"), rec.Header().Get("Content-Type"))
		assert.Contains(t, rec.Body.String(), "# TYPE apiserver_storage_objects gauge")
	}
	// The role gives the health checks too, and nothing else.
	code, _, _ = call(t, h, "prom-token", "GET", "/livez", "")
	assert.Equal(t, http.StatusOK, code)
	code, _, _ = call(t, h, "prom-token", "GET", "/api/v1/namespaces/default/pods", "")
	assert.Equal(t, http.StatusForbidden, code)
}

// Requests are counted by their Kubernetes verb, group, version, resource,
// scope and code, and timed in the upstream buckets.
func TestMetricsCountRequests(t *testing.T) {
	srv, clk := monitoredServer(t)
	h := srv.Handler()
	before := scrape(t, h)
	created := map[string]string{"verb": "POST", "group": "", "version": "v1", "resource": "pods", "subresource": "",
		"scope": "resource", "component": "apiserver", "code": "201", "dry_run": ""}
	for i := range 3 {
		code, _, body := call(t, h, "admin-token", "POST", "/api/v1/namespaces/default/pods",
			fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p%d"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, i))
		require.Equal(t, http.StatusCreated, code, body)
	}
	code, _, _ := call(t, h, "admin-token", "GET", "/api/v1/namespaces/default/pods", "")
	require.Equal(t, http.StatusOK, code)
	code, _, _ = call(t, h, "admin-token", "GET", "/api/v1/namespaces/default/pods/p0", "")
	require.Equal(t, http.StatusOK, code)
	code, _, _ = call(t, h, "admin-token", "GET", "/api/v1/namespaces/default/pods/nope", "")
	require.Equal(t, http.StatusNotFound, code)
	code, _, _ = call(t, h, "admin-token", "POST", "/api/v1/namespaces/default/pods?dryRun=All",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"dry"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`)
	require.Equal(t, http.StatusCreated, code)
	// A server-side apply is APPLY, a merge patch PATCH.
	req := httptest.NewRequest("PATCH", "/api/v1/namespaces/default/configmaps/cm?fieldManager=test",
		strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}}`))
	req.Header.Set("Authorization", "Bearer admin-token")
	req.Header.Set("Content-Type", "application/apply-patch+yaml")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	code, _, _ = call(t, h, "admin-token", "PATCH", "/api/v1/namespaces/default/configmaps/cm", "")
	require.Equal(t, http.StatusUnsupportedMediaType, code) // application/json is no patch type

	clk.Step(time.Minute) // the object counts are a minute old: counted again
	after := scrape(t, h)
	delta := func(name string, labels map[string]string) float64 {
		return after.Sum(name, labels) - before.Sum(name, labels)
	}
	assert.Equal(t, 3.0, delta("apiserver_request_total", created))
	assert.Equal(t, 1.0, delta("apiserver_request_total", map[string]string{"verb": "LIST", "resource": "pods", "scope": "namespace", "code": "200"}))
	assert.Equal(t, 1.0, delta("apiserver_request_total", map[string]string{"verb": "GET", "resource": "pods", "scope": "resource", "code": "200"}))
	assert.Equal(t, 1.0, delta("apiserver_request_total", map[string]string{"verb": "GET", "resource": "pods", "code": "404"}))
	assert.Equal(t, 1.0, delta("apiserver_request_total", map[string]string{"verb": "POST", "resource": "pods", "dry_run": "All", "code": "201"}))
	assert.Equal(t, 1.0, delta("apiserver_request_total", map[string]string{"verb": "APPLY", "resource": "configmaps", "code": "201"}))
	assert.Equal(t, 1.0, delta("apiserver_request_total", map[string]string{"verb": "PATCH", "resource": "configmaps", "code": "415"}))
	// The histogram counts the same requests, without the code.
	delete(created, "code")
	assert.Equal(t, 3.0, delta("apiserver_request_duration_seconds", created))
	// Scrapes are counted under their path.
	assert.Equal(t, 1.0, delta("apiserver_request_total", map[string]string{"verb": "GET", "subresource": "/metrics", "scope": "", "code": "200"}))
	// The writes passed the admission chain: both halves are timed.
	assert.Greater(t, delta("apiserver_admission_step_admission_duration_seconds", map[string]string{"type": "admit", "operation": "CREATE", "rejected": "false"}), 3.0)
	assert.Greater(t, delta("apiserver_admission_step_admission_duration_seconds", map[string]string{"type": "validate", "operation": "CREATE"}), 3.0)
	// The upstream buckets.
	var les []string
	for _, b := range after["apiserver_request_duration_seconds"].GetMetric()[0].GetHistogram().GetBucket() {
		les = append(les, fmt.Sprint(b.GetUpperBound()))
	}
	assert.Equal(t, "0.005 0.025 0.05 0.1 0.2 0.4 0.6 0.8 1 1.25 1.5 2 3 4 5 6 8 10 15 20 30 45 60 +Inf", strings.Join(les, " "))
	// The storage's calls, timed by operation and resource, and the
	// size of the bbolt file.
	assert.Equal(t, 3.0, delta("etcd_request_duration_seconds", map[string]string{"operation": "create", "group": "", "resource": "pods"}))
	assert.Greater(t, delta("etcd_request_duration_seconds", map[string]string{"operation": "get", "resource": "pods"}), 0.0)
	assert.Greater(t, after.Sum("apiserver_storage_size_bytes", map[string]string{"storage_cluster_id": ""}), 0.0)
	// The objects stored, counted when scraped.
	assert.Equal(t, 3.0, after.Sum("apiserver_storage_objects", map[string]string{"resource": "pods"}))
	assert.True(t, after.Has("apiserver_storage_objects", map[string]string{"resource": "clusterroles.rbac.authorization.k8s.io"}))
}

// The series do not grow with the objects, namespaces and paths clients
// name: 10,000 distinct namespaces and names, made-up resources and paths
// leave the number of series where one of each left it.
func TestMetricsCardinalityIsBounded(t *testing.T) {
	srv, clk := monitoredServer(t)
	h := srv.LoopbackHandler() // in process and unauthenticated: fast
	round := func(i int) {
		for _, r := range []struct{ method, path string }{
			{"GET", fmt.Sprintf("/api/v1/namespaces/ns-%d/configmaps/cm-%d", i, i)},
			{"GET", fmt.Sprintf("/api/v1/namespaces/ns-%d/configmaps", i)},
			{"DELETE", fmt.Sprintf("/api/v1/namespaces/ns-%d/secrets/s-%d", i, i)},
			{"GET", fmt.Sprintf("/api/v1/made-up-%d", i)},
			{"GET", fmt.Sprintf("/apis/example-%d.com/v1/things", i)},
			{"GET", fmt.Sprintf("/no/such/path/%d", i)},
			{"GET", fmt.Sprintf("/openapi/v3/apis/example-%d.com/v1", i)},
		} {
			req := httptest.NewRequest(r.method, r.path, nil)
			h.ServeHTTP(httptest.NewRecorder(), req)
		}
	}
	// Objects with distinct names in distinct namespaces, written.
	write := func(i int) {
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns-%d"}}`, i)
		req := httptest.NewRequest("POST", "/api/v1/namespaces", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	}
	round(0)
	write(0)
	scrape(t, srv.Handler()) // a scrape is counted once answered: the next one shows it
	base := scrape(t, srv.Handler())
	n := 10_000
	if testing.Short() {
		n = 1_000
	}
	for i := 1; i < n; i++ {
		round(i)
		if i%10 == 0 {
			write(i)
		}
	}
	clk.Step(time.Minute)
	after := scrape(t, srv.Handler())
	assert.Equal(t, base.Series("apiserver_"), after.Series("apiserver_"),
		"the series grew with the names; resources: %v", after.LabelValues("apiserver_request_total", "resource"))
	namespaces := map[string]string{"resource": "namespaces"}
	assert.Equal(t, float64((n-1)/10), after.Sum("apiserver_storage_objects", namespaces)-base.Sum("apiserver_storage_objects", namespaces))
	assert.NotContains(t, after.LabelValues("apiserver_request_total", "resource"), "made-up-1")
}

// Every plugin call of the admission chain is timed under the plugin's
// name, the half it ran in, the operation and whether it refused, as
// kube-apiserver's apiserver_admission_controller_admission_duration_seconds:
// a refusal is counted against the plugin that refused, and the plugins
// after it are not called.
func TestMetricsTimeEachAdmissionPlugin(t *testing.T) {
	srv, _ := monitoredServer(t)
	h := srv.Handler()
	const name = "apiserver_admission_controller_admission_duration_seconds"
	before := scrape(t, h)
	code, _, body := call(t, h, "admin-token", "POST", "/api/v1/namespaces/default/pods",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`)
	require.Equal(t, http.StatusCreated, code, body)
	code, _, body = call(t, h, "admin-token", "POST", "/api/v1/namespaces/missing/pods",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`)
	require.Equal(t, http.StatusNotFound, code, body)
	after := scrape(t, h)
	delta := func(labels map[string]string) float64 { return after.Sum(name, labels) - before.Sum(name, labels) }

	for _, c := range []struct {
		plugin, typ, rejected string
		want                  float64
	}{
		{"LimitRanger", "admit", "false", 2}, // both creates passed the mutating half
		{"Priority", "admit", "false", 2},    // ...
		{"MutatingAdmissionWebhook", "admit", "false", 2},
		{"NamespaceLifecycle", "validate", "false", 1}, // the first create
		{"NamespaceLifecycle", "validate", "true", 1},  // the second: no namespace "missing"
		{"LimitRanger", "validate", "false", 1},        // not called after the refusal
		{"ResourceQuota", "validate", "false", 1},
		{"ResourceQuota", "admit", "false", 0}, // only validating
	} {
		assert.Equal(t, c.want, delta(map[string]string{"name": c.plugin, "type": c.typ, "operation": "CREATE", "rejected": c.rejected}),
			"%s %s rejected=%s", c.plugin, c.typ, c.rejected)
	}
	// Each plugin the chain has is there, under its kube-apiserver name;
	// the labels are upstream's.
	names := after.LabelValues(name, "name")
	for _, p := range []string{"NamespaceLifecycle", "LimitRanger", "Priority", "DefaultTolerationSeconds", "DefaultStorageClass",
		"StorageObjectInUseProtection", "RuntimeClass", "DefaultIngressClass", "MutatingAdmissionWebhook",
		"ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook", "ResourceQuota", "Escalation"} {
		assert.Contains(t, names, p)
	}
	m := after[name].GetMetric()[0]
	var labels []string
	for _, l := range m.GetLabel() {
		labels = append(labels, l.GetName())
	}
	assert.ElementsMatch(t, []string{"name", "type", "operation", "rejected"}, labels)
	var les []string
	for _, b := range m.GetHistogram().GetBucket() {
		les = append(les, fmt.Sprint(b.GetUpperBound()))
	}
	assert.Equal(t, "0.005 0.025 0.1 0.5 1 2.5 +Inf", strings.Join(les, " "))
}

// The health checks answer as kube-apiserver's, to anyone: "ok", the
// verbose lines, a path per check; a storage that does not answer fails
// etcd with the reason withheld, and each result is counted at
// /metrics/slis, which only the monitoring group (and the admin) reads.
func TestHealthChecksAndSLIs(t *testing.T) {
	st, err := boltstore.Open(boltstore.Config{Path: filepath.Join(t.TempDir(), boltstore.FileName), UnsafeNoFsync: true})
	require.NoError(t, err)
	srv, err := apiserver.New(apiserver.Config{
		Storage: st, Clock: clock.NewFake(apiservertest.Start), Rand: rand.NewChaCha8([32]byte{1}), Resources: kinds.Builtin(),
		Authenticator: authn.NewTokenAuthenticator(map[string]authn.UserInfo{
			"prom-token": {Name: "prometheus", Groups: []string{rbacregistry.MonitoringGroup}},
			"bob-token":  {Name: "bob"},
		}),
		AuthorizationMode: authz.ModeRBAC,
	})
	require.NoError(t, err)
	h := srv.Handler()

	// Before Bootstrap, the post-start hook is not ready; the roles are
	// not there either, so only the loopback may ask.
	lb := srv.LoopbackHandler()
	code, _, body := call(t, lb, "", "GET", "/readyz", "")
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Equal(t, "[+]ping ok\n[+]etcd ok\n[-]poststarthook/rbac/bootstrap-roles failed: reason withheld\nreadyz check failed\n", body)
	code, _, body = call(t, lb, "", "GET", "/readyz/poststarthook/rbac/bootstrap-roles", "")
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Equal(t, "internal server error: not finished\n", body)
	require.NoError(t, srv.Bootstrap(context.Background()))

	for _, c := range []struct{ token, path, body string }{
		{"bob-token", "/readyz", "ok"},
		{"bob-token", "/healthz", "ok"},
		{"bob-token", "/livez?verbose", "[+]ping ok\n[+]etcd ok\n[+]poststarthook/rbac/bootstrap-roles ok\nlivez check passed\n"},
		{"bob-token", "/readyz?verbose&exclude=etcd", "[+]ping ok\n[+]etcd excluded: ok\n[+]poststarthook/rbac/bootstrap-roles ok\nreadyz check passed\n"},
		{"prom-token", "/livez/ping", "ok"},
		{"prom-token", "/readyz/etcd", "ok"},
	} {
		code, _, body := call(t, h, c.token, "GET", c.path, "")
		assert.Equal(t, http.StatusOK, code, c.path)
		assert.Equal(t, c.body, body, c.path)
	}
	// A check's own path tells the reason: not for everyone.
	code, st403, _ := call(t, h, "bob-token", "GET", "/readyz/etcd", "")
	assert.Equal(t, http.StatusForbidden, code)
	assert.Equal(t, `forbidden: User "bob" cannot get path "/readyz/etcd"`, st403.Message)
	code, _, _ = call(t, h, "prom-token", "GET", "/readyz/nope", "")
	assert.Equal(t, http.StatusNotFound, code)

	// /metrics/slis: 401 without credentials, 403 for bob, the counts
	// for the monitoring group.
	code, status, _ := call(t, h, "bad-token", "GET", "/metrics/slis", "")
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Equal(t, "Unauthorized", string(status.Reason))
	code, status, _ = call(t, h, "bob-token", "GET", "/metrics/slis", "")
	assert.Equal(t, http.StatusForbidden, code)
	assert.Equal(t, `forbidden: User "bob" cannot get path "/metrics/slis"`, status.Message)
	slis := func() metricstest.Families {
		code, _, body := call(t, h, "prom-token", "GET", "/metrics/slis", "")
		require.Equal(t, http.StatusOK, code, body)
		assert.NotContains(t, body, "apiserver_request_total", "the SLIs alone")
		f, err := metricstest.ParseString(body)
		require.NoError(t, err)
		return f
	}
	f := slis()
	assert.Equal(t, 3.0, f.Sum("kubernetes_healthchecks_total", map[string]string{"name": "ping", "type": "readyz", "status": "success"}))
	assert.Equal(t, 2.0, f.Sum("kubernetes_healthchecks_total", map[string]string{"name": "etcd", "type": "readyz", "status": "success"}), "excluded once of three")
	assert.Equal(t, 1.0, f.Sum("kubernetes_healthchecks_total", map[string]string{"name": "poststarthook/rbac/bootstrap-roles", "type": "readyz", "status": "error"}))
	assert.Equal(t, 1.0, f.Sum("kubernetes_healthcheck", map[string]string{"name": "etcd", "type": "livez"}))

	// The storage stops answering: etcd fails everywhere, reason withheld
	// but at its own path.
	require.NoError(t, st.Close())
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		code, _, body := call(t, h, "bob-token", "GET", p, "")
		assert.Equal(t, http.StatusInternalServerError, code, p)
		assert.Contains(t, body, "[+]ping ok\n[-]etcd failed: reason withheld\n", p)
		assert.True(t, strings.HasSuffix(body, strings.TrimPrefix(p, "/")+" check failed\n"), body)
	}
	code, _, body = call(t, h, "prom-token", "GET", "/livez/etcd", "")
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.True(t, strings.HasPrefix(body, "internal server error: "), body)
	f = slis()
	assert.Equal(t, 0.0, f.Sum("kubernetes_healthcheck", map[string]string{"name": "etcd", "type": "livez"}))
	assert.Equal(t, 1.0, f.Sum("kubernetes_healthchecks_total", map[string]string{"name": "etcd", "type": "livez", "status": "error"}))
}
