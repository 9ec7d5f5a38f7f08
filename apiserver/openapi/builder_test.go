package openapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/registry"
)

func int64p(v int64) *int64 { return &v }

func float64p(v float64) *float64 { return &v }

func testResources() []*registry.Resource {
	podSchema := &api.JSONSchemaProps{
		Type:        "object",
		Description: "Pod is a collection of containers.",
		Properties: map[string]api.JSONSchemaProps{
			"apiVersion": {Type: "string", Description: "pod apiVersion"},
			"kind":       {Type: "string"},
			"metadata":   {Type: "object", Description: "pod metadata"},
			"spec": {Type: "object", Properties: map[string]api.JSONSchemaProps{
				"containers": {Type: "array", XPatchMergeKey: "name", XPatchStrategy: "merge",
					Items: &api.JSONSchemaPropsOrArray{Schema: &api.JSONSchemaProps{Type: "object", MaxLength: int64p(63)}}},
			}},
		},
	}
	return []*registry.Resource{
		{Version: "v1", Name: "pods", Kind: "Pod", ListKind: "PodList", Namespaced: true, StatusSubresource: true,
			StrategicMergePatch: true, Schema: podSchema,
			CreateSubresources: map[string]registry.CreateSubresource{
				"binding": {Resource: &registry.Resource{Version: "v1", Name: "bindings", Kind: "Binding",
					Schema: &api.JSONSchemaProps{Type: "object", Properties: map[string]api.JSONSchemaProps{"target": {Type: "object"}}}}},
			}},
		{Version: "v1", Name: "nodes", Kind: "Node", StrategicMergePatch: true,
			Schema: &api.JSONSchemaProps{Type: "object"}},
		{Group: "apps", Version: "v1", Name: "replicasets", Kind: "ReplicaSet", Namespaced: true,
			StrategicMergePatch: true, StatusSubresource: true,
			Scale:  &registry.ScaleSubresource{SpecReplicasPath: ".spec.replicas"},
			Schema: &api.JSONSchemaProps{Type: "object"}},
		{Group: "lab.example.com", Version: "v1", Name: "widgets", Kind: "Widget", Namespaced: true,
			Schema: &api.JSONSchemaProps{Type: "object", Properties: map[string]api.JSONSchemaProps{
				"spec": {Type: "object", Description: "the spec", Properties: map[string]api.JSONSchemaProps{
					"size": {Type: "integer", Default: &api.JSON{Raw: []byte("12345678901234567")}},
				}},
			}}},
		{Group: "lab.example.com", Version: "v1beta1", Name: "widgets", Kind: "Widget", Namespaced: true},
	}
}

