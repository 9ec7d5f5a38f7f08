package request

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// An Info is the one of a request it was parsed from, and of the copies
// of it the filters make with another context; not of another request
// with the same path (an in-process call made while serving the first,
// whose context carries the first's Info), nor of the same URL with
// another method. ParseParts has no request.
func TestParsedFromOnlyTheRequestItself(t *testing.T) {
	r := httptest.NewRequest("PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1", nil)
	info := Parse(r)
	r2 := r.WithContext(WithInfo(r.Context(), info))
	assert.True(t, info.ParsedFrom(r2), "the filters' copy of the request")
	assert.True(t, info.ParsedFrom(r))

	same := httptest.NewRequest("PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1", nil).WithContext(r2.Context())
	assert.False(t, info.ParsedFrom(same), "another request, the same path")
	other := r2.Clone(r2.Context())
	other.URL = r2.URL
	other.Method = "DELETE"
	assert.False(t, info.ParsedFrom(other), "the same URL, another method")
	assert.False(t, ParseParts("PUT", r.URL.Path, "").ParsedFrom(r), "ParseParts has no request")
	var none *Info
	assert.False(t, none.ParsedFrom(r))

	// A request without a query string is parsed without reading one.
	assert.Equal(t, "watch", Parse(httptest.NewRequest("GET", "/api/v1/namespaces/default/configmaps?watch=true", nil)).Verb)
	assert.Equal(t, "list", Parse(httptest.NewRequest("GET", "/api/v1/namespaces/default/configmaps", nil)).Verb)
}
