package openapi

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// The protobuf form of the v2 document: gnostic's openapi_v2.Document
// (github.com/google/gnostic-models, OpenAPIv2.proto). client-go asks for
// /openapi/v2 with Accept application/com.github.proto-openapi.spec.v2@v1.0+protobuf
// only, and parses the reply as protobuf whatever its Content-Type, so
// JSON is no answer for kubectl or helm. The field numbers below are facts
// of that .proto file; only what SwaggerDocument writes is encoded.
// Values of "x-" extensions, default, enum and example travel as YAML
// text in gnostic's Any message; JSON is YAML, so they are written as JSON.

// SwaggerProtoContentType is the media type of the protobuf v2 document
// as the server names it; clients ask for it under its older name,
// SwaggerProtoContentTypeDeprecated, which is not a valid media type (the
// "@" breaks Go's mime parser, so a reply must never carry it).
const (
	SwaggerProtoContentType           = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	SwaggerProtoContentTypeDeprecated = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
)

// protoMessage is a message being written: append fields in any order.
type protoMessage []byte

func (m *protoMessage) str(field protowire.Number, s string) {
	if s == "" {
		return
	}
	*m = protowire.AppendTag(*m, field, protowire.BytesType)
	*m = protowire.AppendString(*m, s)
}

func (m *protoMessage) boolean(field protowire.Number, b bool) {
	if !b {
		return
	}
	*m = protowire.AppendTag(*m, field, protowire.VarintType)
	*m = protowire.AppendVarint(*m, 1)
}

func (m *protoMessage) int64(field protowire.Number, v int64) {
	*m = protowire.AppendTag(*m, field, protowire.VarintType)
	*m = protowire.AppendVarint(*m, uint64(v))
}

func (m *protoMessage) double(field protowire.Number, v float64) {
	*m = protowire.AppendTag(*m, field, protowire.Fixed64Type)
	*m = protowire.AppendFixed64(*m, math.Float64bits(v))
}

// message writes a nested message, even an empty one: presence matters
// for oneofs and for the schema of an empty object.
func (m *protoMessage) message(field protowire.Number, sub protoMessage) {
	*m = protowire.AppendTag(*m, field, protowire.BytesType)
	*m = protowire.AppendBytes(*m, sub)
}

// anyYAML is gnostic's Any{yaml = 2}.
func anyYAML(v any) (protoMessage, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var a protoMessage
	a.str(2, string(data))
	return a, nil
}

// namedAny is NamedAny{name = 1, value = 2}.
func (m *protoMessage) namedAny(field protowire.Number, name string, v any) error {
	value, err := anyYAML(v)
	if err != nil {
		return err
	}
	var n protoMessage
	n.str(1, name)
	n.message(2, value)
	m.message(field, n)
	return nil
}

