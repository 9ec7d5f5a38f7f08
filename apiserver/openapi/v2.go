package openapi

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// The OpenAPI v2 (Swagger 2.0) document at /openapi/v2: one document for
// the whole server, the older form kubectl still reads when a
// group-version is missing from /openapi/v3 (its field-validation check
// and client-side validation), that kubectl explain --output
// plaintext-openapiv2 and older clients walk, and that helm validates
// charts against. It is converted from the same v3 schemas and paths
// (buildGroupVersion), so the two never disagree.

// SwaggerDocument builds the v2 document of every group-version served.
func SwaggerDocument(resources []*registry.Resource) (map[string]any, error) {
	paths := map[string]any{}
	definitions := map[string]any{}
	for _, gv := range GroupVersions(resources) {
		defs, ps, err := swaggerGroupVersion(gv, resourcesAt(gv, resources))
		if err != nil {
			return nil, err
		}
		maps.Copy(definitions, defs)
		maps.Copy(paths, ps)
	}
	return map[string]any{
		"swagger":     swaggerVersion,
		"info":        swaggerInfo(),
		"paths":       paths,
		"definitions": definitions,
	}, nil
}

const swaggerVersion = "2.0"

func swaggerInfo() map[string]any {
	return map[string]any{"title": "Kubernetes", "version": "unversioned"}
}

// swaggerJSON writes the JSON document around path items and definitions
// encoded before, as encodeJSON writes the whole document.
func swaggerJSON(paths, definitions map[string][]byte) ([]byte, error) {
	size := 128
	for _, m := range []map[string][]byte{paths, definitions} {
		for k, v := range m {
			size += len(k) + len(v) + 4
		}
	}
	buf := make([]byte, 0, size)
	object := func(m map[string][]byte) {
		buf = append(buf, '{')
		for i, k := range sortedKeys(m) {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(append(appendJSONString(buf, k), ':'), m[k]...)
		}
		buf = append(buf, '}')
	}
	buf = append(buf, `{"definitions":`...)
	object(definitions)
	buf = append(buf, `,"info":`...)
	buf, err := appendJSON(buf, swaggerInfo())
	if err != nil {
		return nil, err
	}
	buf = append(buf, `,"paths":`...)
	object(paths)
	return append(buf, `,"swagger":"`+swaggerVersion+`"}`...), nil
}

// encodeJSONEach encodes each value of m alone.
func encodeJSONEach(m map[string]any) (map[string][]byte, error) {
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		b, err := encodeJSON(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = b
	}
	return out, nil
}

// swaggerGroupVersion converts the schemas and paths of gv's resources
// (buildGroupVersion) to Swagger 2.0: its part of the v2 document. Every
// group-version carries the shared definitions (Status, DeleteOptions),
// the same in each.
func swaggerGroupVersion(gv schema.GroupVersion, rs []*registry.Resource) (definitions, paths map[string]any, err error) {
	b, err := buildGroupVersion(gv, rs)
	if err != nil {
		return nil, nil, err
	}
	custom := map[string]bool{}
	for _, r := range rs {
		if isCustomResource(r) {
			custom[DefinitionName(r.GroupVersionKind())] = true
		}
	}
	definitions = make(map[string]any, len(b.schemas))
	for name, s := range b.schemas {
		if custom[name] {
			definitions[name] = customResourceV2Schema(s.(map[string]any))
			continue
		}
		definitions[name] = v2Schema(s)
	}
	paths = make(map[string]any, len(b.paths))
	for p, item := range b.paths {
		paths[p] = v2PathItem(item.(map[string]any))
	}
	return definitions, paths, nil
}

// isCustomResource: a CRD's kind, served as unstructured objects.
func isCustomResource(r *registry.Resource) bool {
	if r.New == nil {
		return false
	}
	_, ok := r.New().(*unstructured.Unstructured)
	return ok
}

// customResourceV2Schema is a custom resource's v2 definition as
// apiextensions-apiserver publishes it (buildKubeNative with V2, then
// ToStructuralOpenAPIV2 and PruneDefaults). kubectl validates the items of
// a kind: List itself against /openapi/v2 and calls any field a schema
// does not name unknown, so what keeps unknown fields must name none: a
// root that keeps unknown fields is a bare object (not even metadata),
// and a field that does loses its properties, its items and its object or
// array type.
func customResourceV2Schema(s map[string]any) map[string]any {
	if s["x-kubernetes-preserve-unknown-fields"] == true {
		return map[string]any{"type": "object", "x-kubernetes-group-version-kind": s["x-kubernetes-group-version-kind"]}
	}
	return v2Schema(structuralV2(s)).(map[string]any)
}

