package aggregator_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/discovery"
	"github.com/kubesim/kubesim/sampleapiserver"
)

// kubectlAccept is what kubectl v1.32 sends to /api and /apis.
const kubectlAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"

func (e *env) aggregated(t *testing.T, ifNoneMatch string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/apis", nil)
	req.Header.Set("Accept", kubectlAccept)
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	return rec
}

func decodeGroups(t *testing.T, rec *httptest.ResponseRecorder) map[string]discovery.APIGroupDiscovery {
	t.Helper()
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, discovery.AggregatedContentType("v2"), rec.Header().Get("Content-Type"))
	var l discovery.APIGroupDiscoveryList
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &l))
	out := map[string]discovery.APIGroupDiscovery{}
	for _, g := range l.Items {
		out[g.Metadata.Name] = g
	}
	return out
}

// The aggregated /apis holds the extension server's group, as that server
// describes it, beside the local groups; it changes (and so does its ETag)
// when the APIService goes.
func TestAggregatedDiscoveryIncludesExtensionServer(t *testing.T) {
	e := newEnv(t)
	e.startBackend(t)
	e.createService(t, true)

	before := e.aggregated(t, "")
	_, present := decodeGroups(t, before)[sampleapiserver.Group]
	require.False(t, present)

	e.createAPIService(t, sampleapiserver.Group, sampleapiserver.Version, 1000, 15)
	rec := e.aggregated(t, "")
	groups := decodeGroups(t, rec)
	wardle, ok := groups[sampleapiserver.Group]
	require.True(t, ok, "the extension server's group is listed")
	require.Len(t, wardle.Versions, 1)
	v := wardle.Versions[0]
	assert.Equal(t, sampleapiserver.Version, v.Version)
	assert.Equal(t, discovery.DiscoveryFreshnessCurrent, v.Freshness)
	require.NotEmpty(t, v.Resources)
	assert.Equal(t, "flunders", v.Resources[0].Resource)
	assert.Equal(t, &discovery.GroupVersionKind{Group: sampleapiserver.Group, Version: sampleapiserver.Version, Kind: "Flunder"}, v.Resources[0].ResponseKind)
	assert.Equal(t, discovery.ScopeNamespace, v.Resources[0].Scope)
	// Local groups are there too, described by the API server.
	apps := groups["apps"]
	require.NotEmpty(t, apps.Versions)
	assert.Equal(t, discovery.DiscoveryFreshnessCurrent, apps.Versions[0].Freshness)
	assert.NotEmpty(t, apps.Versions[0].Resources)
	_, core := groups[""]
	assert.False(t, core, "the core group is only at /api")

	etag := rec.Header().Get("ETag")
	require.NotEmpty(t, etag)
	assert.NotEqual(t, before.Header().Get("ETag"), etag)
	assert.Equal(t, http.StatusNotModified, e.aggregated(t, etag).Code)

	require.NoError(t, apiServices(e.client).Delete(context.Background(), "", sampleapiserver.Version+"."+sampleapiserver.Group, nil))
	after := e.aggregated(t, etag)
	_, present = decodeGroups(t, after)[sampleapiserver.Group]
	assert.False(t, present)
	assert.NotEqual(t, etag, after.Header().Get("ETag"))
}

// An extension server that cannot be reached is listed Stale, without
// resources: clients report the group-version as failed and go on.
func TestAggregatedDiscoveryStaleWhenBackendDown(t *testing.T) {
	e := newEnv(t)
	e.createService(t, true) // endpoints, but nothing listens at 10.244.0.5
	e.createAPIService(t, sampleapiserver.Group, sampleapiserver.Version, 1000, 15)
	wardle, ok := decodeGroups(t, e.aggregated(t, ""))[sampleapiserver.Group]
	require.True(t, ok)
	require.Len(t, wardle.Versions, 1)
	assert.Equal(t, discovery.DiscoveryFreshnessStale, wardle.Versions[0].Freshness)
	assert.Empty(t, wardle.Versions[0].Resources)

	// The server comes up; a change to the APIService (the availability
	// controller writes its status) makes the aggregator fetch again.
	e.startBackend(t)
	s, err := apiServices(e.client).Get(context.Background(), "", sampleapiserver.Version+"."+sampleapiserver.Group)
	require.NoError(t, err)
	s.Labels = map[string]string{"touched": "yes"}
	_, err = apiServices(e.client).Update(context.Background(), s)
	require.NoError(t, err)
	wardle = decodeGroups(t, e.aggregated(t, ""))[sampleapiserver.Group]
	require.Len(t, wardle.Versions, 1)
	assert.Equal(t, discovery.DiscoveryFreshnessCurrent, wardle.Versions[0].Freshness)
	assert.NotEmpty(t, wardle.Versions[0].Resources)
}

func (e *env) openAPIV2(t *testing.T, accept string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/openapi/v2", nil)
	req.Header.Set("Accept", accept)
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	return rec
}

// /openapi/v2 holds the extension server's paths and definitions beside
// the API server's own, until its APIService goes.
func TestOpenAPIV2MergesExtensionServer(t *testing.T) {
	e := newEnv(t)
	e.startBackend(t)
	e.createService(t, true)
	e.createAPIService(t, sampleapiserver.Group, sampleapiserver.Version, 1000, 15)

	flunder := "com.example.wardle.v1alpha1.Flunder"
	flunderPath := "/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders/{name}"
	decode := func(rec *httptest.ResponseRecorder) (paths, defs map[string]any) {
		t.Helper()
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var doc struct {
			Paths       map[string]any `json:"paths"`
			Definitions map[string]any `json:"definitions"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
		return doc.Paths, doc.Definitions
	}
	paths, defs := decode(e.openAPIV2(t, "application/json"))
	assert.Contains(t, defs, flunder)
	assert.Contains(t, paths, flunderPath)
	assert.Contains(t, defs, "io.k8s.api.apps.v1.Deployment", "the server's own kinds stay")
	assert.Contains(t, paths, "/apis/apps/v1/namespaces/{namespace}/deployments/{name}")

	proto := e.openAPIV2(t, "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	require.Equal(t, http.StatusOK, proto.Code)
	assert.Equal(t, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", proto.Header().Get("Content-Type"))
	assert.Contains(t, proto.Body.String(), flunder)

	require.NoError(t, apiServices(e.client).Delete(context.Background(), "", sampleapiserver.Version+"."+sampleapiserver.Group, nil))
	paths, defs = decode(e.openAPIV2(t, "application/json"))
	assert.NotContains(t, defs, flunder)
	assert.NotContains(t, paths, flunderPath)
}
