package cel

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/kubesim/kubesim/api"
)

// Sizes the cost estimator assumes for values it cannot see, in JSON bytes
// (k8s.io/apiserver/pkg/cel/limits.go).
const (
	minStringSize       = 2  // ""
	minBoolSize         = 4  // true
	minNumberSize       = 1  // 0
	minDurationSizeJSON = 3  // "0"
	jsonDateSize        = 12 // "YYYY-MM-DD"
	minDatetimeSizeJSON = 21 // "YYYY-MM-DDTHH:MM:SS"
	maxDurationSizeJSON = 32
	maxDatetimeSizeJSON = 64
)

// declType is what a schema node looks like to the CEL type checker, the
// counterpart of Kubernetes' DeclType (k8s.io/apiserver/pkg/cel/types.go):
// an object with known fields, a list, a map, or a scalar. Nodes CEL cannot
// see (an untyped node that is not int-or-string, a list without items)
// have no declType, and their parent leaves them out.
type declType struct {
	// name is the type's qualified name for objects ("selfType0.spec"),
	// by which the type provider finds their fields.
	name    string
	celType *cel.Type
	// fields maps the escaped CEL name of each field (a-b becomes
	// a__dash__b) to its field.
	fields map[string]*declField
	// byJSONName maps a field's name in the object to its field.
	byJSONName   map[string]*declField
	elem         *declType // lists and maps
	isList       bool
	isMap        bool
	scalar       string // for converting values: "double", "timestamp", "duration", "bytes"
	maxElements  int64  // most characters, items or properties a value can have
	minSize      int64  // fewest JSON bytes a value takes
	needsConvert bool   // values below differ from their decoded JSON (numbers, formats, escaped names)
}

type declField struct {
	jsonName, celName string
	typ               *declType
}

func (t *declType) isObject() bool { return t.fields != nil }

// schemaDeclType declares schema s to CEL, as SchemaDeclType does in
// k8s.io/apiserver/pkg/cel/common/schemas.go. At the root of a resource
// (the custom resource, or an x-kubernetes-embedded-resource object)
// apiVersion, kind, metadata.name and metadata.generateName are always
// there. Objects with x-kubernetes-preserve-unknown-fields expose only
// their declared fields: CEL sees no data it has no schema for.
func schemaDeclType(s *api.JSONSchemaProps, isResourceRoot bool, name string) *declType {
	if s == nil {
		return nil
	}
	if s.XIntOrString {
		max := int64(MaxRequestSizeBytes - 2)
		if s.MaxLength != nil {
			max = zeroIfNegative(*s.MaxLength) * 4
		}
		return &declType{celType: cel.DynType, minSize: 1, maxElements: max}
	}
	if isResourceRoot {
		s = withTypeAndObjectMeta(s)
	}
	switch s.Type {
	case "array":
		if s.Items == nil || s.Items.Schema == nil {
			return nil
		}
		item := schemaDeclType(s.Items.Schema, s.Items.Schema.XEmbeddedResource, name+".@idx")
		if item == nil {
			return nil
		}
		max := (int64(MaxRequestSizeBytes) - 2) / (item.minSize + 1)
		if s.MaxItems != nil {
			max = zeroIfNegative(*s.MaxItems)
		}
		return &declType{celType: cel.ListType(item.celType), elem: item, isList: true,
			maxElements: max, minSize: 2, needsConvert: item.needsConvert}
	case "object":
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			ap := s.AdditionalProperties.Schema
			elem := schemaDeclType(ap, ap.XEmbeddedResource, name+".@elem")
			if elem == nil {
				return nil
			}
			// "":x, — the key's quotes, colon and comma around the value
			max := (int64(MaxRequestSizeBytes) - 2) / (elem.minSize + 6)
			if s.MaxProperties != nil {
				max = zeroIfNegative(*s.MaxProperties)
			}
			return &declType{celType: cel.MapType(cel.StringType, elem.celType), elem: elem, isMap: true,
				maxElements: max, minSize: 2, needsConvert: elem.needsConvert}
		}
		t := &declType{name: name, celType: cel.ObjectType(name), fields: map[string]*declField{},
			byJSONName: map[string]*declField{}, minSize: 2, maxElements: int64(len(s.Properties))}
		required := map[string]bool{}
		for _, r := range s.Required {
			required[r] = true
		}
		for _, k := range sortedKeys(s.Properties) {
			prop := s.Properties[k]
			celName, ok := escapeFieldName(k)
			ft := schemaDeclType(&prop, prop.XEmbeddedResource, name+"."+celName)
			if ft == nil {
				continue
			}
			if ok {
				f := &declField{jsonName: k, celName: celName, typ: ft}
				t.fields[celName] = f
				t.byJSONName[k] = f
				t.needsConvert = t.needsConvert || ft.needsConvert || celName != k
			}
			// Only required fields without a default must be in every value.
			if required[k] && prop.Default == nil {
				t.minSize += int64(len(k)) + ft.minSize + 4
			}
		}
		return t
	case "string":
		maxPerRequest := int64(MaxRequestSizeBytes - 2)
		switch s.Format {
		case "byte":
			t := &declType{celType: cel.BytesType, scalar: "bytes", minSize: minStringSize, maxElements: maxPerRequest, needsConvert: true}
			if s.MaxLength != nil {
				t.maxElements = zeroIfNegative(*s.MaxLength)
			}
			return t
		case "duration":
			return &declType{celType: cel.DurationType, scalar: "duration", minSize: minDurationSizeJSON, maxElements: maxDurationSizeJSON, needsConvert: true}
		case "date":
			return &declType{celType: cel.TimestampType, scalar: "date", minSize: jsonDateSize, maxElements: jsonDateSize, needsConvert: true}
		case "date-time":
			return &declType{celType: cel.TimestampType, scalar: "timestamp", minSize: minDatetimeSizeJSON, maxElements: maxDatetimeSizeJSON, needsConvert: true}
		}
		t := &declType{celType: cel.StringType, minSize: minStringSize, maxElements: maxPerRequest}
		switch {
		case s.MaxLength != nil:
			// maxLength counts characters; a character is up to 4 bytes.
			t.maxElements = zeroIfNegative(*s.MaxLength) * 4
		case len(s.Enum) > 0:
			t.maxElements = 0
			for _, e := range s.Enum {
				var v string
				if json.Unmarshal(e.Raw, &v) == nil && int64(len(v)) > t.maxElements {
					t.maxElements = int64(len(v))
				}
			}
		}
		return t
	case "boolean":
		return &declType{celType: cel.BoolType, minSize: minBoolSize}
	case "number":
		return &declType{celType: cel.DoubleType, scalar: "double", minSize: minNumberSize, needsConvert: true}
	case "integer":
		return &declType{celType: cel.IntType, minSize: minNumberSize}
	}
	return nil
}

