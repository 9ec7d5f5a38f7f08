package schema

import (
	"encoding/json"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/api"
)

// FromGoType generates a structural schema from a Go type by reflection
// over its json tags, the job kube-openapi's openapi-gen does at build time
// for the built-in kinds. Rules:
//
//   - a field is named by its json tag (or Go name), "-" is skipped, and a
//     field without omitempty/omitzero is required;
//   - an embedded struct without a json name is inlined;
//   - pointers are followed; maps become additionalProperties; []byte is a
//     string of format byte; json.RawMessage and interfaces preserve unknown
//     fields, and so do api.RawExtension and any other struct that reads
//     its own JSON without OpenAPI methods (metav1.FieldsV1): objects;
//   - a type with OpenAPISchemaType() ([]string or string) and optionally
//     OpenAPISchemaFormat() string methods gets that type and format; the
//     format "int-or-string" becomes x-kubernetes-int-or-string;
//   - patchStrategy / patchMergeKey tags become x-kubernetes-patch-strategy
//     and x-kubernetes-patch-merge-key, and a merge list with a key is a
//     list-type map on that key (without a key, a set);
//   - descriptions come from the type's own documentation: k8s.io/api and
//     apimachinery generate a SwaggerDoc() map[string]string method per type
//     (types_swagger_doc_generated.go, from the same comments openapi-gen
//     reads), keyed by json name, "" for the type itself; a field's entry
//     describes the field, and a struct field without one keeps its type's;
//     a description tag, for kubesim's own types, wins over both;
//   - a type that contains itself is cut at the second visit with a node
//     that preserves unknown fields.
func FromGoType(t reflect.Type) *api.JSONSchemaProps {
	return NewGenerator().FromGoType(t)
}

// Generator is FromGoType for many types at once: a struct met again (a
// PodSpec in a Pod, a ReplicaSet, a Job, a CronJob and five more kinds,
// an ObjectMeta in every kind) is described once and its schema shared,
// where FromGoType describes it anew each time. The built-in kinds'
// schemas, which a server holds for as long as it runs, take 1.9 MiB this
// way against 10.8 MiB made one by one.
//
// The schemas it returns share their nodes, so they must be read only
// (validation, pruning, defaulting, OpenAPI and CEL all only read them);
// a caller that rewrites a schema must use FromGoType.
type Generator struct {
	g goSchemaGen
}

// NewGenerator returns a Generator with nothing described yet.
func NewGenerator() *Generator {
	return &Generator{g: goSchemaGen{visiting: map[reflect.Type]bool{}, done: map[reflect.Type]*api.JSONSchemaProps{}}}
}

// FromGoType is FromGoType, sharing what earlier calls described.
func (g *Generator) FromGoType(t reflect.Type) *api.JSONSchemaProps {
	return g.g.schema(t)
}

type goSchemaGen struct {
	visiting map[reflect.Type]bool
	// done holds the structs described, when sharing (Generator): only
	// those whose description is complete, without a node cut because
	// a type containing them was being described (cuts counts those),
	// since that cut depends on where the struct was met.
	done map[reflect.Type]*api.JSONSchemaProps
	cuts int
}

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

// jsonUnmarshalerType is what a type that reads its own JSON implements.
var jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// rawExtensionType is an embedded document of any shape (a
// ControllerRevision's data): an object whose fields are all kept.
var rawExtensionType = reflect.TypeOf(runtime.RawExtension{})

func ptrTo[T any](v T) *T { return &v }

// openAPIMethods calls OpenAPISchemaType/OpenAPISchemaFormat on the zero
// value of t (or of *t for pointer receivers).
func openAPIMethods(t reflect.Type) (typ, format string, ok bool) {
	v := reflect.New(t) // *T has the methods of T and *T
	m := v.MethodByName("OpenAPISchemaType")
	if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
		return "", "", false
	}
	out := m.Call(nil)[0]
	switch out.Kind() {
	case reflect.String:
		typ = out.String()
	case reflect.Slice:
		if out.Len() > 0 && out.Index(0).Kind() == reflect.String {
			typ = out.Index(0).String()
		}
	default:
		return "", "", false
	}
	if f := v.MethodByName("OpenAPISchemaFormat"); f.IsValid() && f.Type().NumIn() == 0 && f.Type().NumOut() == 1 && f.Type().Out(0).Kind() == reflect.String {
		format = f.Call(nil)[0].String()
	}
	return typ, format, true
}

