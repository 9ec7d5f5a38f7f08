package metrics

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver/request"
)

// The verb and scope labels are Kubernetes': LIST and GET told apart by
// scope, WATCH, APPLY for a server-side apply, CONNECT for the streaming
// subresources, "other" for a made-up method.
func TestVerbAndScopeLabels(t *testing.T) {
	for _, tc := range []struct {
		method, path, contentType string
		verb, scope               string
	}{
		{"GET", "/api/v1/pods", "", "LIST", "cluster"},
		{"GET", "/api/v1/namespaces/default/pods", "", "LIST", "namespace"},
		{"GET", "/api/v1/namespaces/default/pods/p", "", "GET", "resource"},
		{"HEAD", "/api/v1/namespaces/default/pods/p", "", "GET", "resource"},
		{"GET", "/api/v1/namespaces/default/pods?watch=true", "", "WATCH", "namespace"},
		{"GET", "/api/v1/namespaces/default/pods?watch=1", "", "WATCH", "namespace"},
		{"GET", "/api/v1/namespaces/default/pods?watch=false", "", "LIST", "namespace"},
		{"GET", "/api/v1/watch/namespaces/default/pods", "", "WATCH", "namespace"},
		{"GET", "/api/v1/nodes", "", "LIST", "cluster"},
		{"GET", "/api/v1/nodes/n", "", "GET", "resource"},
		{"POST", "/api/v1/namespaces/default/pods", "application/json", "POST", "resource"},
		{"PUT", "/api/v1/namespaces/default/pods/p", "application/json", "PUT", "resource"},
		{"PATCH", "/api/v1/namespaces/default/pods/p", "application/merge-patch+json", "PATCH", "resource"},
		{"PATCH", "/api/v1/namespaces/default/pods/p", "application/apply-patch+yaml", "APPLY", "resource"},
		{"DELETE", "/api/v1/namespaces/default/pods/p", "", "DELETE", "resource"},
		{"DELETE", "/api/v1/namespaces/default/pods", "", "DELETE", "namespace"},
		{"POST", "/api/v1/namespaces/default/pods/p/exec", "", "CONNECT", "resource"},
		{"GET", "/api/v1/namespaces/default/pods/p/log", "", "CONNECT", "resource"},
		{"GET", "/api/v1/nodes/n/proxy/metrics", "", "CONNECT", "resource"},
		{"GET", "/api/v1/namespaces/default/pods/p/status", "", "GET", "resource"},
		{"BREW", "/api/v1/namespaces/default/pods", "", "other", "namespace"},
		{"GET", "/metrics", "", "GET", ""},
		{"GET", "/apis", "", "GET", ""},
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		if tc.contentType != "" {
			r.Header.Set("Content-Type", tc.contentType)
		}
		l := labelsOf(r, request.Parse(r), "")
		assert.Equal(t, tc.verb, l.verb, "%s %s", tc.method, tc.path)
		assert.Equal(t, tc.scope, l.scope, "%s %s", tc.method, tc.path)
	}
}

// A non-resource request is counted under a fixed path only: discovery
// and OpenAPI collapse to their roots, anything else is not counted.
func TestNonResourceLabel(t *testing.T) {
	for path, want := range map[string]string{
		"/metrics": "/metrics", "/healthz": "/healthz", "/livez": "/livez", "/readyz": "/readyz", "/version": "/version",
		"/api": "/api", "/api/v1": "/api", "/apis": "/apis", "/apis/apps/v1": "/apis", "/apis/example-17.com/v1": "/apis",
		"/openapi/v2": "/openapi/v2", "/openapi/v3": "/openapi/v3", "/openapi/v3/apis/apps/v1": "/openapi/v3",
		"/no/such/path/17": "", "/metrics/17": "", "/ui/api/info": "", "/apiserver": "",
	} {
		got, ok := NonResourceLabel(path)
		assert.Equal(t, want, got, path)
		assert.Equal(t, want != "", ok, path)
	}
}

func TestDryRunLabel(t *testing.T) {
	for q, want := range map[string]string{"": "", "dryRun=All": "All", "dryRun=All&dryRun=All": "All", "dryRun=Some": "invalid", "pretty=1": ""} {
		assert.Equal(t, want, cleanDryRun(httptest.NewRequest("POST", "/api/v1/pods?"+q, nil)), q)
	}
}

// A nil Metrics records nothing and serves the request as it came.
func TestNilMetrics(t *testing.T) {
	var m *Metrics
	r := httptest.NewRequest("GET", "/api/v1/pods", nil)
	served := false
	m.MonitorRequest(httptest.NewRecorder(), r, request.Parse(r), "", func(_ http.ResponseWriter, _ *http.Request) { served = true })
	assert.True(t, served)
	m.WatchEvent("", "v1", "pods")
	assert.Nil(t, m.InstrumentStorage(nil, schema.GroupResource{}))
}