func zeroIfNegative(v int64) int64 {
	if v < 0 {
		return 0
	}
	return v
}

// withTypeAndObjectMeta adds apiVersion, kind and metadata (with name and
// generateName) to a resource root's schema unless they are all declared.
// Like Kubernetes, a metadata declared without both names is replaced: rules
// may read a resource's name, not its labels.
func withTypeAndObjectMeta(s *api.JSONSchemaProps) *api.JSONSchemaProps {
	md, hasMD := s.Properties["metadata"]
	if s.Properties["kind"].Type == "string" && s.Properties["apiVersion"].Type == "string" &&
		hasMD && md.Type == "object" && md.Properties["name"].Type == "string" && md.Properties["generateName"].Type == "string" {
		return s
	}
	out := *s
	out.Properties = make(map[string]api.JSONSchemaProps, len(s.Properties)+3)
	for k, p := range s.Properties {
		out.Properties[k] = p
	}
	str := api.JSONSchemaProps{Type: "string"}
	out.Properties["kind"] = str
	out.Properties["apiVersion"] = str
	out.Properties["metadata"] = api.JSONSchemaProps{Type: "object", Properties: map[string]api.JSONSchemaProps{"name": str, "generateName": str}}
	return &out
}

// celReservedSymbols may not be field names in CEL; Kubernetes exposes a
// field named like one as __name__.
var celReservedSymbols = map[string]bool{
	"true": true, "false": true, "null": true, "in": true, "as": true, "break": true, "const": true,
	"continue": true, "else": true, "for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true, "var": true, "void": true, "while": true,
}

