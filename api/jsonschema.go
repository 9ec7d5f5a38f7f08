package api

import (
	"bytes"
	"encoding/json"
	"errors"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// JSONSchemaProps is an OpenAPI v3 schema node with the JSON shape of
// apiextensions.k8s.io/v1 JSONSchemaProps. Custom resources carry one as
// their CRD's openAPIV3Schema; built-in kinds get one generated from their Go
// types, so that one piece of code (apiserver/schema) validates, defaults and
// prunes both.
// +k8s:deepcopy-gen=true
type JSONSchemaProps struct {
	ID          string  `json:"id,omitempty" protobuf:"bytes,1,opt,name=id"`
	Schema      string  `json:"$schema,omitempty" protobuf:"bytes,2,opt,name=schema"`
	Ref         *string `json:"$ref,omitempty" protobuf:"bytes,3,opt,name=ref"`
	Description string  `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	Type        string  `json:"type,omitempty" protobuf:"bytes,5,opt,name=type"`
	Format      string  `json:"format,omitempty" protobuf:"bytes,6,opt,name=format"`
	Title       string  `json:"title,omitempty" protobuf:"bytes,7,opt,name=title"`
	// Default is filled into objects where the field is missing.
	Default          *JSON    `json:"default,omitempty" protobuf:"bytes,8,opt,name=default"`
	Maximum          *float64 `json:"maximum,omitempty" protobuf:"bytes,9,opt,name=maximum"`
	ExclusiveMaximum bool     `json:"exclusiveMaximum,omitempty" protobuf:"bytes,10,opt,name=exclusiveMaximum"`
	Minimum          *float64 `json:"minimum,omitempty" protobuf:"bytes,11,opt,name=minimum"`
	ExclusiveMinimum bool     `json:"exclusiveMinimum,omitempty" protobuf:"bytes,12,opt,name=exclusiveMinimum"`
	MaxLength        *int64   `json:"maxLength,omitempty" protobuf:"bytes,13,opt,name=maxLength"`
	MinLength        *int64   `json:"minLength,omitempty" protobuf:"bytes,14,opt,name=minLength"`
	Pattern          string   `json:"pattern,omitempty" protobuf:"bytes,15,opt,name=pattern"`
	MaxItems         *int64   `json:"maxItems,omitempty" protobuf:"bytes,16,opt,name=maxItems"`
	MinItems         *int64   `json:"minItems,omitempty" protobuf:"bytes,17,opt,name=minItems"`
	UniqueItems      bool     `json:"uniqueItems,omitempty" protobuf:"bytes,18,opt,name=uniqueItems"`
	MultipleOf       *float64 `json:"multipleOf,omitempty" protobuf:"bytes,19,opt,name=multipleOf"`
	Enum             []JSON   `json:"enum,omitempty" protobuf:"bytes,20,rep,name=enum"`
	MaxProperties    *int64   `json:"maxProperties,omitempty" protobuf:"bytes,21,opt,name=maxProperties"`
	MinProperties    *int64   `json:"minProperties,omitempty" protobuf:"bytes,22,opt,name=minProperties"`
	Required         []string `json:"required,omitempty" protobuf:"bytes,23,rep,name=required"`

	Items                *JSONSchemaPropsOrArray                 `json:"items,omitempty" protobuf:"bytes,24,opt,name=items"`
	AllOf                []JSONSchemaProps                       `json:"allOf,omitempty" protobuf:"bytes,25,rep,name=allOf"`
	OneOf                []JSONSchemaProps                       `json:"oneOf,omitempty" protobuf:"bytes,26,rep,name=oneOf"`
	AnyOf                []JSONSchemaProps                       `json:"anyOf,omitempty" protobuf:"bytes,27,rep,name=anyOf"`
	Not                  *JSONSchemaProps                        `json:"not,omitempty" protobuf:"bytes,28,opt,name=not"`
	Properties           map[string]JSONSchemaProps              `json:"properties,omitempty" protobuf:"bytes,29,rep,name=properties"`
	AdditionalProperties *JSONSchemaPropsOrBool                  `json:"additionalProperties,omitempty" protobuf:"bytes,30,opt,name=additionalProperties"`
	PatternProperties    map[string]JSONSchemaProps              `json:"patternProperties,omitempty" protobuf:"bytes,31,rep,name=patternProperties"`
	Dependencies         map[string]JSONSchemaPropsOrStringArray `json:"dependencies,omitempty" protobuf:"bytes,32,opt,name=dependencies"`
	AdditionalItems      *JSONSchemaPropsOrBool                  `json:"additionalItems,omitempty" protobuf:"bytes,33,opt,name=additionalItems"`
	Definitions          map[string]JSONSchemaProps              `json:"definitions,omitempty" protobuf:"bytes,34,opt,name=definitions"`
	ExternalDocs         *ExternalDocumentation                  `json:"externalDocs,omitempty" protobuf:"bytes,35,opt,name=externalDocs"`
	Example              *JSON                                   `json:"example,omitempty" protobuf:"bytes,36,opt,name=example"`
	Nullable             bool                                    `json:"nullable,omitempty" protobuf:"bytes,37,opt,name=nullable"`

	// XPreserveUnknownFields stops pruning at this node (a pointer because
	// an explicit false inside a preserving parent turns pruning back on).
	XPreserveUnknownFields *bool `json:"x-kubernetes-preserve-unknown-fields,omitempty" protobuf:"bytes,38,opt,name=xKubernetesPreserveUnknownFields"`
	// XEmbeddedResource marks an object that is itself a Kubernetes object
	// (apiVersion, kind, metadata are kept and checked).
	XEmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty" protobuf:"bytes,39,opt,name=xKubernetesEmbeddedResource"`
	// XIntOrString accepts an integer or a string (IntOrString in Go).
	XIntOrString bool     `json:"x-kubernetes-int-or-string,omitempty" protobuf:"bytes,40,opt,name=xKubernetesIntOrString"`
	XListMapKeys []string `json:"x-kubernetes-list-map-keys,omitempty" protobuf:"bytes,41,rep,name=xKubernetesListMapKeys"`
	// XListType is atomic, set or map: how server-side apply and patches
	// merge the list.
	XListType *string `json:"x-kubernetes-list-type,omitempty" protobuf:"bytes,42,opt,name=xKubernetesListType"`
	XMapType  *string `json:"x-kubernetes-map-type,omitempty" protobuf:"bytes,43,opt,name=xKubernetesMapType"`
	// XValidations holds CEL rules, run by apiserver/cel.
	XValidations []ValidationRule `json:"x-kubernetes-validations,omitempty" protobuf:"bytes,44,rep,name=xKubernetesValidations"`
	// XPatchStrategy and XPatchMergeKey come from the patchStrategy and
	// patchMergeKey struct tags of built-in types (strategic merge patch).
	// They are kubesim's own, for the schemas of built-in kinds, and not
	// in the API: protobuf leaves them out.
	XPatchStrategy string `json:"x-kubernetes-patch-strategy,omitempty" protobuf:"-"`
	XPatchMergeKey string `json:"x-kubernetes-patch-merge-key,omitempty" protobuf:"-"`
}

// JSON holds a raw JSON value (a default, an enum member, an example) as
// written by the user, so that it round-trips unchanged.
// +k8s:deepcopy-gen=true
type JSON struct {
	Raw []byte `json:"-" protobuf:"bytes,1,opt,name=raw"`
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
// +k8s:deepcopy-gen=true
type JSONSchemaPropsOrArray struct {
	Schema      *JSONSchemaProps  `protobuf:"bytes,1,opt,name=schema"`
	JSONSchemas []JSONSchemaProps `protobuf:"bytes,2,rep,name=jSONSchemas"`
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
// +k8s:deepcopy-gen=true
type JSONSchemaPropsOrBool struct {
	Allows bool             `protobuf:"varint,1,opt,name=allows"`
	Schema *JSONSchemaProps `protobuf:"bytes,2,opt,name=schema"`
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
// +k8s:deepcopy-gen=true
type JSONSchemaPropsOrStringArray struct {
	Schema   *JSONSchemaProps `protobuf:"bytes,1,opt,name=schema"`
	Property []string         `protobuf:"bytes,2,rep,name=property"`
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
// +k8s:deepcopy-gen=true
type ExternalDocumentation struct {
	Description string `json:"description,omitempty" protobuf:"bytes,1,opt,name=description"`
	URL         string `json:"url,omitempty" protobuf:"bytes,2,opt,name=url"`
}

// ValidationRule is one x-kubernetes-validations CEL rule.
// +k8s:deepcopy-gen=true
type ValidationRule struct {
	Rule              string  `json:"rule" protobuf:"bytes,1,opt,name=rule"`
	Message           string  `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	MessageExpression string  `json:"messageExpression,omitempty" protobuf:"bytes,3,opt,name=messageExpression"`
	Reason            *string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	FieldPath         string  `json:"fieldPath,omitempty" protobuf:"bytes,5,opt,name=fieldPath"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf,omitempty" protobuf:"bytes,6,opt,name=optionalOldSelf"`
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

// SchemaFromCRD returns a CRD version's schema (apiextensions/v1's
// JSONSchemaProps) as the schema machinery's JSONSchemaProps, which also
// holds the schemas generated for built-in kinds: the same JSON read into
// the other type, as apiextensions-apiserver turns a CRD's schema into its
// own structural schema before it validates with it. A nil s gives nil.
func SchemaFromCRD(s *apiextensionsv1.JSONSchemaProps) *JSONSchemaProps {
	if s == nil {
		return nil
	}
	data, err := json.Marshal(s)
	if err != nil {
		panic("api: a CRD schema has no JSON form: " + err.Error())
	}
	out := new(JSONSchemaProps)
	if err := json.Unmarshal(data, out); err != nil {
		panic("api: a CRD schema's JSON is not a JSONSchemaProps: " + err.Error())
	}
	return out
}
