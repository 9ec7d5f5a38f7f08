package discovery

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// kubectlAccept is what kubectl v1.32 sends to /api and /apis.
const kubectlAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"

func getAggregated(t *testing.T, h http.Handler, path, accept, ifNoneMatch string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Accept", accept)
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func decodeAggregated(t *testing.T, rec *httptest.ResponseRecorder) APIGroupDiscoveryList {
	t.Helper()
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var l APIGroupDiscoveryList
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &l))
	return l
}

func findGroup(l APIGroupDiscoveryList, name string) *APIGroupDiscovery {
	for i := range l.Items {
		if l.Items[i].Metadata.Name == name {
			return &l.Items[i]
		}
	}
	return nil
}

func findResource(v APIVersionDiscovery, name string) *APIResourceDiscovery {
	for i := range v.Resources {
		if v.Resources[i].Resource == name {
			return &v.Resources[i]
		}
	}
	return nil
}

func TestNegotiateAggregated(t *testing.T) {
	tests := []struct{ accept, want string }{
		{kubectlAccept, "v2"},
		{"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json", "v2beta1"},
		// client-go v0.37 with NoPeerDiscovery.
		{"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer,application/json", "v2"},
		{"application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io", "v2"},
		{"application/json", ""},
		{"", ""},
		{"application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", ""},
		{"application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList", ""},
		{"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0,application/json", ""},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, NegotiateAggregated(tc.accept), tc.accept)
	}
}

func TestAggregatedAPIs(t *testing.T) {
	h := NewHandler(testResources)
	rec := getAggregated(t, h, "/apis", kubectlAccept, "")
	assert.Equal(t, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", rec.Header().Get("Content-Type"))
	assert.Equal(t, "Accept", rec.Header().Get("Vary"))
	l := decodeAggregated(t, rec)
	assert.Equal(t, "APIGroupDiscoveryList", l.Kind)
	assert.Equal(t, "apidiscovery.k8s.io/v2", l.APIVersion)

	// Groups in the order of /apis.
	var names []string
	for _, g := range l.Items {
		names = append(names, g.Metadata.Name)
	}
	assert.Equal(t, groupNames(GroupList(testResources())), names)
	assert.NotContains(t, names, "")

	apps := findGroup(l, "apps")
	require.NotNil(t, apps)
	require.Len(t, apps.Versions, 1)
	assert.Equal(t, DiscoveryFreshnessCurrent, apps.Versions[0].Freshness)
	var resNames []string
	for _, r := range apps.Versions[0].Resources {
		resNames = append(resNames, r.Resource)
	}
	assert.Equal(t, []string{"deployments", "replicasets"}, resNames, "sorted by name")
	rs := findResource(apps.Versions[0], "replicasets")
	require.NotNil(t, rs)
	assert.Equal(t, APIResourceDiscovery{
		Resource:         "replicasets",
		ResponseKind:     &GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"},
		Scope:            ScopeNamespace,
		SingularResource: "replicaset",
		Verbs:            []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
		ShortNames:       []string{"rs"},
		Categories:       []string{"all"},
		Subresources: []APISubresourceDiscovery{
			{Subresource: "scale", ResponseKind: &GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, Verbs: []string{"get", "patch", "update"}},
			{Subresource: "status", ResponseKind: &GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}, Verbs: []string{"get", "patch", "update"}},
		},
	}, *rs)

	crds := findGroup(l, "apiextensions.k8s.io")
	require.NotNil(t, crds)
	crd := findResource(crds.Versions[0], "customresourcedefinitions")
	require.NotNil(t, crd)
	assert.Equal(t, ScopeCluster, crd.Scope)
	assert.Equal(t, []string{"crd", "crds"}, crd.ShortNames)

	// Versions by preference: the first is the preferred one.
	lab := findGroup(l, "lab.example.com")
	require.NotNil(t, lab)
	var versions []string
	for _, v := range lab.Versions {
		versions = append(versions, v.Version)
	}
	assert.Equal(t, []string{"v1", "v2beta1", "v1alpha1"}, versions)
	// A resource without a singular name gets the lower-case kind.
	assert.Equal(t, "widget", findResource(lab.Versions[0], "widgets").SingularResource)
}

