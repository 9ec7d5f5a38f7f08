package discovery

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
)

func testResources() []*registry.Resource {
	return []*registry.Resource{
		{Version: "v1", Name: "pods", Kind: "Pod", Namespaced: true, ShortNames: []string{"po"}, Categories: []string{"all"},
			StatusSubresource: true,
			CreateSubresources: map[string]registry.CreateSubresource{
				"binding": {Resource: &registry.Resource{Version: "v1", Name: "bindings", Kind: "Binding"}},
			}},
		{Version: "v1", Name: "nodes", SingularName: "node", Kind: "Node", ShortNames: []string{"no"}},
		{Version: "v1", Name: "namespaces", SingularName: "namespace", Kind: "Namespace", ShortNames: []string{"ns"}, StatusSubresource: true},
		{Group: "apps", Version: "v1", Name: "replicasets", SingularName: "replicaset", Kind: "ReplicaSet", Namespaced: true,
			ShortNames: []string{"rs"}, Categories: []string{"all"}, StatusSubresource: true,
			Scale: &registry.ScaleSubresource{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"}},
		{Group: "apps", Version: "v1", Name: "deployments", SingularName: "deployment", Kind: "Deployment", Namespaced: true},
		{Group: "coordination.k8s.io", Version: "v1", Name: "leases", SingularName: "lease", Kind: "Lease", Namespaced: true},
		{Group: "apiextensions.k8s.io", Version: "v1", Name: "customresourcedefinitions", SingularName: "customresourcedefinition", Kind: "CustomResourceDefinition", ShortNames: []string{"crd", "crds"}},
		{Group: "autoscaling", Version: "v1", Name: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler", Namespaced: true},
		{Group: "lab.example.com", Version: "v1alpha1", Name: "widgets", Kind: "Widget", Namespaced: true},
		{Group: "lab.example.com", Version: "v1", Name: "widgets", Kind: "Widget", Namespaced: true},
		{Group: "lab.example.com", Version: "v2beta1", Name: "widgets", Kind: "Widget", Namespaced: true},
		{Group: "abc.example.com", Version: "v1", Name: "gadgets", Kind: "Gadget"},
	}
}

func TestCompareKubeAwareVersionStrings(t *testing.T) {
	// Each version comes strictly before every later one.
	ordered := []string{"v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1", "v11alpha2", "foo1", "foo10", "v0", "v1beta0", "v1gamma1"}
	for i := range ordered {
		for j := range ordered {
			got := CompareKubeAwareVersionStrings(ordered[i], ordered[j])
			switch {
			case i < j:
				assert.Positive(t, got, "%s before %s", ordered[i], ordered[j])
			case i > j:
				assert.Negative(t, got, "%s after %s", ordered[i], ordered[j])
			default:
				assert.Zero(t, got)
			}
		}
	}
}

func TestSortVersions(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"v1alpha1", "v1beta1", "v1", "v1beta2"}, []string{"v1", "v1beta2", "v1beta1", "v1alpha1"}},
		{[]string{"v2beta1", "v1"}, []string{"v1", "v2beta1"}},
		{[]string{"zeta", "v1alpha1", "alpha"}, []string{"v1alpha1", "alpha", "zeta"}},
		{[]string{"v2", "v10", "v1"}, []string{"v10", "v2", "v1"}},
	}
	for _, tc := range tests {
		SortVersions(tc.in)
		assert.Equal(t, tc.want, tc.in)
	}
}

func TestParseKubeVersion(t *testing.T) {
	tests := []struct {
		in           string
		major, minor int
		typ          versionType
		ok           bool
	}{
		{"v1", 1, 0, versionGA, true},
		{"v12", 12, 0, versionGA, true},
		{"v1beta2", 1, 2, versionBeta, true},
		{"v3alpha10", 3, 10, versionAlpha, true},
		{"v0", 0, 0, 0, false},
		{"v01", 0, 0, 0, false},
		{"v1beta", 0, 0, 0, false},
		{"v1beta01", 0, 0, 0, false},
		{"v1beta1x", 0, 0, 0, false},
		{"v1rc1", 0, 0, 0, false},
		{"1", 0, 0, 0, false},
		{"v", 0, 0, 0, false},
		{"", 0, 0, 0, false},
		{"v99999999999999999999999", 0, 0, 0, false},
	}
	for _, tc := range tests {
		major, typ, minor, ok := parseKubeVersion(tc.in)
		assert.Equal(t, tc.ok, ok, tc.in)
		if tc.ok {
			assert.Equal(t, []int{tc.major, int(tc.typ), tc.minor}, []int{major, int(typ), minor}, tc.in)
		}
	}
}