var celIdent = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// escapeFieldName is the CEL name of a property, as Kubernetes' Escape
// makes it: __ becomes __underscores__, . __dot__, - __dash__, /
// __slash__, a reserved word is wrapped in __. ok is false when no CEL
// name can be made (the field is then not visible to rules).
func escapeFieldName(name string) (string, bool) {
	if celReservedSymbols[name] {
		return "__" + name + "__", true
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '_' && i+1 < len(name) && name[i+1] == '_':
			b.WriteString("__underscores__")
			i++
		case c == '.':
			b.WriteString("__dot__")
		case c == '-':
			b.WriteString("__dash__")
		case c == '/':
			b.WriteString("__slash__")
		default:
			b.WriteByte(c)
		}
	}
	out := b.String()
	return out, celIdent.MatchString(out)
}

// objectTypes lists the object types at and below t by name, for the type
// provider.
func objectTypes(t *declType, into map[string]*declType) map[string]*declType {
	if t == nil {
		return into
	}
	if t.isObject() {
		into[t.name] = t
		for _, f := range t.fields {
			objectTypes(f.typ, into)
		}
	}
	return objectTypes(t.elem, into)
}

// schemaTypeProvider tells the checker the fields of the schema's object
// types, so that self.spec.replicas is an int and self.spec.replicsa is an
// "undefined field". Everything else it asks the environment's own provider.
// Fields carry no accessor: at run time objects are plain maps read by key.
type schemaTypeProvider struct {
	types.Provider
	objects map[string]*declType
}

func (p *schemaTypeProvider) FindStructType(name string) (*types.Type, bool) {
	if t, ok := p.objects[name]; ok {
		return types.NewTypeTypeWithParam(t.celType), true
	}
	return p.Provider.FindStructType(name)
}

func (p *schemaTypeProvider) FindStructFieldNames(name string) ([]string, bool) {
	if t, ok := p.objects[name]; ok {
		return sortedKeys(t.fields), true
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p *schemaTypeProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	t, ok := p.objects[name]
	if !ok {
		return p.Provider.FindStructFieldType(name, field)
	}
	if f, ok := t.fields[field]; ok {
		return &types.FieldType{Type: f.typ.celType}, true
	}
	return nil, false
}

// typedValue turns decoded JSON of type t into what CEL expects of it:
// numbers as doubles, formatted strings as timestamps, durations and bytes,
// escaped field names. Parts that need nothing are shared, not copied.
func typedValue(v any, t *declType) any {
	if t == nil || !t.needsConvert || v == nil {
		return v
	}
	switch {
	case t.isObject():
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(m))
		for k, val := range m {
			if f, ok := t.byJSONName[k]; ok {
				out[f.celName] = typedValue(val, f.typ)
			} else {
				out[k] = val
			}
		}
		return out
	case t.isMap:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(m))
		for k, val := range m {
			out[k] = typedValue(val, t.elem)
		}
		return out
	case t.isList:
		l, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(l))
		for i, val := range l {
			out[i] = typedValue(val, t.elem)
		}
		return out
	}
	switch t.scalar {
	case "double":
		switch n := v.(type) {
		case json.Number:
			if f, err := n.Float64(); err == nil {
				return f
			}
		case int64:
			return float64(n)
		case int:
			return float64(n)
		}
	case "timestamp", "date":
		if s, ok := v.(string); ok {
			layout := time.RFC3339Nano
			if t.scalar == "date" {
				layout = time.DateOnly
			}
			if ts, err := time.Parse(layout, s); err == nil {
				return ts
			}
		}
	case "duration":
		if s, ok := v.(string); ok {
			if d, err := time.ParseDuration(s); err == nil {
				return d
			}
		}
	case "bytes":
		if s, ok := v.(string); ok {
			if b, err := base64.StdEncoding.DecodeString(s); err == nil {
				return b
			}
		}
	}
	return v
}

// DeclareResource extends env with the variables vars typed as a resource
// of schema s (a resource root: apiVersion, kind and metadata.name are always
// there), its object types named after typeName. This is how a
// ValidatingAdmissionPolicy's expressions are type-checked against the kinds
// they match. A schema CEL cannot see makes the variables dyn.
func DeclareResource(env *cel.Env, s *api.JSONSchemaProps, typeName string, vars ...string) (*cel.Env, error) {
	t := cel.DynType
	var opts []cel.EnvOption
	if decl := schemaDeclType(s, true, typeName); decl != nil {
		t = decl.celType
		opts = append(opts, cel.CustomTypeProvider(&schemaTypeProvider{Provider: env.CELTypeProvider(), objects: objectTypes(decl, map[string]*declType{})}))
	}
	for _, v := range vars {
		opts = append(opts, cel.Variable(v, t))
	}
	return env.Extend(opts...)
}
