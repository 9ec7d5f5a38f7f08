package openapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/openapi"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// clientGoAccept is what client-go (kubectl, helm) sends to /openapi/v2.
const clientGoAccept = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"

// v2Resources are the built-in kinds and one custom resource whose schema
// uses what Swagger 2.0 cannot say.
func v2Resources() []*registry.Resource {
	rs := kinds.Builtin()
	return append(rs, &registry.Resource{
		Group: "auth.magedu.com", Version: "v1beta1", Name: "users", SingularName: "user", Kind: "User", ListKind: "UserList",
		Schema: &api.JSONSchemaProps{Type: "object", Properties: map[string]api.JSONSchemaProps{
			"spec": {Type: "object", Description: "UserSpec is the wanted user.", Properties: map[string]api.JSONSchemaProps{
				"userID":   {Type: "integer", Maximum: float64p(65535)},
				"nickname": {Type: "string", Nullable: true},
				"port":     {XIntOrString: true, AnyOf: []api.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}},
			}},
		}},
	})
}

func float64p(f float64) *float64 { return &f }

func getV2(t *testing.T, h http.Handler, accept, ifNoneMatch string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/openapi/v2", nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func gvkOf(v any) map[string]any {
	if list, ok := v.([]any); ok && len(list) == 1 {
		v = list[0]
	}
	m, _ := v.(map[string]any)
	return m
}