func TestAPIVersions(t *testing.T) {
	data, err := json.Marshal(APIVersions("10.0.0.1:6443"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"10.0.0.1:6443"}]}`, string(data))
}

func groupNames(l *metav1.APIGroupList) []string {
	var out []string
	for _, g := range l.Groups {
		out = append(out, g.Name)
	}
	return out
}

func TestGroupList(t *testing.T) {
	l := GroupList(testResources())
	assert.Equal(t, "APIGroupList", l.Kind)
	assert.Equal(t, "v1", l.APIVersion)
	// Built-in groups by kube-aggregator priority, then the rest (custom
	// resources) by name; the core group is not a named group.
	assert.Equal(t, []string{"apps", "autoscaling", "apiextensions.k8s.io", "coordination.k8s.io", "abc.example.com", "lab.example.com"}, groupNames(l))

	lab := l.Groups[5]
	assert.Equal(t, []metav1.GroupVersionForDiscovery{
		{GroupVersion: "lab.example.com/v1", Version: "v1"},
		{GroupVersion: "lab.example.com/v2beta1", Version: "v2beta1"},
		{GroupVersion: "lab.example.com/v1alpha1", Version: "v1alpha1"},
	}, lab.Versions)
	assert.Equal(t, metav1.GroupVersionForDiscovery{GroupVersion: "lab.example.com/v1", Version: "v1"}, lab.PreferredVersion)
	assert.Empty(t, lab.Kind, "list entries carry no kind, as in Kubernetes")

	data, err := json.Marshal(GroupList(testResources()[:1]))
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`, string(data), "no named groups is an empty list, not null")
}

func TestGroupListExtra(t *testing.T) {
	extra := []metav1.APIGroup{
		{Name: "metrics.k8s.io", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "metrics.k8s.io/v1beta1", Version: "v1beta1"}}},
		{Name: "apiregistration.k8s.io", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "apiregistration.k8s.io/v1", Version: "v1"}}},
		{Name: "apps", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "apps/v1beta2", Version: "v1beta2"}, {GroupVersion: "apps/v1", Version: "v1"}}},
		{Name: ""},
	}
	l := GroupList(testResources(), extra...)
	assert.Equal(t, []string{"apiregistration.k8s.io", "apps", "autoscaling", "apiextensions.k8s.io", "coordination.k8s.io", "abc.example.com", "lab.example.com", "metrics.k8s.io"}, groupNames(l))
	assert.Equal(t, []metav1.GroupVersionForDiscovery{
		{GroupVersion: "apps/v1", Version: "v1"},
		{GroupVersion: "apps/v1beta2", Version: "v1beta2"},
	}, l.Groups[1].Versions, "an extra group served locally too has its versions merged")
}

func TestGroup(t *testing.T) {
	g, ok := Group("lab.example.com", testResources())
	require.True(t, ok)
	data, err := json.Marshal(g)
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"APIGroup","apiVersion":"v1","name":"lab.example.com",
		"versions":[{"groupVersion":"lab.example.com/v1","version":"v1"},{"groupVersion":"lab.example.com/v2beta1","version":"v2beta1"},{"groupVersion":"lab.example.com/v1alpha1","version":"v1alpha1"}],
		"preferredVersion":{"groupVersion":"lab.example.com/v1","version":"v1"}}`, string(data))

	for _, name := range []string{"", "nope.example.com", "v1"} {
		_, ok := Group(name, testResources())
		assert.False(t, ok, name)
	}
}

func TestResourceList(t *testing.T) {
	all := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	tests := []struct {
		gv         string
		apiVersion string
		want       []metav1.APIResource
	}{
		{"v1", "", []metav1.APIResource{
			{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", Verbs: all, ShortNames: []string{"ns"}},
			{Name: "namespaces/status", Kind: "Namespace", Verbs: []string{"get", "patch", "update"}},
			{Name: "nodes", SingularName: "node", Kind: "Node", Verbs: all, ShortNames: []string{"no"}},
			{Name: "pods", SingularName: "pod", Namespaced: true, Kind: "Pod", Verbs: all, ShortNames: []string{"po"}, Categories: []string{"all"}},
			{Name: "pods/binding", Namespaced: true, Kind: "Binding", Verbs: []string{"create"}},
			{Name: "pods/status", Namespaced: true, Kind: "Pod", Verbs: []string{"get", "patch", "update"}},
		}},
		{"apps/v1", "v1", []metav1.APIResource{
			{Name: "deployments", SingularName: "deployment", Namespaced: true, Kind: "Deployment", Verbs: all},
			{Name: "replicasets", SingularName: "replicaset", Namespaced: true, Kind: "ReplicaSet", Verbs: all, ShortNames: []string{"rs"}, Categories: []string{"all"}},
			{Name: "replicasets/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get", "patch", "update"}},
			{Name: "replicasets/status", Namespaced: true, Kind: "ReplicaSet", Verbs: []string{"get", "patch", "update"}},
		}},
		{"lab.example.com/v2beta1", "v1", []metav1.APIResource{
			{Name: "widgets", SingularName: "widget", Namespaced: true, Kind: "Widget", Verbs: all},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.gv, func(t *testing.T) {
			l := ResourceList(tc.gv, testResources())
			require.NotNil(t, l)
			assert.Equal(t, "APIResourceList", l.Kind)
			assert.Equal(t, tc.apiVersion, l.APIVersion)
			assert.Equal(t, tc.gv, l.GroupVersion)
			assert.Equal(t, tc.want, l.APIResources)
		})
	}
	for _, gv := range []string{"v2", "apps/v2", "nope/v1", "", "a/b/c", "apps"} {
		assert.Nil(t, ResourceList(gv, testResources()), gv)
	}
}

func TestResourceListWireFormat(t *testing.T) {
	rs := []*registry.Resource{
		{Version: "v1", Name: "pods", Kind: "Pod", Namespaced: true, StatusSubresource: true},
		{Version: "v1", Name: "pods", Kind: "Duplicate"},
		nil,
		{Version: "v1", Name: "", Kind: "NoName"},
	}
	data, err := json.Marshal(ResourceList("v1", rs))
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"APIResourceList","groupVersion":"v1","resources":[
		{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
		{"name":"pods/status","singularName":"","namespaced":true,"kind":"Pod","verbs":["get","patch","update"]}]}`, string(data))
}