// structuralV2 is ToStructuralOpenAPIV2 on one node and, after it, its
// children (the parent sees its children as the CRD wrote them).
func structuralV2(s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch k {
		case "allOf", "oneOf", "anyOf", "not", "default":
			// Junctors v2 cannot say; defaults pruned as for built-ins.
		default:
			out[k] = v
		}
	}
	if out["nullable"] == true {
		// Untyped, and an untyped value with items or properties breaks
		// kubectl.
		delete(out, "nullable")
		delete(out, "type")
		delete(out, "items")
		delete(out, "properties")
	}
	preserve := out["x-kubernetes-preserve-unknown-fields"] == true
	if preserve {
		delete(out, "items")
		delete(out, "properties")
	}
	if _, hasItems := out["items"]; !hasItems && out["type"] == "array" {
		delete(out, "type") // kubectl cannot read an array without items
	}
	if preserve && out["type"] == "object" {
		delete(out, "type")
	}
	// A nullable field cannot be required where null is not a value.
	if props, ok := m["properties"].(map[string]any); ok {
		if req, ok := out["required"].([]any); ok {
			kept := make([]any, 0, len(req))
			for _, f := range req {
				if p, _ := props[fmt.Sprint(f)].(map[string]any); p == nil || p["nullable"] != true {
					kept = append(kept, f)
				}
			}
			out["required"] = kept
			if len(kept) == 0 {
				delete(out, "required")
			}
		}
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok && ap["nullable"] == true {
		delete(out, "required")
	}
	if props, ok := out["properties"].(map[string]any); ok {
		conv := make(map[string]any, len(props))
		for name, p := range props {
			conv[name] = structuralV2(p)
		}
		out["properties"] = conv
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if v, ok := out[k]; ok {
			out[k] = structuralV2(v)
		}
	}
	return out
}

// v2Ref points a v3 reference at the v2 definitions.
func v2Ref(ref string) string {
	if name, ok := strings.CutPrefix(ref, "#/components/schemas/"); ok {
		return "#/definitions/" + name
	}
	return ref
}

// v2Schema converts a JSON schema: references move, and what Swagger 2.0
// cannot say is dropped as Kubernetes' CRD builder drops it for v2
// (nullable, oneOf, anyOf, not; the type of an int-or-string).
func v2Schema(s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch k {
		case "nullable", "oneOf", "anyOf", "not":
		case "$ref":
			out[k] = v2Ref(fmt.Sprint(v))
		case "properties", "patternProperties", "definitions":
			props, _ := v.(map[string]any)
			conv := make(map[string]any, len(props))
			for name, p := range props {
				conv[name] = v2Schema(p)
			}
			out[k] = conv
		case "items", "additionalProperties":
			if list, isList := v.([]any); isList {
				v = list[0]
			}
			out[k] = v2Schema(v)
		case "allOf":
			list, _ := v.([]any)
			conv := make([]any, len(list))
			for i, p := range list {
				conv[i] = v2Schema(p)
			}
			out[k] = conv
		default:
			out[k] = v
		}
	}
	if out["x-kubernetes-int-or-string"] == true {
		delete(out, "type")
	}
	return out
}

// v2PathItem converts a path item and its operations.
func v2PathItem(item map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range item {
		if k == "parameters" {
			out[k] = v2Parameters(v.([]any))
			continue
		}
		out[k] = v2Operation(v.(map[string]any))
	}
	return out
}

// v2Parameters moves each parameter's type out of its schema.
func v2Parameters(params []any) []any {
	out := make([]any, 0, len(params))
	for _, p := range params {
		pm := p.(map[string]any)
		c := map[string]any{}
		for k, v := range pm {
			if k != "schema" {
				c[k] = v
			}
		}
		if schema, ok := pm["schema"].(map[string]any); ok {
			for k, v := range schema {
				c[k] = v
			}
		}
		out = append(out, c)
	}
	return out
}

// v2Operation turns the request body into a body parameter with the
// content types in consumes, and response contents into schemas with the
// types in produces.
func v2Operation(op map[string]any) map[string]any {
	out := map[string]any{"schemes": []any{"https"}}
	var params []any
	for k, v := range op {
		switch k {
		case "parameters":
			params = append(v2Parameters(v.([]any)), params...)
		case "requestBody":
			body := v.(map[string]any)
			content, _ := body["content"].(map[string]any)
			types := sortedKeys(content)
			p := map[string]any{"name": "body", "in": "body"}
			if body["required"] == true {
				p["required"] = true
			}
			if len(types) > 0 {
				p["schema"] = v2Schema(content[types[0]].(map[string]any)["schema"])
			}
			params = append(params, p)
			out["consumes"] = stringsToAny(types)
		case "responses":
			responses := map[string]any{}
			produces := map[string]bool{}
			for code, r := range v.(map[string]any) {
				rm := r.(map[string]any)
				c := map[string]any{"description": rm["description"]}
				if content, ok := rm["content"].(map[string]any); ok {
					for _, t := range sortedKeys(content) {
						produces[t] = true
					}
					if jsonContent, ok := content["application/json"].(map[string]any); ok {
						c["schema"] = v2Schema(jsonContent["schema"])
					}
				}
				responses[code] = c
			}
			out[k] = responses
			if len(produces) > 0 {
				out["produces"] = stringsToAny(sortedKeys(produces))
			}
		default:
			out[k] = v
		}
	}
	if len(params) > 0 {
		out["parameters"] = params
	}
	return out
}

func stringsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	sort.Slice(out, func(i, j int) bool { return out[i].(string) < out[j].(string) })
	return out
}