func (g *goSchemaGen) schema(t reflect.Type) *api.JSONSchemaProps {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if typ, format, ok := openAPIMethods(t); ok {
		if format == "int-or-string" {
			return &api.JSONSchemaProps{XIntOrString: true}
		}
		return &api.JSONSchemaProps{Type: typ, Format: format}
	}
	if t == rawMessageType {
		return &api.JSONSchemaProps{XPreserveUnknownFields: ptrTo(true)}
	}
	if t == rawExtensionType {
		return &api.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptrTo(true)}
	}
	if t.Kind() == reflect.Struct && reflect.PointerTo(t).Implements(jsonUnmarshalerType) {
		// A struct that reads its own JSON and says nothing of its shape
		// (a managedFields entry's fieldsV1, an embedded document): its
		// Go fields are not its JSON fields, so every field it holds is
		// kept.
		return &api.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptrTo(true)}
	}
	switch t.Kind() {
	case reflect.Bool:
		return &api.JSONSchemaProps{Type: "boolean"}
	case reflect.String:
		return &api.JSONSchemaProps{Type: "string"}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16:
		return &api.JSONSchemaProps{Type: "integer", Format: "int32"}
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return &api.JSONSchemaProps{Type: "integer", Format: "int64"}
	case reflect.Float32:
		return &api.JSONSchemaProps{Type: "number", Format: "float"}
	case reflect.Float64:
		return &api.JSONSchemaProps{Type: "number", Format: "double"}
	case reflect.Interface:
		return &api.JSONSchemaProps{XPreserveUnknownFields: ptrTo(true)}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return &api.JSONSchemaProps{Type: "string", Format: "byte"}
		}
		return &api.JSONSchemaProps{Type: "array", Items: &api.JSONSchemaPropsOrArray{Schema: g.schema(t.Elem())}}
	case reflect.Map:
		return &api.JSONSchemaProps{Type: "object", AdditionalProperties: &api.JSONSchemaPropsOrBool{Allows: true, Schema: g.schema(t.Elem())}}
	case reflect.Struct:
		if s, ok := g.done[t]; ok {
			return s
		}
		if g.visiting[t] {
			g.cuts++
			return &api.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptrTo(true)}
		}
		g.visiting[t] = true
		defer delete(g.visiting, t)
		cuts := g.cuts
		s := &api.JSONSchemaProps{Type: "object", Description: swaggerDoc(t)[""]}
		g.fields(t, s)
		if g.done != nil && g.cuts == cuts {
			g.done[t] = s
		}
		return s
	}
	// Channels, funcs and the like have no JSON form.
	return &api.JSONSchemaProps{XPreserveUnknownFields: ptrTo(true)}
}

// swaggerDoc is the documentation generated for t (its SwaggerDoc method,
// which k8s.io/api declares on the value); nil when it has none.
func swaggerDoc(t reflect.Type) map[string]string {
	m := reflect.New(t).MethodByName("SwaggerDoc")
	if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
		return nil
	}
	doc, _ := m.Call(nil)[0].Interface().(map[string]string)
	return doc
}

func (g *goSchemaGen) fields(t reflect.Type, s *api.JSONSchemaProps) {
	// The fields are described by the type that declares them: an
	// inlined struct (TypeMeta, EphemeralContainerCommon) by its own.
	doc := swaggerDoc(t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		inline := strings.Contains(","+opts+",", ",inline,")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && (name == "" || inline) && ft.Kind() == reflect.Struct {
			if _, _, ok := openAPIMethods(ft); !ok {
				g.fields(ft, s)
				continue
			}
		}
		// Like encoding/json: an embedded struct of an unexported type
		// still has a JSON form; other unexported fields do not.
		if !f.IsExported() && !(f.Anonymous && ft.Kind() == reflect.Struct) {
			continue
		}
		if name == "" {
			name = f.Name
		}
		// A copy: the field's description and list type are the field's,
		// not its type's, whose schema may be shared (Generator).
		c := *g.schema(f.Type)
		prop := &c
		if d := doc[name]; d != "" {
			prop.Description = d
		}
		if d := f.Tag.Get("description"); d != "" {
			prop.Description = d
		}
		if ps := f.Tag.Get("patchStrategy"); ps != "" {
			prop.XPatchStrategy = ps
			key := f.Tag.Get("patchMergeKey")
			prop.XPatchMergeKey = key
			if prop.Type == "array" && strings.Contains(ps, "merge") {
				if key != "" {
					prop.XListType = ptrTo("map")
					prop.XListMapKeys = []string{key}
				} else {
					prop.XListType = ptrTo("set")
				}
			}
		}
		if s.Properties == nil {
			s.Properties = map[string]api.JSONSchemaProps{}
		}
		s.Properties[name] = *prop
		optional := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		if !optional {
			s.Required = append(s.Required, name)
		}
	}
}