func TestAggregatedAPIWireFormat(t *testing.T) {
	rec := getAggregated(t, NewHandler(testResources), "/api", kubectlAccept, "")
	require.Equal(t, http.StatusOK, rec.Code)
	var raw map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &raw))
	items := raw["items"].([]any)
	require.Len(t, items, 1, "only the core group")
	core := items[0].(map[string]any)
	assert.Equal(t, map[string]any{"creationTimestamp": nil}, core["metadata"], "the core group has no name")
	v1 := core["versions"].([]any)[0].(map[string]any)
	assert.Equal(t, "v1", v1["version"])
	assert.Equal(t, "Current", v1["freshness"])
	var pods map[string]any
	for _, r := range v1["resources"].([]any) {
		if r.(map[string]any)["resource"] == "pods" {
			pods = r.(map[string]any)
		}
	}
	require.NotNil(t, pods)
	assert.Equal(t, map[string]any{"group": "", "version": "v1", "kind": "Pod"}, pods["responseKind"])
	assert.Equal(t, "Namespaced", pods["scope"])
	assert.Equal(t, []any{
		map[string]any{"subresource": "binding", "responseKind": map[string]any{"group": "", "version": "v1", "kind": "Binding"}, "verbs": []any{"create"}},
		map[string]any{"subresource": "status", "responseKind": map[string]any{"group": "", "version": "v1", "kind": "Pod"}, "verbs": []any{"get", "patch", "update"}},
	}, pods["subresources"])
}

func TestAggregatedV2Beta1AndPlain(t *testing.T) {
	h := NewHandler(testResources)
	rec := getAggregated(t, h, "/apis", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json", "")
	assert.Equal(t, "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", rec.Header().Get("Content-Type"))
	assert.Equal(t, "apidiscovery.k8s.io/v2beta1", decodeAggregated(t, rec).APIVersion)

	// Plain discovery is unchanged.
	for _, accept := range []string{"application/json", ""} {
		rec = getAggregated(t, h, "/apis", accept, "")
		require.Equal(t, http.StatusOK, rec.Code)
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
		assert.Contains(t, rec.Body.String(), `"kind":"APIGroupList"`)
		assert.Empty(t, rec.Header().Get("ETag"))
	}
	// Below /apis the aggregated Accept changes nothing.
	rec = getAggregated(t, h, "/apis/apps/v1", kubectlAccept, "")
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.Contains(t, rec.Body.String(), `"kind":"APIResourceList"`)
}

// A CRD that comes and goes changes the document and its ETag; the ETag of
// an unchanged document answers 304.
func TestAggregatedETag(t *testing.T) {
	var mu sync.Mutex
	resources := testResources()
	source := func() []*registry.Resource {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(resources)
	}
	h := NewHandler(source)

	first := getAggregated(t, h, "/apis", kubectlAccept, "")
	require.Equal(t, http.StatusOK, first.Code)
	etag := first.Header().Get("ETag")
	require.Regexp(t, `^"[0-9A-F]{128}"$`, etag)
	assert.Equal(t, `"`+ETag(first.Body.Bytes())+`"`, etag)

	again := getAggregated(t, h, "/apis", kubectlAccept, etag)
	assert.Equal(t, http.StatusNotModified, again.Code)
	assert.Empty(t, again.Body.String())
	assert.Equal(t, etag, again.Header().Get("ETag"))

	// A CRD is added: new group, new tag, the old tag no longer matches.
	gizmos := &registry.Resource{Group: "toys.example.com", Version: "v1", Name: "gizmos", Kind: "Gizmo", Namespaced: true}
	mu.Lock()
	resources = append(resources, gizmos)
	mu.Unlock()
	added := getAggregated(t, h, "/apis", kubectlAccept, etag)
	require.Equal(t, http.StatusOK, added.Code)
	addedTag := added.Header().Get("ETag")
	assert.NotEqual(t, etag, addedTag)
	assert.NotNil(t, findGroup(decodeAggregated(t, added), "toys.example.com"))

	// And removed: the document and tag are the first ones again.
	mu.Lock()
	resources = slices.DeleteFunc(resources, func(r *registry.Resource) bool { return r == gizmos })
	mu.Unlock()
	removed := getAggregated(t, h, "/apis", kubectlAccept, addedTag)
	require.Equal(t, http.StatusOK, removed.Code)
	assert.Nil(t, findGroup(decodeAggregated(t, removed), "toys.example.com"))
	assert.Equal(t, etag, removed.Header().Get("ETag"))
	assert.Equal(t, http.StatusNotModified, getAggregated(t, h, "/apis", kubectlAccept, etag).Code)
}

// The plain list of an older extension server, converted: subresources
// nest under their parent, kinds come from the list's group-version unless
// the entry names its own.
func TestFromResourceList(t *testing.T) {
	list := ResourceList("apps/v1", testResources())
	require.NotNil(t, list)
	got := FromResourceList(list)
	want := AggregatedResources("apps", "v1", testResources())
	assert.Equal(t, want, got)
}
