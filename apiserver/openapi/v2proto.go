package openapi

import (
	"encoding/json"
	"fmt"
	"math"
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

// protoWriter writes a protobuf message in two passes over the same
// calls. A nested message is preceded by its length, unknown until the
// message is written; nesting messages by building each apart and
// copying it into its parent copies the deepest bytes once per level, and
// the schemas nest deep. So the first pass only measures, noting the
// length of every nested message in the order the messages begin, and the
// second writes each byte once, into a buffer of the right size, taking
// the lengths from that list. The calls must be the same in both passes:
// iterate maps in sorted order.
type protoWriter struct {
	measuring bool
	// size counts the bytes of the first pass.
	size int
	// lengths holds each nested message's length, in the order they
	// begin; next is the one the second pass writes next.
	lengths []int
	next    int
	// open are the messages begun and not yet ended in the first pass:
	// their index in lengths and the size before their first field.
	open []openMessage
	// yaml holds the JSON text of the Any values the first pass encoded,
	// and keys the sorted keys of the maps it walked, for the second to
	// use without encoding or sorting again.
	yaml     [][]byte
	nextYAML int
	keys     [][]string
	nextKeys int
	buf      []byte
}

type openMessage struct{ index, start int }

// writeProto runs write twice, measuring then writing.
func writeProto(write func(w *protoWriter) error) ([]byte, error) {
	w := &protoWriter{measuring: true}
	if err := write(w); err != nil {
		return nil, err
	}
	if len(w.open) != 0 {
		return nil, fmt.Errorf("protobuf: %d messages not ended", len(w.open))
	}
	w.measuring = false
	w.buf = make([]byte, 0, w.size)
	if err := write(w); err != nil {
		return nil, err
	}
	return w.buf, nil
}

func (w *protoWriter) tag(field protowire.Number, typ protowire.Type) {
	if w.measuring {
		w.size += protowire.SizeTag(field)
		return
	}
	w.buf = protowire.AppendTag(w.buf, field, typ)
}

func (w *protoWriter) varint(field protowire.Number, v uint64) {
	w.tag(field, protowire.VarintType)
	if w.measuring {
		w.size += protowire.SizeVarint(v)
		return
	}
	w.buf = protowire.AppendVarint(w.buf, v)
}

// stringAlways writes s even when empty (a repeated string).
func (w *protoWriter) stringAlways(field protowire.Number, s string) {
	w.tag(field, protowire.BytesType)
	if w.measuring {
		w.size += protowire.SizeBytes(len(s))
		return
	}
	w.buf = protowire.AppendString(w.buf, s)
}

func (w *protoWriter) str(field protowire.Number, s string) {
	if s != "" {
		w.stringAlways(field, s)
	}
}

// encoded writes a message encoded before, as field.
func (w *protoWriter) encoded(field protowire.Number, b []byte) {
	w.tag(field, protowire.BytesType)
	if w.measuring {
		w.size += protowire.SizeBytes(len(b))
		return
	}
	w.buf = protowire.AppendBytes(w.buf, b)
}

func (w *protoWriter) boolean(field protowire.Number, b bool) {
	if b {
		w.varint(field, 1)
	}
}

func (w *protoWriter) int64(field protowire.Number, v int64) {
	w.varint(field, uint64(v))
}

func (w *protoWriter) double(field protowire.Number, v float64) {
	w.tag(field, protowire.Fixed64Type)
	if w.measuring {
		w.size += protowire.SizeFixed64()
		return
	}
	w.buf = protowire.AppendFixed64(w.buf, math.Float64bits(v))
}

// begin starts a nested message, written even when empty: presence
// matters for oneofs and for the schema of an empty object. end closes
// it.
func (w *protoWriter) begin(field protowire.Number) {
	w.tag(field, protowire.BytesType)
	if w.measuring {
		w.open = append(w.open, openMessage{index: len(w.lengths), start: w.size})
		w.lengths = append(w.lengths, 0)
		return
	}
	w.buf = protowire.AppendVarint(w.buf, uint64(w.lengths[w.next]))
	w.next++
}

func (w *protoWriter) end() {
	if !w.measuring {
		return
	}
	m := w.open[len(w.open)-1]
	w.open = w.open[:len(w.open)-1]
	n := w.size - m.start
	w.lengths[m.index] = n
	w.size += protowire.SizeVarint(uint64(n))
}

// anyYAML writes gnostic's Any{yaml = 2} as field.
func (w *protoWriter) anyYAML(field protowire.Number, v any) error {
	var data []byte
	if w.measuring {
		var err error
		if data, err = json.Marshal(v); err != nil {
			return err
		}
		w.yaml = append(w.yaml, data)
	} else {
		data = w.yaml[w.nextYAML]
		w.nextYAML++
	}
	w.begin(field)
	w.str(2, string(data))
	w.end()
	return nil
}

// namedAny writes NamedAny{name = 1, value = 2} as field.
func (w *protoWriter) namedAny(field protowire.Number, name string, v any) error {
	w.begin(field)
	w.str(1, name)
	err := w.anyYAML(2, v)
	w.end()
	return err
}

// named writes a Named<X>{name = 1, value = 2} entry whose value was
// encoded before.
func (w *protoWriter) named(field protowire.Number, name string, value []byte) {
	w.begin(field)
	w.str(1, name)
	w.encoded(2, value)
	w.end()
}

func (w *protoWriter) strings(field protowire.Number, v any) {
	list, _ := v.([]any)
	for _, s := range list {
		w.stringAlways(field, str(s))
	}
}

// sortedKeys is the keys of m in order: what sortedKeys gives, sorted in
// the first pass only.
func (w *protoWriter) sortedKeys(m map[string]any) []string {
	if w.measuring {
		keys := sortedKeys(m)
		w.keys = append(w.keys, keys)
		return keys
	}
	keys := w.keys[w.nextKeys]
	w.nextKeys++
	return keys
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
	paths, _ := doc["paths"].(map[string]any)
	encodedPaths, err := encodeProtoPaths(paths)
	if err != nil {
		return nil, err
	}
	defs, _ := doc["definitions"].(map[string]any)
	encodedDefs, err := encodeProtoDefinitions(defs)
	if err != nil {
		return nil, err
	}
	info, _ := doc["info"].(map[string]any)
	return swaggerProto(str(doc["swagger"]), info, encodedPaths, encodedDefs)
}

// encodeProtoPaths encodes each path item as a PathItem message.
func encodeProtoPaths(paths map[string]any) (map[string][]byte, error) {
	out := make(map[string][]byte, len(paths))
	for p, item := range paths {
		m, _ := item.(map[string]any)
		encoded, err := writeProto(func(w *protoWriter) error { return w.pathItem(m) })
		if err != nil {
			return nil, fmt.Errorf("path %s: %w", p, err)
		}
		out[p] = encoded
	}
	return out, nil
}

// encodeProtoDefinitions encodes each definition as a Schema message.
func encodeProtoDefinitions(defs map[string]any) (map[string][]byte, error) {
	out := make(map[string][]byte, len(defs))
	for name, d := range defs {
		encoded, err := encodeSchema(d)
		if err != nil {
			return nil, fmt.Errorf("definition %s: %w", name, err)
		}
		out[name] = encoded
	}
	return out, nil
}

// encodeSchema encodes one schema as a Schema message.
func encodeSchema(v any) ([]byte, error) {
	return writeProto(func(w *protoWriter) error { return w.schemaFields(v) })
}

// swaggerProto writes the Document around path items and definitions
// encoded before (PathItem and Schema messages), in the order of their
// names.
func swaggerProto(swagger string, info map[string]any, paths, definitions map[string][]byte) ([]byte, error) {
	pathNames, defNames := sortedKeys(paths), sortedKeys(definitions)
	return writeProto(func(w *protoWriter) error {
		w.str(1, swagger)
		if info != nil {
			w.begin(2)
			w.str(1, str(info["title"]))
			w.str(2, str(info["version"]))
			w.end()
		}
		w.begin(8) // Paths{repeated NamedPathItem path = 2}
		for _, p := range pathNames {
			w.named(2, p, paths[p])
		}
		w.end()
		w.begin(9) // Definitions{repeated NamedSchema additional_properties = 1}
		for _, name := range defNames {
			w.named(1, name, definitions[name])
		}
		w.end()
		return nil
	})
}

// PathItem's operation fields.
var pathItemFields = map[string]protowire.Number{
	"get": 2, "put": 3, "post": 4, "delete": 5, "options": 6, "head": 7, "patch": 8,
}

// pathItem writes the fields of a PathItem.
func (w *protoWriter) pathItem(item map[string]any) error {
	for _, k := range w.sortedKeys(item) {
		switch {
		case k == "parameters":
			if err := w.parameters(9, item[k]); err != nil {
				return err
			}
		case pathItemFields[k] != 0:
			w.begin(pathItemFields[k])
			err := w.operation(item[k].(map[string]any))
			w.end()
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		case strings.HasPrefix(k, "x-"):
			if err := w.namedAny(10, k, item[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// operation writes the fields of an Operation.
func (w *protoWriter) operation(op map[string]any) error {
	w.strings(1, op["tags"])
	w.str(2, str(op["summary"]))
	w.str(3, str(op["description"]))
	w.str(5, str(op["operationId"]))
	w.strings(6, op["produces"])
	w.strings(7, op["consumes"])
	if err := w.parameters(8, op["parameters"]); err != nil {
		return err
	}
	if responses, ok := op["responses"].(map[string]any); ok {
		w.begin(9) // Responses
		for _, code := range w.sortedKeys(responses) {
			r := responses[code].(map[string]any)
			w.begin(1) // NamedResponseValue
			w.str(1, code)
			w.begin(2) // ResponseValue{response = 1}
			w.begin(1) // Response
			w.str(1, str(r["description"]))
			var err error
			if s, ok := r["schema"]; ok {
				w.begin(2) // SchemaItem{schema = 1}
				w.begin(1)
				err = w.schemaFields(s)
				w.end()
				w.end()
			}
			w.end()
			w.end()
			w.end()
			if err != nil {
				return err
			}
		}
		w.end()
	}
	w.strings(10, op["schemes"])
	for _, k := range w.sortedKeys(op) {
		if strings.HasPrefix(k, "x-") {
			if err := w.namedAny(13, k, op[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

func str(v any) string {
	switch s := v.(type) {
	case nil:
		return ""
	case string:
		return s
	}
	return fmt.Sprint(v)
}

// parameters writes ParametersItem{parameter = 1} entries: a
// BodyParameter, or a query or path NonBodyParameter.
func (w *protoWriter) parameters(field protowire.Number, v any) error {
	list, _ := v.([]any)
	for _, p := range list {
		pm := p.(map[string]any)
		in := str(pm["in"])
		if in != "body" && in != "query" && in != "path" {
			continue
		}
		w.begin(field) // ParametersItem
		w.begin(1)     // Parameter
		var err error
		if in == "body" {
			w.begin(1) // BodyParameter
			w.str(1, str(pm["description"]))
			w.str(2, str(pm["name"]))
			w.str(3, in)
			w.boolean(4, pm["required"] == true)
			if s, ok := pm["schema"]; ok {
				w.begin(5)
				err = w.schemaFields(s)
				w.end()
			}
			w.end()
		} else {
			// QueryParameterSubSchema and PathParameterSubSchema number
			// their first fields alike; type and uniqueItems differ.
			w.begin(2) // NonBodyParameter
			if in == "query" {
				w.begin(3)
			} else {
				w.begin(4)
			}
			w.boolean(1, pm["required"] == true)
			w.str(2, in)
			w.str(3, str(pm["description"]))
			w.str(4, str(pm["name"]))
			if in == "query" {
				w.str(6, str(pm["type"]))
				w.boolean(20, pm["uniqueItems"] == true)
			} else {
				w.str(5, str(pm["type"]))
				w.boolean(19, pm["uniqueItems"] == true)
			}
			w.end()
			w.end()
		}
		w.end()
		w.end()
		if err != nil {
			return err
		}
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

// schemaFields writes the fields of a Schema.
func (w *protoWriter) schemaFields(v any) error {
	s, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("a schema must be an object, not %T", v)
	}
	for _, k := range w.sortedKeys(s) {
		if err := w.schemaField(k, s[k]); err != nil {
			return err
		}
	}
	return nil
}

// sub writes a nested Schema as field.
func (w *protoWriter) sub(field protowire.Number, v any) error {
	w.begin(field)
	err := w.schemaFields(v)
	w.end()
	return err
}

func (w *protoWriter) schemaField(k string, val any) error {
	switch {
	case schemaStrings[k] != 0:
		w.str(schemaStrings[k], str(val))
	case schemaDoubles[k] != 0:
		if f, ok := toFloat(val); ok {
			w.double(schemaDoubles[k], f)
		}
	case schemaInts[k] != 0:
		if i, ok := toInt(val); ok {
			w.int64(schemaInts[k], i)
		}
	case schemaBools[k] != 0:
		w.boolean(schemaBools[k], val == true)
	case k == "default":
		return w.anyYAML(5, val)
	case k == "example":
		return w.anyYAML(30, val)
	case k == "required":
		w.strings(19, val)
	case k == "enum":
		list, _ := val.([]any)
		for _, e := range list {
			if err := w.anyYAML(20, e); err != nil {
				return err
			}
		}
	case k == "additionalProperties":
		w.begin(21) // AdditionalPropertiesItem
		var err error
		if b, isBool := val.(bool); isBool {
			w.varint(2, protowire.EncodeBool(b))
		} else {
			err = w.sub(1, val)
		}
		w.end()
		return err
	case k == "type":
		w.begin(22) // TypeItem{repeated value = 1}
		if list, isList := val.([]any); isList {
			w.strings(1, list)
		} else {
			w.strings(1, []any{val})
		}
		w.end()
	case k == "items":
		w.begin(23) // ItemsItem{repeated schema = 1}
		err := w.sub(1, val)
		w.end()
		return err
	case k == "allOf":
		list, _ := val.([]any)
		for _, e := range list {
			if err := w.sub(24, e); err != nil {
				return err
			}
		}
	case k == "properties":
		props, _ := val.(map[string]any)
		w.begin(25) // Properties{repeated NamedSchema = 1}
		var err error
		for _, name := range w.sortedKeys(props) {
			w.begin(1)
			w.str(1, name)
			if err = w.sub(2, props[name]); err != nil {
				err = fmt.Errorf("%s: %w", name, err)
			}
			w.end()
			if err != nil {
				break
			}
		}
		w.end()
		return err
	case strings.HasPrefix(k, "x-"):
		return w.namedAny(31, k, val)
	}
	return nil
}