func (m *protoMessage) strings(field protowire.Number, v any) {
	list, _ := v.([]any)
	for _, s := range list {
		*m = protowire.AppendTag(*m, field, protowire.BytesType)
		*m = protowire.AppendString(*m, fmt.Sprint(s))
	}
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func toInt(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(n.String(), 10, 64)
		return i, err == nil
	case float64:
		return int64(n), true
	case int:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}

// EncodeSwaggerProto encodes a document built by SwaggerDocument as
// gnostic's openapi_v2.Document.
func EncodeSwaggerProto(doc map[string]any) ([]byte, error) {
	var d protoMessage
	d.str(1, fmt.Sprint(doc["swagger"]))
	if info, ok := doc["info"].(map[string]any); ok {
		var i protoMessage
		i.str(1, fmt.Sprint(info["title"]))
		i.str(2, fmt.Sprint(info["version"]))
		d.message(2, i)
	}
	paths, _ := doc["paths"].(map[string]any)
	var ps protoMessage
	for _, p := range sortedKeys(paths) {
		item, err := encodePathItem(paths[p].(map[string]any))
		if err != nil {
			return nil, fmt.Errorf("path %s: %w", p, err)
		}
		var named protoMessage
		named.str(1, p)
		named.message(2, item)
		ps.message(2, named)
	}
	d.message(8, ps)
	defs, _ := doc["definitions"].(map[string]any)
	var ds protoMessage
	for _, name := range sortedKeys(defs) {
		s, err := encodeSchema(defs[name])
		if err != nil {
			return nil, fmt.Errorf("definition %s: %w", name, err)
		}
		var named protoMessage
		named.str(1, name)
		named.message(2, s)
		ds.message(1, named)
	}
	d.message(9, ds)
	return d, nil
}

// PathItem's operation fields.
var pathItemFields = map[string]protowire.Number{
	"get": 2, "put": 3, "post": 4, "delete": 5, "options": 6, "head": 7, "patch": 8,
}

func encodePathItem(item map[string]any) (protoMessage, error) {
	var m protoMessage
	for _, k := range sortedKeys(item) {
		switch {
		case k == "parameters":
			if err := m.parameters(9, item[k]); err != nil {
				return nil, err
			}
		case pathItemFields[k] != 0:
			op, err := encodeOperation(item[k].(map[string]any))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			m.message(pathItemFields[k], op)
		case strings.HasPrefix(k, "x-"):
			if err := m.namedAny(10, k, item[k]); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

func encodeOperation(op map[string]any) (protoMessage, error) {
	var m protoMessage
	m.strings(1, op["tags"])
	m.str(2, str(op["summary"]))
	m.str(3, str(op["description"]))
	m.str(5, str(op["operationId"]))
	m.strings(6, op["produces"])
	m.strings(7, op["consumes"])
	if err := m.parameters(8, op["parameters"]); err != nil {
		return nil, err
	}
	if responses, ok := op["responses"].(map[string]any); ok {
		var rs protoMessage
		for _, code := range sortedKeys(responses) {
			r := responses[code].(map[string]any)
			var resp protoMessage
			resp.str(1, str(r["description"]))
			if s, ok := r["schema"]; ok {
				schema, err := encodeSchema(s)
				if err != nil {
					return nil, err
				}
				var item protoMessage // SchemaItem{schema = 1}
				item.message(1, schema)
				resp.message(2, item)
			}
			var value protoMessage // ResponseValue{response = 1}
			value.message(1, resp)
			var named protoMessage // NamedResponseValue
			named.str(1, code)
			named.message(2, value)
			rs.message(1, named)
		}
		m.message(9, rs)
	}
	m.strings(10, op["schemes"])
	for _, k := range sortedKeys(op) {
		if strings.HasPrefix(k, "x-") {
			if err := m.namedAny(13, k, op[k]); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// parameters writes ParametersItem{parameter = 1} entries: a
// BodyParameter, or a query or path NonBodyParameter.
func (m *protoMessage) parameters(field protowire.Number, v any) error {
	list, _ := v.([]any)
	for _, p := range list {
		pm := p.(map[string]any)
		var param protoMessage // Parameter
		switch in := str(pm["in"]); in {
		case "body":
			var b protoMessage
			b.str(1, str(pm["description"]))
			b.str(2, str(pm["name"]))
			b.str(3, in)
			b.boolean(4, pm["required"] == true)
			if s, ok := pm["schema"]; ok {
				schema, err := encodeSchema(s)
				if err != nil {
					return err
				}
				b.message(5, schema)
			}
			param.message(1, b)
		case "query", "path":
			// QueryParameterSubSchema and PathParameterSubSchema number
			// their first fields alike; type and uniqueItems differ.
			var q protoMessage
			q.boolean(1, pm["required"] == true)
			q.str(2, in)
			q.str(3, str(pm["description"]))
			q.str(4, str(pm["name"]))
			var nonBody protoMessage
			if in == "query" {
				q.str(6, str(pm["type"]))
				q.boolean(20, pm["uniqueItems"] == true)
				nonBody.message(3, q)
			} else {
				q.str(5, str(pm["type"]))
				q.boolean(19, pm["uniqueItems"] == true)
				nonBody.message(4, q)
			}
			param.message(2, nonBody)
		default:
			continue
		}
		var item protoMessage
		item.message(1, param)
		m.message(field, item)
	}
	return nil
}

// Schema's scalar fields by JSON name.
var (
	schemaStrings = map[string]protowire.Number{"$ref": 1, "format": 2, "title": 3, "description": 4, "pattern": 13, "discriminator": 26}
	schemaDoubles = map[string]protowire.Number{"multipleOf": 6, "maximum": 7, "minimum": 9}
	schemaInts    = map[string]protowire.Number{"maxLength": 11, "minLength": 12, "maxItems": 14, "minItems": 15, "maxProperties": 17, "minProperties": 18}
	schemaBools   = map[string]protowire.Number{"exclusiveMaximum": 8, "exclusiveMinimum": 10, "uniqueItems": 16, "readOnly": 27}
)

func encodeSchema(v any) (protoMessage, error) {
	s, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a schema must be an object, not %T", v)
	}
	var m protoMessage
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := s[k]
		switch {
		case schemaStrings[k] != 0:
			m.str(schemaStrings[k], str(val))
		case schemaDoubles[k] != 0:
			if f, ok := toFloat(val); ok {
				m.double(schemaDoubles[k], f)
			}
		case schemaInts[k] != 0:
			if i, ok := toInt(val); ok {
				m.int64(schemaInts[k], i)
			}
		case schemaBools[k] != 0:
			m.boolean(schemaBools[k], val == true)
		case k == "default" || k == "example":
			a, err := anyYAML(val)
			if err != nil {
				return nil, err
			}
			m.message(map[string]protowire.Number{"default": 5, "example": 30}[k], a)
		case k == "required":
			m.strings(19, val)
		case k == "enum":
			list, _ := val.([]any)
			for _, e := range list {
				a, err := anyYAML(e)
				if err != nil {
					return nil, err
				}
				m.message(20, a)
			}
		case k == "additionalProperties":
			var ap protoMessage // AdditionalPropertiesItem
			if b, isBool := val.(bool); isBool {
				ap = protowire.AppendTag(ap, 2, protowire.VarintType)
				ap = protowire.AppendVarint(ap, protowire.EncodeBool(b))
			} else {
				sub, err := encodeSchema(val)
				if err != nil {
					return nil, err
				}
				ap.message(1, sub)
			}
			m.message(21, ap)
		case k == "type":
			var t protoMessage // TypeItem{repeated value = 1}
			if list, isList := val.([]any); isList {
				t.strings(1, list)
			} else {
				t.strings(1, []any{val})
			}
			m.message(22, t)
		case k == "items":
			sub, err := encodeSchema(val)
			if err != nil {
				return nil, err
			}
			var items protoMessage // ItemsItem{repeated schema = 1}
			items.message(1, sub)
			m.message(23, items)
		case k == "allOf":
			list, _ := val.([]any)
			for _, e := range list {
				sub, err := encodeSchema(e)
				if err != nil {
					return nil, err
				}
				m.message(24, sub)
			}
		case k == "properties":
			props, _ := val.(map[string]any)
			var ps protoMessage // Properties{repeated NamedSchema = 1}
			for _, name := range sortedKeys(props) {
				sub, err := encodeSchema(props[name])
				if err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				var named protoMessage
				named.str(1, name)
				named.message(2, sub)
				ps.message(1, named)
			}
			m.message(25, ps)
		case strings.HasPrefix(k, "x-"):
			if err := m.namedAny(31, k, val); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}