// Every built-in kind and list kind has a definition tagged with its kind;
// the custom resource's schema is there, made Swagger 2.0; references
// point at the definitions and all resolve.
func TestSwaggerDocumentStructure(t *testing.T) {
	rs := v2Resources()
	rec := getV2(t, openapi.NewHandler(func() []*registry.Resource { return rs }), "application/json", "")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	var doc struct {
		Swagger     string                    `json:"swagger"`
		Paths       map[string]map[string]any `json:"paths"`
		Definitions map[string]map[string]any `json:"definitions"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	assert.Equal(t, "2.0", doc.Swagger)
	assert.NotContains(t, rec.Body.String(), "#/components/")

	for _, r := range rs {
		for _, kind := range []string{r.Kind, r.ListKind} {
			if kind == "" {
				continue
			}
			gvk := schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: kind}
			def, ok := doc.Definitions[openapi.DefinitionName(gvk)]
			if assert.True(t, ok, "definition of %v", gvk) {
				assert.Equal(t, map[string]any{"group": r.Group, "version": r.Version, "kind": kind},
					gvkOf(def["x-kubernetes-group-version-kind"]), "%v", gvk)
			}
		}
	}

	// Every $ref resolves.
	var refs []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "$ref" {
					refs = append(refs, e.(string))
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	var raw any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &raw))
	walk(raw)
	require.NotEmpty(t, refs)
	for _, ref := range refs {
		name, ok := strings.CutPrefix(ref, "#/definitions/")
		require.True(t, ok, ref)
		assert.Contains(t, doc.Definitions, name)
	}

	// The custom resource: nullable and anyOf are gone, an int-or-string
	// has no type.
	user := doc.Definitions["com.magedu.auth.v1beta1.User"]
	require.NotNil(t, user)
	spec := user["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)
	assert.Equal(t, map[string]any{"type": "string"}, spec["nickname"])
	assert.Equal(t, map[string]any{"x-kubernetes-int-or-string": true}, spec["port"])
	assert.Equal(t, map[string]any{"type": "integer", "maximum": 65535.0}, spec["userID"])

	// The operation kubectl looks for: a PATCH tagged with the kind and
	// taking fieldValidation, its body a body parameter.
	patch := doc.Paths["/api/v1/namespaces/{name}"]["patch"].(map[string]any)
	assert.Equal(t, map[string]any{"group": "", "version": "v1", "kind": "Namespace"}, patch["x-kubernetes-group-version-kind"])
	assert.Equal(t, "patch", patch["x-kubernetes-action"])
	var names []string
	for _, p := range patch["parameters"].([]any) {
		pm := p.(map[string]any)
		names = append(names, pm["name"].(string))
		switch pm["name"] {
		case "fieldValidation":
			assert.Equal(t, "query", pm["in"])
			assert.Equal(t, "string", pm["type"])
		case "body":
			assert.Equal(t, "body", pm["in"])
			assert.Equal(t, map[string]any{"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}, pm["schema"])
		}
	}
	assert.Contains(t, names, "fieldValidation")
	assert.Contains(t, names, "body")
	assert.Contains(t, patch["consumes"], "application/strategic-merge-patch+json")
	ok200 := patch["responses"].(map[string]any)["200"].(map[string]any)
	assert.Equal(t, map[string]any{"$ref": "#/definitions/io.k8s.api.core.v1.Namespace"}, ok200["schema"])
	assert.Contains(t, doc.Paths, "/apis/auth.magedu.com/v1beta1/users/{name}")
}

// protoFields decodes one protobuf message into its fields by number.
func protoFields(t *testing.T, b []byte) map[protowire.Number][][]byte {
	t.Helper()
	out := map[protowire.Number][][]byte{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		require.GreaterOrEqual(t, n, 0, "bad tag")
		b = b[n:]
		switch typ {
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			require.GreaterOrEqual(t, n, 0)
			out[num] = append(out[num], v)
			b = b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			require.GreaterOrEqual(t, n, 0)
			out[num] = append(out[num], b[:n])
			b = b[n:]
		}
	}
	return out
}

// namedEntries maps the NamedX{name = 1, value = 2} entries of field.
func namedEntries(t *testing.T, msgs [][]byte) map[string][]byte {
	out := map[string][]byte{}
	for _, m := range msgs {
		f := protoFields(t, m)
		require.Len(t, f[1], 1)
		out[string(f[1][0])] = f[2][0]
	}
	return out
}

// The protobuf form is gnostic's openapi_v2.Document, which is all that
// client-go accepts: definitions carry their kind as a vendor extension
// whose YAML value names group, version and kind.
func TestSwaggerProto(t *testing.T) {
	rs := v2Resources()
	h := openapi.NewHandler(func() []*registry.Resource { return rs })
	rec := getV2(t, h, clientGoAccept, "")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", rec.Header().Get("Content-Type"),
		"the valid name: client-go cannot parse the one it asks for")

	doc := protoFields(t, rec.Body.Bytes())
	assert.Equal(t, "2.0", string(doc[1][0]))
	defs := namedEntries(t, protoFields(t, doc[9][0])[1])
	pod, ok := defs["io.k8s.api.core.v1.Pod"]
	require.True(t, ok)
	schema := protoFields(t, pod)
	exts := namedEntries(t, schema[31])
	gvk, ok := exts["x-kubernetes-group-version-kind"]
	require.True(t, ok)
	var value []map[string]string
	require.NoError(t, json.Unmarshal(protoFields(t, gvk)[2][0], &value))
	assert.Equal(t, []map[string]string{{"group": "", "version": "v1", "kind": "Pod"}}, value)
	typ := protoFields(t, schema[22][0])[1]
	assert.Equal(t, "object", string(typ[0]))
	props := namedEntries(t, protoFields(t, schema[25][0])[1])
	assert.Contains(t, props, "spec")
	assert.Contains(t, props, "metadata")

	// The namespace PATCH operation and its fieldValidation parameter.
	paths := namedEntries(t, protoFields(t, doc[8][0])[2])
	item := protoFields(t, paths["/api/v1/namespaces/{name}"])
	require.Len(t, item[8], 1, "a patch operation")
	op := protoFields(t, item[8][0])
	opExts := namedEntries(t, op[13])
	assert.JSONEq(t, `{"group":"","version":"v1","kind":"Namespace"}`, string(protoFields(t, opExts["x-kubernetes-group-version-kind"])[2][0]))
	var params []string
	for _, p := range op[8] {
		param := protoFields(t, protoFields(t, p)[1][0])
		if nb, ok := param[2]; ok {
			q, isQuery := protoFields(t, nb[0])[3]
			if isQuery {
				params = append(params, string(protoFields(t, q[0])[4][0]))
			}
		}
	}
	assert.True(t, slices.Contains(params, "fieldValidation"), "query parameters %v", params)
}

// The document changes with the resources, and its ETag with it; an
// unchanged one answers 304.
func TestSwaggerETag(t *testing.T) {
	rs := kinds.Builtin()
	h := openapi.NewHandler(func() []*registry.Resource { return rs })
	first := getV2(t, h, clientGoAccept, "")
	etag := first.Header().Get("Etag")
	require.NotEmpty(t, etag)
	assert.Equal(t, http.StatusNotModified, getV2(t, h, clientGoAccept, etag).Code)
	// JSON has its own tag.
	assert.NotEqual(t, etag, getV2(t, h, "application/json", "").Header().Get("Etag"))

	rs = v2Resources()
	second := getV2(t, h, clientGoAccept, etag)
	require.Equal(t, http.StatusOK, second.Code)
	assert.NotEqual(t, etag, second.Header().Get("Etag"))
	assert.Contains(t, second.Body.String(), "com.magedu.auth.v1beta1.User")
	assert.Equal(t, http.StatusNotAcceptable, getV2(t, h, "text/html", "").Code)
	assert.Equal(t, "application/json", getV2(t, h, "", "").Header().Get("Content-Type"))
	assert.NotContains(t, first.Body.String(), "com.magedu.auth.v1beta1.User")
}

// A custom resource's v2 definition is what apiextensions-apiserver's
// builder publishes (ToStructuralOpenAPIV2): what keeps unknown fields
// names no properties, items or object/array type; a nullable field is
// untyped and not required; junctors and defaults go; a root that keeps
// unknown fields is a bare object.
func TestSwaggerDocumentCustomResourcesAsTheCRDBuilder(t *testing.T) {
	parse := func(s string) *api.JSONSchemaProps {
		var p api.JSONSchemaProps
		require.NoError(t, json.Unmarshal([]byte(s), &p))
		return &p
	}
	cr := func(kind string, s *api.JSONSchemaProps) *registry.Resource {
		return &registry.Resource{Group: "lab.example.com", Version: "v1", Name: strings.ToLower(kind) + "s", Kind: kind, ListKind: kind + "List",
			Namespaced: true, New: func() api.Object { return &unstructured.Unstructured{} }, Schema: s}
	}
	rs := []*registry.Resource{
		cr("Gadget", parse(`{"type":"object","required":["spec"],"properties":{
			"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"description":"free form",
				"properties":{"size":{"type":"integer","default":1}}},
			"tags":{"type":"array","x-kubernetes-preserve-unknown-fields":true,"items":{"type":"string"}},
			"size":{"type":"integer","default":1,"minimum":0},
			"note":{"type":"string","nullable":true},
			"ref":{"type":"object","nullable":true,"properties":{"name":{"type":"string"}}},
			"port":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},
			"labels":{"type":"object","required":["a"],"additionalProperties":{"type":"string","nullable":true}}},
			"x-kubernetes-validations":[{"rule":"self.size >= 0"}]}`)),
		cr("Blob", parse(`{"type":"object","x-kubernetes-preserve-unknown-fields":true,"description":"anything",
			"properties":{"spec":{"type":"object"}}}`)),
	}
	rs[0].Schema.Required = append(rs[0].Schema.Required, "note")
	rec := getV2(t, openapi.NewHandler(func() []*registry.Resource { return rs }), "application/json", "")
	require.Equal(t, http.StatusOK, rec.Code)
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))

	gadget := doc.Definitions["com.example.lab.v1.Gadget"]
	props := gadget["properties"].(map[string]any)
	assert.Equal(t, map[string]any{"x-kubernetes-preserve-unknown-fields": true, "description": "free form"}, props["spec"])
	assert.Equal(t, map[string]any{"x-kubernetes-preserve-unknown-fields": true}, props["tags"])
	assert.Equal(t, map[string]any{"type": "integer", "minimum": float64(0)}, props["size"], "defaults pruned")
	assert.Equal(t, map[string]any{}, props["note"])
	assert.Equal(t, map[string]any{}, props["ref"])
	assert.Equal(t, map[string]any{"x-kubernetes-int-or-string": true}, props["port"])
	assert.Equal(t, map[string]any{"type": "object", "additionalProperties": map[string]any{}}, props["labels"])
	assert.Equal(t, []any{"spec"}, gadget["required"], "the nullable note is not required")
	assert.Contains(t, props, "metadata")
	assert.Equal(t, map[string]any{"group": "lab.example.com", "version": "v1", "kind": "Gadget"}, gvkOf(gadget["x-kubernetes-group-version-kind"]))

	blob := doc.Definitions["com.example.lab.v1.Blob"]
	assert.Equal(t, map[string]any{"type": "object",
		"x-kubernetes-group-version-kind": []any{map[string]any{"group": "lab.example.com", "version": "v1", "kind": "Blob"}}}, blob)

	// The v3 documents keep the schema as written.
	v3 := httptest.NewRecorder()
	openapi.NewHandler(func() []*registry.Resource { return rs }).ServeHTTP(v3, httptest.NewRequest(http.MethodGet, "/openapi/v3/apis/lab.example.com/v1", nil))
	require.Equal(t, http.StatusOK, v3.Code)
	assert.Contains(t, v3.Body.String(), `"default":1`)
	assert.Contains(t, v3.Body.String(), `"nullable":true`)
}
