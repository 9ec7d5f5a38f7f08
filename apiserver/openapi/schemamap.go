package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/kubesim/kubesim/api"
)

// schemaMap turns s into generic JSON (map[string]any, []any, string,
// bool, json.Number, nil), numbers kept exact; a missing schema accepts
// anything.
//
// It gives what encoding s with encoding/json and decoding the bytes with
// UseNumber gives, field by field, without the round trip: the built-in
// kinds' schemas carry every field's description, and the round trip
// through reflection was most of the cost of building a document
// (TestSchemaMapIsTheJSONRoundTrip holds the two together, and fails when
// api.JSONSchemaProps gains a field this function does not know).
func schemaMap(s *api.JSONSchemaProps) (map[string]any, error) {
	if s == nil {
		return map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}, nil
	}
	return propsMap(s)
}

// propsMap converts one schema node; each key is written under the JSON
// name and omitempty rule of its api.JSONSchemaProps field.
func propsMap(s *api.JSONSchemaProps) (map[string]any, error) {
	m := map[string]any{}
	str := func(key, v string) {
		if v != "" {
			m[key] = v
		}
	}
	strPtr := func(key string, v *string) {
		if v != nil {
			m[key] = *v
		}
	}
	boolean := func(key string, v bool) {
		if v {
			m[key] = true
		}
	}
	integer := func(key string, v *int64) {
		if v != nil {
			m[key] = json.Number(strconv.FormatInt(*v, 10))
		}
	}
	strs := func(key string, v []string) {
		if len(v) > 0 {
			m[key] = stringList(v)
		}
	}
	var err error
	number := func(key string, v *float64) {
		if v != nil && err == nil {
			// encoding/json's own spelling of a float (1e+21, 0.5).
			var b []byte
			if b, err = json.Marshal(*v); err == nil {
				m[key] = json.Number(b)
			}
		}
	}
	raw := func(key string, v *api.JSON) {
		if v != nil && err == nil {
			m[key], err = rawValue(*v)
		}
	}
	schemas := func(key string, v []api.JSONSchemaProps) {
		if len(v) > 0 && err == nil {
			m[key], err = schemaList(v)
		}
	}
	schemaMaps := func(key string, v map[string]api.JSONSchemaProps) {
		if len(v) > 0 && err == nil {
			m[key], err = schemaByName(v)
		}
	}
	orBool := func(key string, v *api.JSONSchemaPropsOrBool) {
		if v == nil || err != nil {
			return
		}
		if v.Schema != nil {
			m[key], err = propsMap(v.Schema)
			return
		}
		m[key] = v.Allows
	}

	str("id", s.ID)
	str("$schema", s.Schema)
	strPtr("$ref", s.Ref)
	str("description", s.Description)
	str("type", s.Type)
	str("format", s.Format)
	str("title", s.Title)
	raw("default", s.Default)
	number("maximum", s.Maximum)
	boolean("exclusiveMaximum", s.ExclusiveMaximum)
	number("minimum", s.Minimum)
	boolean("exclusiveMinimum", s.ExclusiveMinimum)
	integer("maxLength", s.MaxLength)
	integer("minLength", s.MinLength)
	str("pattern", s.Pattern)
	integer("maxItems", s.MaxItems)
	integer("minItems", s.MinItems)
	boolean("uniqueItems", s.UniqueItems)
	number("multipleOf", s.MultipleOf)
	if len(s.Enum) > 0 && err == nil {
		enum := make([]any, len(s.Enum))
		for i := range s.Enum {
			if enum[i], err = rawValue(s.Enum[i]); err != nil {
				break
			}
		}
		m["enum"] = enum
	}
	integer("maxProperties", s.MaxProperties)
	integer("minProperties", s.MinProperties)
	strs("required", s.Required)
	if s.Items != nil && err == nil {
		switch {
		case s.Items.JSONSchemas != nil:
			// The array form, even empty, as JSONSchemaPropsOrArray
			// writes it.
			m["items"], err = schemaList(s.Items.JSONSchemas)
		case s.Items.Schema != nil:
			m["items"], err = propsMap(s.Items.Schema)
		default:
			m["items"] = nil
		}
	}
	schemas("allOf", s.AllOf)
	schemas("oneOf", s.OneOf)
	schemas("anyOf", s.AnyOf)
	if s.Not != nil && err == nil {
		m["not"], err = propsMap(s.Not)
	}
	schemaMaps("properties", s.Properties)
	orBool("additionalProperties", s.AdditionalProperties)
	schemaMaps("patternProperties", s.PatternProperties)
	if len(s.Dependencies) > 0 && err == nil {
		deps := make(map[string]any, len(s.Dependencies))
		for name, d := range s.Dependencies {
			switch {
			case d.Property != nil:
				deps[name] = stringList(d.Property)
			case d.Schema != nil:
				if deps[name], err = propsMap(d.Schema); err != nil {
					return nil, err
				}
			default:
				deps[name] = nil
			}
		}
		m["dependencies"] = deps
	}
	orBool("additionalItems", s.AdditionalItems)
	schemaMaps("definitions", s.Definitions)
	if d := s.ExternalDocs; d != nil {
		docs := map[string]any{}
		if d.Description != "" {
			docs["description"] = d.Description
		}
		if d.URL != "" {
			docs["url"] = d.URL
		}
		m["externalDocs"] = docs
	}
	raw("example", s.Example)
	boolean("nullable", s.Nullable)
	if s.XPreserveUnknownFields != nil {
		m["x-kubernetes-preserve-unknown-fields"] = *s.XPreserveUnknownFields
	}
	boolean("x-kubernetes-embedded-resource", s.XEmbeddedResource)
	boolean("x-kubernetes-int-or-string", s.XIntOrString)
	strs("x-kubernetes-list-map-keys", s.XListMapKeys)
	strPtr("x-kubernetes-list-type", s.XListType)
	strPtr("x-kubernetes-map-type", s.XMapType)
	if len(s.XValidations) > 0 {
		rules := make([]any, len(s.XValidations))
		for i, v := range s.XValidations {
			rule := map[string]any{"rule": v.Rule}
			if v.Message != "" {
				rule["message"] = v.Message
			}
			if v.MessageExpression != "" {
				rule["messageExpression"] = v.MessageExpression
			}
			if v.Reason != nil {
				rule["reason"] = *v.Reason
			}
			if v.FieldPath != "" {
				rule["fieldPath"] = v.FieldPath
			}
			if v.OptionalOldSelf != nil {
				rule["optionalOldSelf"] = *v.OptionalOldSelf
			}
			rules[i] = rule
		}
		m["x-kubernetes-validations"] = rules
	}
	str("x-kubernetes-patch-strategy", s.XPatchStrategy)
	str("x-kubernetes-patch-merge-key", s.XPatchMergeKey)
	if err != nil {
		return nil, err
	}
	return m, nil
}

func schemaList(list []api.JSONSchemaProps) ([]any, error) {
	out := make([]any, len(list))
	for i := range list {
		m, err := propsMap(&list[i])
		if err != nil {
			return nil, err
		}
		out[i] = m
	}
	return out, nil
}

func schemaByName(props map[string]api.JSONSchemaProps) (map[string]any, error) {
	out := make(map[string]any, len(props))
	for name, p := range props {
		m, err := propsMap(&p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = m
	}
	return out, nil
}

func stringList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// rawValue decodes a default, enum member or example, numbers kept
// exact; an empty one is null, as api.JSON writes it.
func rawValue(v api.JSON) (any, error) {
	if len(v.Raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(v.Raw))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("invalid JSON value %q", v.Raw)
	}
	return out, nil
}