func TestDefinitionName(t *testing.T) {
	tests := []struct {
		gvk  schema.GroupVersionKind
		want string
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "io.k8s.api.core.v1.Pod"},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "io.k8s.api.apps.v1.Deployment"},
		{schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, "io.k8s.api.autoscaling.v1.Scale"},
		{schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}, "io.k8s.api.coordination.v1.Lease"},
		{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"}, "io.k8s.api.rbac.v1.Role"},
		{schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"},
		{schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"}, "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService"},
		{schema.GroupVersionKind{Group: "lab.example.com", Version: "v1", Kind: "Widget"}, "com.example.lab.v1.Widget"},
		{schema.GroupVersionKind{Group: "stable.example.com", Version: "v1beta1", Kind: "CronTab"}, "com.example.stable.v1beta1.CronTab"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, DefinitionName(tc.gvk))
	}
}

func TestGroupVersionsAndIndexKey(t *testing.T) {
	var keys []string
	for _, gv := range GroupVersions(testResources()) {
		keys = append(keys, IndexKey(gv))
		back, ok := parseIndexKey(IndexKey(gv))
		require.True(t, ok)
		assert.Equal(t, gv, back)
	}
	assert.Equal(t, []string{"api/v1", "apis/apps/v1", "apis/lab.example.com/v1", "apis/lab.example.com/v1beta1"}, keys)
	for _, bad := range []string{"", "api", "apis/apps", "apis//v1", "api/v1/x", "apis/a/b/c", "v1"} {
		_, ok := parseIndexKey(bad)
		assert.False(t, ok, bad)
	}
}

func TestOperationIDs(t *testing.T) {
	tests := []struct {
		ids       operationIDs
		verb, sub string
		want      string
	}{
		{operationIDs{gv: schema.GroupVersion{Version: "v1"}, kind: "Pod", namespaced: true}, "patch", "", "patchCoreV1NamespacedPod"},
		{operationIDs{gv: schema.GroupVersion{Version: "v1"}, kind: "Node"}, "read", "Status", "readCoreV1NodeStatus"},
		{operationIDs{gv: schema.GroupVersion{Group: "apps", Version: "v1"}, kind: "ReplicaSet", namespaced: true}, "replace", "Scale", "replaceAppsV1NamespacedReplicaSetScale"},
		{operationIDs{gv: schema.GroupVersion{Group: "coordination.k8s.io", Version: "v1"}, kind: "Lease", namespaced: true}, "deleteCollection", "", "deleteCollectionCoordinationV1NamespacedLease"},
		{operationIDs{gv: schema.GroupVersion{Group: "lab.example.com", Version: "v1beta1"}, kind: "Widget"}, "create", "", "createLabExampleComV1beta1Widget"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.ids.id(tc.verb, tc.sub))
	}
}

// decodeDoc builds and decodes one group-version document.
func decodeDoc(t *testing.T, gv string, rs []*registry.Resource) map[string]any {
	t.Helper()
	data, err := Document(gv, rs)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	return doc
}

// dig walks a decoded JSON value by keys.
func dig(t *testing.T, v any, keys ...string) any {
	t.Helper()
	for _, k := range keys {
		m, ok := v.(map[string]any)
		require.True(t, ok, "at %q: not an object: %v", k, v)
		v, ok = m[k]
		require.True(t, ok, "missing %q among %v", k, keysOf(m))
	}
	return v
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func paramNames(t *testing.T, op any) []string {
	var names []string
	for _, p := range dig(t, op, "parameters").([]any) {
		pm := p.(map[string]any)
		names = append(names, pm["in"].(string)+":"+pm["name"].(string))
	}
	return names
}

func TestDocumentCore(t *testing.T) {
	doc := decodeDoc(t, "v1", testResources())
	assert.Equal(t, "3.0.0", doc["openapi"])

	schemas := dig(t, doc, "components", "schemas").(map[string]any)
	for _, name := range []string{"io.k8s.api.core.v1.Pod", "io.k8s.api.core.v1.PodList", "io.k8s.api.core.v1.Node",
		"io.k8s.api.core.v1.NodeList", "io.k8s.api.core.v1.Binding", statusDefinition, patchDefinition, deleteOptionsDefinition} {
		assert.Contains(t, schemas, name)
	}
	assert.NotContains(t, schemas, "com.example.lab.v1.Widget", "one group-version per document")
	assert.NotContains(t, schemas, scaleDefinition, "no scale subresource in core here")

	pod := schemas["io.k8s.api.core.v1.Pod"]
	assert.Equal(t, []any{map[string]any{"group": "", "version": "v1", "kind": "Pod"}}, dig(t, pod, "x-kubernetes-group-version-kind"))
	assert.Equal(t, "Pod is a collection of containers.", dig(t, pod, "description"))
	assert.Equal(t, "pod apiVersion", dig(t, pod, "properties", "apiVersion", "description"), "a schema's own type fields are kept")
	assert.Equal(t, "name", dig(t, pod, "properties", "spec", "properties", "containers", "x-kubernetes-patch-merge-key"))
	assert.Equal(t, float64(63), dig(t, pod, "properties", "spec", "properties", "containers", "items", "maxLength"))
	assert.Equal(t, "#/components/schemas/io.k8s.api.core.v1.Pod", dig(t, schemas["io.k8s.api.core.v1.PodList"], "properties", "items", "items", "$ref"))
	assert.Equal(t, []any{map[string]any{"group": "", "version": "v1", "kind": "PodList"}}, dig(t, schemas["io.k8s.api.core.v1.PodList"], "x-kubernetes-group-version-kind"))

	paths := dig(t, doc, "paths").(map[string]any)
	assert.ElementsMatch(t, []string{
		"/api/v1/namespaces/{namespace}/pods",
		"/api/v1/namespaces/{namespace}/pods/{name}",
		"/api/v1/namespaces/{namespace}/pods/{name}/status",
		"/api/v1/namespaces/{namespace}/pods/{name}/binding",
		"/api/v1/pods",
		"/api/v1/nodes",
		"/api/v1/nodes/{name}",
	}, keysOf(paths))

	item := paths["/api/v1/namespaces/{namespace}/pods/{name}"]
	for _, method := range []string{"get", "put", "patch", "delete"} {
		assert.Equal(t, map[string]any{"group": "", "version": "v1", "kind": "Pod"}, dig(t, item, method, "x-kubernetes-group-version-kind"), method)
	}
	assert.Equal(t, []string{"path:name", "path:namespace", "query:pretty"}, paramNames(t, item))
	patch := dig(t, item, "patch")
	assert.Equal(t, "patch", dig(t, patch, "x-kubernetes-action"))
	assert.Equal(t, "patchCoreV1NamespacedPod", dig(t, patch, "operationId"))
	assert.Contains(t, paramNames(t, patch), "query:fieldValidation")
	assert.ElementsMatch(t, []string{applyPatchType, jsonPatchType, mergePatchType, strategicPatchType},
		keysOf(dig(t, patch, "requestBody", "content").(map[string]any)))
	assert.Equal(t, "#/components/schemas/io.k8s.api.core.v1.Pod", dig(t, patch, "responses", "200", "content", "application/json", "schema", "$ref"))

	collection := paths["/api/v1/namespaces/{namespace}/pods"]
	assert.Equal(t, "list", dig(t, collection, "get", "x-kubernetes-action"))
	assert.Equal(t, "post", dig(t, collection, "post", "x-kubernetes-action"))
	assert.Equal(t, "deletecollection", dig(t, collection, "delete", "x-kubernetes-action"))
	assert.Equal(t, "#/components/schemas/io.k8s.api.core.v1.PodList", dig(t, collection, "get", "responses", "200", "content", "application/json", "schema", "$ref"))
	assert.Equal(t, "#/components/schemas/io.k8s.api.core.v1.Pod", dig(t, collection, "post", "requestBody", "content", "*/*", "schema", "$ref"))
	assert.Contains(t, paramNames(t, dig(t, collection, "get")), "query:labelSelector")
	assert.Equal(t, "listCoreV1PodForAllNamespaces", dig(t, paths["/api/v1/pods"], "get", "operationId"))

	status := paths["/api/v1/namespaces/{namespace}/pods/{name}/status"]
	assert.Equal(t, "partially update status of the specified Pod", dig(t, status, "patch", "description"))
	assert.Contains(t, paramNames(t, dig(t, status, "patch")), "query:fieldValidation", "every PATCH of the kind: kubectl may look at any")

	binding := dig(t, paths["/api/v1/namespaces/{namespace}/pods/{name}/binding"], "post")
	assert.Equal(t, map[string]any{"group": "", "version": "v1", "kind": "Binding"}, dig(t, binding, "x-kubernetes-group-version-kind"))
	assert.Equal(t, "createCoreV1NamespacedPodBinding", dig(t, binding, "operationId"))
	assert.Equal(t, "object", dig(t, schemas["io.k8s.api.core.v1.Binding"], "properties", "target", "type"))

	node := paths["/api/v1/nodes/{name}"]
	assert.Equal(t, []string{"path:name", "query:pretty"}, paramNames(t, node))
	assert.Equal(t, "patchCoreV1Node", dig(t, node, "patch", "operationId"))
}

func TestDocumentScale(t *testing.T) {
	doc := decodeDoc(t, "apps/v1", testResources())
	scale := dig(t, doc, "paths", "/apis/apps/v1/namespaces/{namespace}/replicasets/{name}/scale")
	want := map[string]any{"group": "autoscaling", "version": "v1", "kind": "Scale"}
	for _, method := range []string{"get", "put", "patch"} {
		assert.Equal(t, want, dig(t, scale, method, "x-kubernetes-group-version-kind"))
	}
	assert.Equal(t, "#/components/schemas/io.k8s.api.autoscaling.v1.Scale", dig(t, scale, "get", "responses", "200", "content", "application/json", "schema", "$ref"))
	assert.Equal(t, []any{want}, dig(t, doc, "components", "schemas", scaleDefinition, "x-kubernetes-group-version-kind"))
	assert.Contains(t, dig(t, doc, "paths").(map[string]any), "/apis/apps/v1/namespaces/{namespace}/replicasets/{name}/status")
}

func TestDocumentCustomResource(t *testing.T) {
	doc := decodeDoc(t, "lab.example.com/v1", testResources())
	widget := dig(t, doc, "components", "schemas", "com.example.lab.v1.Widget")
	assert.Equal(t, []any{map[string]any{"group": "lab.example.com", "version": "v1", "kind": "Widget"}}, dig(t, widget, "x-kubernetes-group-version-kind"))
	assert.Equal(t, "the spec", dig(t, widget, "properties", "spec", "description"), "descriptions pass through")
	assert.Equal(t, apiVersionDescription, dig(t, widget, "properties", "apiVersion", "description"), "the CRD builder adds the type fields")
	assert.Equal(t, kindDescription, dig(t, widget, "properties", "kind", "description"))
	assert.Equal(t, metadataDescription, dig(t, widget, "properties", "metadata", "description"))
	assert.Contains(t, dig(t, doc, "components", "schemas").(map[string]any), "com.example.lab.v1.WidgetList", "ListKind defaults to Kind+List")

	patch := dig(t, doc, "paths", "/apis/lab.example.com/v1/namespaces/{namespace}/widgets/{name}", "patch")
	assert.ElementsMatch(t, []string{applyPatchType, jsonPatchType, mergePatchType},
		keysOf(dig(t, patch, "requestBody", "content").(map[string]any)), "no strategic merge patch for custom resources")
	assert.Equal(t, "patchLabExampleComV1NamespacedWidget", dig(t, patch, "operationId"))

	// Integers beyond float64 precision survive byte for byte.
	data, err := Document("lab.example.com/v1", testResources())
	require.NoError(t, err)
	assert.Contains(t, string(data), `"default":12345678901234567`)
}

func TestDocumentWithoutSchema(t *testing.T) {
	doc := decodeDoc(t, "lab.example.com/v1beta1", testResources())
	widget := dig(t, doc, "components", "schemas", "com.example.lab.v1beta1.Widget")
	assert.Equal(t, true, dig(t, widget, "x-kubernetes-preserve-unknown-fields"))
	assert.Equal(t, "object", dig(t, widget, "type"))
}

func TestDocumentDoesNotChangeInput(t *testing.T) {
	rs := testResources()
	before, err := json.Marshal(rs[3].Schema)
	require.NoError(t, err)
	_, err = Document("lab.example.com/v1", rs)
	require.NoError(t, err)
	after, err := json.Marshal(rs[3].Schema)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
}

func TestDocumentNotFound(t *testing.T) {
	for _, gv := range []string{"v2", "apps/v2", "nope/v1", "a/b/c", ""} {
		_, err := Document(gv, testResources())
		assert.True(t, errors.Is(err, ErrGroupVersionNotFound), gv)
	}
}

func TestDocumentIsDeterministic(t *testing.T) {
	rs := testResources()
	a, err := Document("v1", rs)
	require.NoError(t, err)
	// Another order of the same resources gives the same bytes.
	reversed := []*registry.Resource{rs[4], rs[3], rs[2], rs[1], rs[0]}
	b, err := Document("v1", reversed)
	require.NoError(t, err)
	assert.Equal(t, Hash(a), Hash(b))
}

func TestIndex(t *testing.T) {
	rs := testResources()
	idx, err := Index(rs)
	require.NoError(t, err)
	assert.Len(t, idx.Paths, 4)
	doc, err := Document("apps/v1", rs)
	require.NoError(t, err)
	assert.Equal(t, "/openapi/v3/apis/apps/v1?hash="+Hash(doc), idx.Paths["apis/apps/v1"].ServerRelativeURL)
	assert.Regexp(t, `^/openapi/v3/api/v1\?hash=[0-9A-F]{128}$`, idx.Paths["api/v1"].ServerRelativeURL)

	// A changed schema changes that group-version's hash only.
	rs[3] = &registry.Resource{Group: "lab.example.com", Version: "v1", Name: "widgets", Kind: "Widget", Namespaced: true,
		Schema: &api.JSONSchemaProps{Type: "object", Description: "changed"}}
	idx2, err := Index(rs)
	require.NoError(t, err)
	assert.NotEqual(t, idx.Paths["apis/lab.example.com/v1"], idx2.Paths["apis/lab.example.com/v1"])
	assert.Equal(t, idx.Paths["api/v1"], idx2.Paths["api/v1"])
}

func serve(t *testing.T, h http.Handler, method, target string, header ...string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

const notFoundBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`

func TestHandler(t *testing.T) {
	rs := testResources()
	h := NewHandler(func() []*registry.Resource { return rs })

	res, body := serve(t, h, "GET", "/openapi/v3")
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
	var idx IndexDocument
	require.NoError(t, json.Unmarshal([]byte(body), &idx))
	want, err := Index(rs)
	require.NoError(t, err)
	assert.Equal(t, want, &idx, "the handler's index is the pure one")

	url := idx.Paths["apis/lab.example.com/v1"].ServerRelativeURL
	res, body = serve(t, h, "GET", url)
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
	assert.Equal(t, "public, immutable, max-age=31536000", res.Header.Get("Cache-Control"))
	doc, err := Document("lab.example.com/v1", rs)
	require.NoError(t, err)
	assert.Equal(t, string(doc), body)
	etag := res.Header.Get("Etag")
	assert.Equal(t, `"`+Hash(doc)+`"`, etag)

	res, body = serve(t, h, "GET", "/openapi/v3/apis/lab.example.com/v1", "If-None-Match", etag)
	assert.Equal(t, http.StatusNotModified, res.StatusCode)
	assert.Empty(t, body)

	res, _ = serve(t, h, "GET", "/openapi/v3/apis/lab.example.com/v1")
	assert.Equal(t, "no-cache, private", res.Header.Get("Cache-Control"))

	res, _ = serve(t, h, "GET", "/openapi/v3/apis/lab.example.com/v1?hash=OLD")
	assert.Equal(t, http.StatusMovedPermanently, res.StatusCode, "an old hash is sent to the current one")
	assert.Equal(t, url, res.Header.Get("Location"))

	res, body = serve(t, h, "GET", "/openapi/v3/api/v1/")
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.True(t, strings.HasPrefix(body, `{"components":`), body[:40])

	for _, path := range []string{"/openapi/v3/apis/nope/v1", "/openapi/v3/api/v2", "/openapi/v3/apis/apps",
		"/openapi/v3/apis/apps/v1/x", "/openapi/v3x", "/openapi", "/version"} {
		res, body := serve(t, h, "GET", path)
		assert.Equal(t, http.StatusNotFound, res.StatusCode, path)
		assert.Equal(t, "application/json", res.Header.Get("Content-Type"), path)
		assert.JSONEq(t, notFoundBody, body, path)
	}
	res, _ = serve(t, h, "POST", "/openapi/v3")
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
}

func TestHandlerCache(t *testing.T) {
	rs := testResources()
	h := NewHandler(func() []*registry.Resource { return rs })
	_, body := serve(t, h, "GET", "/openapi/v3")
	require.Len(t, h.groupVersions, 4)
	appsV1 := schema.GroupVersion{Group: "apps", Version: "v1"}
	first, err := h.groupVersions[appsV1].document()
	require.NoError(t, err)

	// Unchanged inputs: the very same bytes are served, not rebuilt.
	_, body2 := serve(t, h, "GET", "/openapi/v3")
	assert.Equal(t, body, body2)
	again, err := h.groupVersions[appsV1].document()
	require.NoError(t, err)
	assert.Same(t, &first.body[0], &again.body[0])

	// A new Resource value with the same schema pointer still hits.
	copyRS := *rs[2]
	rs[2] = &copyRS
	serve(t, h, "GET", "/openapi/v3/apis/apps/v1")
	again, err = h.groupVersions[appsV1].document()
	require.NoError(t, err)
	assert.Same(t, &first.body[0], &again.body[0])

	// A new schema (a CRD update) misses and changes the hash.
	rs[3] = &registry.Resource{Group: "lab.example.com", Version: "v1", Name: "widgets", Kind: "Widget", Namespaced: true,
		Schema: &api.JSONSchemaProps{Type: "object", Description: "v2 of the schema"}}
	_, body3 := serve(t, h, "GET", "/openapi/v3")
	assert.NotEqual(t, body, body3)
	_, doc := serve(t, h, "GET", "/openapi/v3/apis/lab.example.com/v1")
	assert.Contains(t, doc, "v2 of the schema")

	// A flag change misses too.
	rs[1] = &registry.Resource{Version: "v1", Name: "nodes", Kind: "Node", Schema: rs[1].Schema}
	_, doc = serve(t, h, "GET", "/openapi/v3/api/v1")
	var core map[string]any
	require.NoError(t, json.Unmarshal([]byte(doc), &core))
	assert.NotContains(t, dig(t, core, "paths", "/api/v1/nodes/{name}", "patch", "requestBody", "content"), strategicPatchType)

	// A removed group-version leaves the index and the cache.
	rs = rs[:3]
	_, body4 := serve(t, h, "GET", "/openapi/v3")
	assert.NotContains(t, body4, "lab.example.com")
	assert.Len(t, h.groupVersions, 2)
}

func TestFingerprint(t *testing.T) {
	rs := testResources()
	base := fingerprint(rs[:1])
	mutations := map[string]func(r *registry.Resource){
		"kind":        func(r *registry.Resource) { r.Kind = "Other" },
		"listKind":    func(r *registry.Resource) { r.ListKind = "Other" },
		"namespaced":  func(r *registry.Resource) { r.Namespaced = false },
		"status":      func(r *registry.Resource) { r.StatusSubresource = false },
		"scale":       func(r *registry.Resource) { r.Scale = &registry.ScaleSubresource{} },
		"strategic":   func(r *registry.Resource) { r.StrategicMergePatch = false },
		"schema":      func(r *registry.Resource) { r.Schema = &api.JSONSchemaProps{} },
		"subresource": func(r *registry.Resource) { r.CreateSubresources = nil },
		"update subresource": func(r *registry.Resource) {
			r.UpdateSubresources = map[string]registry.UpdateSubresource{"ephemeralcontainers": {}}
		},

		"posted kind": func(r *registry.Resource) {
			r.CreateSubresources = map[string]registry.CreateSubresource{"binding": {Resource: &registry.Resource{Version: "v1", Kind: "Eviction"}}}
		},
	}
	for name, mutate := range mutations {
		c := *rs[0]
		mutate(&c)
		got := fingerprint([]*registry.Resource{&c})
		assert.NotEqual(t, base, got, name)
	}
	same := *rs[0]
	assert.Equal(t, base, fingerprint([]*registry.Resource{&same}), "a copy with the same schema pointers fingerprints the same")

	// PUT alone or GET, PUT and PATCH: another document.
	put, all := *rs[0], *rs[0]
	put.UpdateSubresources = map[string]registry.UpdateSubresource{"finalize": {UpdateOnly: true}}
	all.UpdateSubresources = map[string]registry.UpdateSubresource{"finalize": {}}
	assert.NotEqual(t, fingerprint([]*registry.Resource{&put}), fingerprint([]*registry.Resource{&all}))
}

func FuzzHandlerPath(f *testing.F) {
	for _, s := range []string{"/openapi/v3", "/openapi/v3/api/v1", "/openapi/v3/apis/apps/v1", "/openapi/v2", "/openapi/v3//", "/openapi/v3/apis/%2e/v1"} {
		f.Add(s, "")
		f.Add(s, "hash=X")
	}
	h := NewHandler(testResources)
	f.Fuzz(func(t *testing.T, path, query string) {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.URL.Path, req.URL.RawQuery = path, query
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusNotFound:
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("invalid JSON for %q: %.200s", path, rec.Body.String())
			}
		case http.StatusMovedPermanently:
		default:
			t.Fatalf("code %d for %q?%q", rec.Code, path, query)
		}
	})
}

// The subresources that write part of the object are in the document:
// namespaces/finalize with PUT alone, pods/ephemeralcontainers with GET,
// PUT and PATCH, named as kube-apiserver names them.
func TestDocumentUpdateSubresources(t *testing.T) {
	doc := decodeDoc(t, "v1", kinds.Builtin())
	paths := dig(t, doc, "paths").(map[string]any)
	finalize := paths["/api/v1/namespaces/{name}/finalize"].(map[string]any)
	assert.ElementsMatch(t, []string{"put", "parameters"}, keysOf(finalize))
	assert.Equal(t, "replaceCoreV1NamespaceFinalize", dig(t, finalize, "put", "operationId"))
	assert.Equal(t, "replace finalize of the specified Namespace", dig(t, finalize, "put", "description"))
	ephemeral := paths["/api/v1/namespaces/{namespace}/pods/{name}/ephemeralcontainers"].(map[string]any)
	assert.Equal(t, "readCoreV1NamespacedPodEphemeralcontainers", dig(t, ephemeral, "get", "operationId"))
	assert.Equal(t, "patchCoreV1NamespacedPodEphemeralcontainers", dig(t, ephemeral, "patch", "operationId"))
}