func TestResourceListDoesNotAliasInput(t *testing.T) {
	rs := testResources()
	l := ResourceList("v1", rs)
	for _, e := range l.APIResources {
		if e.Name == "pods" {
			e.ShortNames[0] = "changed"
		}
	}
	assert.Equal(t, "po", rs[0].ShortNames[0])
}

const notFoundBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`

func TestHandler(t *testing.T) {
	calls := 0
	h := NewHandler(func() []*registry.Resource { calls++; return testResources() })
	tests := []struct {
		method, path string
		code         int
		body         string // exact JSON when set
		kind         string
	}{
		{"GET", "/api", 200, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"example.com:6443"}]}`, ""},
		{"GET", "/api/", 200, "", "APIVersions"},
		{"GET", "/api/v1", 200, "", "APIResourceList"},
		{"GET", "/apis", 200, "", "APIGroupList"},
		{"GET", "/apis/apps", 200, "", "APIGroup"},
		{"GET", "/apis/apps/v1", 200, "", "APIResourceList"},
		{"GET", "/apis/lab.example.com/v1alpha1/", 200, "", "APIResourceList"},
		{"HEAD", "/apis", 200, "", ""},
		{"GET", "/api/v2", 404, notFoundBody, ""},
		{"GET", "/apis/nope", 404, notFoundBody, ""},
		{"GET", "/apis/apps/v7", 404, notFoundBody, ""},
		{"GET", "/apis/apps/v1/replicasets", 404, notFoundBody, ""},
		{"GET", "/apis//v1", 404, notFoundBody, ""},
		{"GET", "/healthz", 404, notFoundBody, ""},
		{"GET", "/", 404, notFoundBody, ""},
		{"POST", "/apis", 405, "", "Status"},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "https://example.com:6443"+tc.path, nil)
			// Plain discovery: the aggregated form is tested in aggregated_test.go.
			req.Header.Set("Accept", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			res := rec.Result()
			body, _ := io.ReadAll(res.Body)
			assert.Equal(t, tc.code, res.StatusCode, string(body))
			assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
			if tc.body != "" {
				assert.JSONEq(t, tc.body, string(body))
			}
			if tc.kind != "" {
				var tm metav1.TypeMeta
				require.NoError(t, json.Unmarshal(body, &tm))
				assert.Equal(t, tc.kind, tm.Kind)
			}
		})
	}
	assert.Positive(t, calls, "the source is asked per request")
}

func TestHandlerSeesNewResourcesAtOnce(t *testing.T) {
	rs := testResources()[:1]
	h := NewHandler(func() []*registry.Resource { return rs })
	get := func(path string) int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code
	}
	assert.Equal(t, http.StatusNotFound, get("/apis/lab.example.com/v1"))
	rs = append(rs, &registry.Resource{Group: "lab.example.com", Version: "v1", Name: "widgets", Kind: "Widget"})
	assert.Equal(t, http.StatusOK, get("/apis/lab.example.com/v1"))
	assert.Equal(t, http.StatusOK, get("/apis/lab.example.com"))
}

func FuzzHandlerPath(f *testing.F) {
	for _, s := range []string{"/api", "/apis/apps/v1", "/apis/lab.example.com", "//", "/apis/%2F/v1", "/api/v1/"} {
		f.Add(s)
	}
	h := NewHandler(testResources)
	f.Fuzz(func(t *testing.T, path string) {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.URL.Path = path
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK && rec.Code != http.StatusNotFound {
			t.Fatalf("code %d for %q", rec.Code, path)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("invalid JSON for %q: %s", path, rec.Body.String())
		}
	})
}

func FuzzCompareKubeAwareVersionStrings(f *testing.F) {
	for _, s := range [][2]string{{"v1", "v1beta1"}, {"v2alpha3", "foo"}, {"v10", "v9"}, {"", "v0"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ab, ba := CompareKubeAwareVersionStrings(a, b), CompareKubeAwareVersionStrings(b, a)
		if (ab > 0) != (ba < 0) || (ab == 0) != (ba == 0) {
			t.Fatalf("not antisymmetric: %q vs %q: %d, %d", a, b, ab, ba)
		}
		if ab == 0 && a != b {
			t.Fatalf("distinct versions %q and %q compare equal", a, b)
		}
	})
}
