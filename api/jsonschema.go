package api

import (
	"bytes"
	"encoding/json"
	"errors"
)

// JSONSchemaProps is an OpenAPI v3 schema node with the JSON shape of
// apiextensions.k8s.io/v1 JSONSchemaProps. Custom resources carry one as
// their CRD's openAPIV3Schema; built-in kinds get one generated from their Go
// types, so that one piece of code (apiserver/schema) validates, defaults and
// prunes both.
type JSONSchemaProps struct {
	ID          string  `json:"id,omitempty"`
	Schema      string  `json:"$schema,omitempty"`
	Ref         *string `json:"$ref,omitempty"`
	Description string  `json:"description,omitempty"`
	Type        string  `json:"type,omitempty"`
	Format      string  `json:"format,omitempty"`
	Title       string  `json:"title,omitempty"`
	// Default is filled into objects where the field is missing.
	Default          *JSON    `json:"default,omitempty"`
	Maximum          *float64 `json:"maximum,omitempty"`
	ExclusiveMaximum bool     `json:"exclusiveMaximum,omitempty"`
	Minimum          *float64 `json:"minimum,omitempty"`
	ExclusiveMinimum bool     `json:"exclusiveMinimum,omitempty"`
	MaxLength        *int64   `json:"maxLength,omitempty"`
	MinLength        *int64   `json:"minLength,omitempty"`
	Pattern          string   `json:"pattern,omitempty"`
	MaxItems         *int64   `json:"maxItems,omitempty"`
	MinItems         *int64   `json:"minItems,omitempty"`
	UniqueItems      bool     `json:"uniqueItems,omitempty"`
	MultipleOf       *float64 `json:"multipleOf,omitempty"`
	Enum             []JSON   `json:"enum,omitempty"`
	MaxProperties    *int64   `json:"maxProperties,omitempty"`
	MinProperties    *int64   `json:"minProperties,omitempty"`
	Required         []string `json:"required,omitempty"`

	Items                *JSONSchemaPropsOrArray                 `json:"items,omitempty"`
	AllOf                []JSONSchemaProps                       `json:"allOf,omitempty"`
	OneOf                []JSONSchemaProps                       `json:"oneOf,omitempty"`
	AnyOf                []JSONSchemaProps                       `json:"anyOf,omitempty"`
	Not                  *JSONSchemaProps                        `json:"not,omitempty"`
	Properties           map[string]JSONSchemaProps              `json:"properties,omitempty"`
	AdditionalProperties *JSONSchemaPropsOrBool                  `json:"additionalProperties,omitempty"`
	PatternProperties    map[string]JSONSchemaProps              `json:"patternProperties,omitempty"`
	Dependencies         map[string]JSONSchemaPropsOrStringArray `json:"dependencies,omitempty"`
	AdditionalItems      *JSONSchemaPropsOrBool                  `json:"additionalItems,omitempty"`
	Definitions          map[string]JSONSchemaProps              `json:"definitions,omitempty"`
	ExternalDocs         *ExternalDocumentation                  `json:"externalDocs,omitempty"`
	Example              *JSON                                   `json:"example,omitempty"`
	Nullable             bool                                    `json:"nullable,omitempty"`

	// XPreserveUnknownFields stops pruning at this node (a pointer because
	// an explicit false inside a preserving parent turns pruning back on).
	XPreserveUnknownFields *bool `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	// XEmbeddedResource marks an object that is itself a Kubernetes object
	// (apiVersion, kind, metadata are kept and checked).
	XEmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty"`
	// XIntOrString accepts an integer or a string (IntOrString in Go).
	XIntOrString bool     `json:"x-kubernetes-int-or-string,omitempty"`
	XListMapKeys []string `json:"x-kubernetes-list-map-keys,omitempty"`
	// XListType is atomic, set or map: how server-side apply and patches
	// merge the list.
	XListType *string `json:"x-kubernetes-list-type,omitempty"`
	XMapType  *string `json:"x-kubernetes-map-type,omitempty"`
	// XValidations holds CEL rules; kubesim stores them but does not run them.
	XValidations []ValidationRule `json:"x-kubernetes-validations,omitempty"`
	// XPatchStrategy and XPatchMergeKey come from the patchStrategy and
	// patchMergeKey struct tags of built-in types (strategic merge patch).
	XPatchStrategy string `json:"x-kubernetes-patch-strategy,omitempty"`
	XPatchMergeKey string `json:"x-kubernetes-patch-merge-key,omitempty"`
}

// JSON holds a raw JSON value (a default, an enum member, an example) as
// written by the user, so that it round-trips unchanged.
type JSON struct {
	Raw []byte `json:"-"`
}

// MarshalJSON writes the raw value, or null when empty.
func (j JSON) MarshalJSON() ([]byte, error) {
	if len(j.Raw) > 0 {
		return j.Raw, nil
	}
	return []byte("null"), nil
}

// UnmarshalJSON keeps a copy of the raw value; a literal null is kept as
// empty Raw, as Kubernetes does.
func (j *JSON) UnmarshalJSON(data []byte) error {
	if j == nil {
		return errors.New("api.JSON: UnmarshalJSON on nil pointer")
	}
	if !bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		j.Raw = append(j.Raw[:0], data...)
	}
	return nil
}

// JSONSchemaPropsOrArray is the value of items: one schema for every
// element, or (not allowed in CRDs) one schema per position.
type JSONSchemaPropsOrArray struct {
	Schema      *JSONSchemaProps
	JSONSchemas []JSONSchemaProps
}

// MarshalJSON writes the array form when JSONSchemas is set (even empty,
// so that items: [] round-trips), else the schema.
func (s JSONSchemaPropsOrArray) MarshalJSON() ([]byte, error) {
	if s.JSONSchemas != nil {
		return json.Marshal(s.JSONSchemas)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON accepts an object or an array of objects.
func (s *JSONSchemaPropsOrArray) UnmarshalJSON(data []byte) error {
	var nw JSONSchemaPropsOrArray
	switch t := jsonFirstByte(data); t {
	case '{':
		var sch JSONSchemaProps
		if err := json.Unmarshal(data, &sch); err != nil {
			return err
		}
		nw.Schema = &sch
	case '[':
		if err := json.Unmarshal(data, &nw.JSONSchemas); err != nil {
			return err
		}
	case 'n':
	default:
		return errors.New("items must be a schema object or an array of schema objects")
	}
	*s = nw
	return nil
}

// JSONSchemaPropsOrBool is the value of additionalProperties and
// additionalItems: a boolean or a schema (a schema implies true).
type JSONSchemaPropsOrBool struct {
	Allows bool
	Schema *JSONSchemaProps
}

// MarshalJSON writes the schema when set, else the boolean.
func (s JSONSchemaPropsOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return json.Marshal(s.Allows)
}

// UnmarshalJSON accepts a boolean or an object.
func (s *JSONSchemaPropsOrBool) UnmarshalJSON(data []byte) error {
	var nw JSONSchemaPropsOrBool
	switch jsonFirstByte(data) {
	case '{':
		var sch JSONSchemaProps
		if err := json.Unmarshal(data, &sch); err != nil {
			return err
		}
		nw.Allows, nw.Schema = true, &sch
	case 't', 'f':
		if err := json.Unmarshal(data, &nw.Allows); err != nil {
			return err
		}
	case 'n':
	default:
		return errors.New("must be a boolean or a schema object")
	}
	*s = nw
	return nil
}

// JSONSchemaPropsOrStringArray is the value of a dependencies entry: a
// schema or a list of property names.
type JSONSchemaPropsOrStringArray struct {
	Schema   *JSONSchemaProps
	Property []string
}

// MarshalJSON writes the property list when set, else the schema.
func (s JSONSchemaPropsOrStringArray) MarshalJSON() ([]byte, error) {
	if s.Property != nil {
		return json.Marshal(s.Property)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON accepts an object or an array of strings.
func (s *JSONSchemaPropsOrStringArray) UnmarshalJSON(data []byte) error {
	var nw JSONSchemaPropsOrStringArray
	switch jsonFirstByte(data) {
	case '{':
		var sch JSONSchemaProps
		if err := json.Unmarshal(data, &sch); err != nil {
			return err
		}
		nw.Schema = &sch
	case '[':
		if err := json.Unmarshal(data, &nw.Property); err != nil {
			return err
		}
	case 'n':
	default:
		return errors.New("must be a schema object or an array of strings")
	}
	*s = nw
	return nil
}

// ExternalDocumentation points at more documentation for a schema node.
type ExternalDocumentation struct {
	Description string `json:"description,omitempty"`
	URL         string `json:"url,omitempty"`
}

// ValidationRule is one x-kubernetes-validations CEL rule. kubesim keeps
// the rules so that they round-trip, but does not evaluate CEL.
type ValidationRule struct {
	Rule              string  `json:"rule"`
	Message           string  `json:"message,omitempty"`
	MessageExpression string  `json:"messageExpression,omitempty"`
	Reason            *string `json:"reason,omitempty"`
	FieldPath         string  `json:"fieldPath,omitempty"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf,omitempty"`
}

// jsonFirstByte is the first non-space byte of a JSON document, which tells the
// union types above which shape they hold.
func jsonFirstByte(data []byte) byte {
	d := bytes.TrimSpace(data)
	if len(d) == 0 {
		return 0
	}
	return d[0]
}

// DeepCopyInto copies the raw bytes.
func (j *JSON) DeepCopyInto(out *JSON) {
	*out = *j
	if j.Raw != nil {
		out.Raw = append([]byte(nil), j.Raw...)
	}
}

// DeepCopy returns an independent copy.
func (j *JSON) DeepCopy() *JSON {
	if j == nil {
		return nil
	}
	out := new(JSON)
	j.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies every node of the schema.
func (in *JSONSchemaProps) DeepCopyInto(out *JSONSchemaProps) {
	*out = *in
	out.Ref = jsonSchemaCopyPtr(in.Ref)
	out.Default = in.Default.DeepCopy()
	out.Maximum = jsonSchemaCopyPtr(in.Maximum)
	out.Minimum = jsonSchemaCopyPtr(in.Minimum)
	out.MaxLength = jsonSchemaCopyPtr(in.MaxLength)
	out.MinLength = jsonSchemaCopyPtr(in.MinLength)
	out.MaxItems = jsonSchemaCopyPtr(in.MaxItems)
	out.MinItems = jsonSchemaCopyPtr(in.MinItems)
	out.MultipleOf = jsonSchemaCopyPtr(in.MultipleOf)
	out.MaxProperties = jsonSchemaCopyPtr(in.MaxProperties)
	out.MinProperties = jsonSchemaCopyPtr(in.MinProperties)
	if in.Enum != nil {
		out.Enum = make([]JSON, len(in.Enum))
		for i := range in.Enum {
			in.Enum[i].DeepCopyInto(&out.Enum[i])
		}
	}
	out.Required = jsonSchemaCopySlice(in.Required)
	if in.Items != nil {
		out.Items = in.Items.DeepCopy()
	}
	out.AllOf = jsonSchemaCopyList(in.AllOf)
	out.OneOf = jsonSchemaCopyList(in.OneOf)
	out.AnyOf = jsonSchemaCopyList(in.AnyOf)
	out.Not = in.Not.DeepCopy()
	out.Properties = jsonSchemaCopyMap(in.Properties)
	out.AdditionalProperties = in.AdditionalProperties.DeepCopy()
	out.PatternProperties = jsonSchemaCopyMap(in.PatternProperties)
	if in.Dependencies != nil {
		out.Dependencies = make(map[string]JSONSchemaPropsOrStringArray, len(in.Dependencies))
		for k, v := range in.Dependencies {
			out.Dependencies[k] = JSONSchemaPropsOrStringArray{Schema: v.Schema.DeepCopy(), Property: jsonSchemaCopySlice(v.Property)}
		}
	}
	out.AdditionalItems = in.AdditionalItems.DeepCopy()
	out.Definitions = jsonSchemaCopyMap(in.Definitions)
	out.ExternalDocs = jsonSchemaCopyPtr(in.ExternalDocs)
	out.Example = in.Example.DeepCopy()
	out.XPreserveUnknownFields = jsonSchemaCopyPtr(in.XPreserveUnknownFields)
	out.XListMapKeys = jsonSchemaCopySlice(in.XListMapKeys)
	out.XListType = jsonSchemaCopyPtr(in.XListType)
	out.XMapType = jsonSchemaCopyPtr(in.XMapType)
	if in.XValidations != nil {
		out.XValidations = make([]ValidationRule, len(in.XValidations))
		for i, r := range in.XValidations {
			r.Reason = jsonSchemaCopyPtr(r.Reason)
			r.OptionalOldSelf = jsonSchemaCopyPtr(r.OptionalOldSelf)
			out.XValidations[i] = r
		}
	}
}

// DeepCopy returns an independent copy of the schema.
func (in *JSONSchemaProps) DeepCopy() *JSONSchemaProps {
	if in == nil {
		return nil
	}
	out := new(JSONSchemaProps)
	in.DeepCopyInto(out)
	return out
}

// DeepCopy returns an independent copy.
func (in *JSONSchemaPropsOrArray) DeepCopy() *JSONSchemaPropsOrArray {
	if in == nil {
		return nil
	}
	return &JSONSchemaPropsOrArray{Schema: in.Schema.DeepCopy(), JSONSchemas: jsonSchemaCopyList(in.JSONSchemas)}
}

// DeepCopy returns an independent copy.
func (in *JSONSchemaPropsOrBool) DeepCopy() *JSONSchemaPropsOrBool {
	if in == nil {
		return nil
	}
	return &JSONSchemaPropsOrBool{Allows: in.Allows, Schema: in.Schema.DeepCopy()}
}

func jsonSchemaCopyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func jsonSchemaCopySlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

func jsonSchemaCopyList(in []JSONSchemaProps) []JSONSchemaProps {
	if in == nil {
		return nil
	}
	out := make([]JSONSchemaProps, len(in))
	for i := range in {
		in[i].DeepCopyInto(&out[i])
	}
	return out
}

func jsonSchemaCopyMap(in map[string]JSONSchemaProps) map[string]JSONSchemaProps {
	if in == nil {
		return nil
	}
	out := make(map[string]JSONSchemaProps, len(in))
	for k, v := range in {
		var c JSONSchemaProps
		v.DeepCopyInto(&c)
		out[k] = c
	}
	return out
}
