package openapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/kinds"
)

// roundTrip is what schemaMap stands for: s encoded by encoding/json and
// decoded with UseNumber.
func roundTrip(t *testing.T, s *api.JSONSchemaProps) map[string]any {
	t.Helper()
	data, err := json.Marshal(s)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	require.NoError(t, dec.Decode(&m))
	return m
}

// everyField sets every field of a schema, nested unions in each of their
// shapes.
func everyField() *api.JSONSchemaProps {
	str := func(s string) *string { return &s }
	yes, no := true, false
	leaf := api.JSONSchemaProps{Type: "string", Description: "a <leaf> & \u2028 more"}
	return &api.JSONSchemaProps{
		ID: "id", Schema: "http://json-schema.org/draft-04/schema#", Ref: str("#/definitions/x"),
		Description: "every field", Type: "object", Format: "int-or-string", Title: "title",
		Default: &api.JSON{Raw: []byte(` {"a": [1, 12345678901234567890, 1.50, null]} `)},
		Maximum: float64p(1e21), ExclusiveMaximum: true, Minimum: float64p(-0.000001), ExclusiveMinimum: true,
		MaxLength: int64p(63), MinLength: int64p(0), Pattern: "^[a-z]+$", MaxItems: int64p(-1), MinItems: int64p(1),
		UniqueItems: true, MultipleOf: float64p(0.5),
		Enum:          []api.JSON{{Raw: []byte(`"a"`)}, {Raw: []byte(`2`)}, {}},
		MaxProperties: int64p(9), MinProperties: int64p(1), Required: []string{"a", "b"},
		Items: &api.JSONSchemaPropsOrArray{JSONSchemas: []api.JSONSchemaProps{leaf,
			{Items: &api.JSONSchemaPropsOrArray{JSONSchemas: []api.JSONSchemaProps{}}},
			{Items: &api.JSONSchemaPropsOrArray{}},
			{Items: &api.JSONSchemaPropsOrArray{Schema: &leaf}}}},
		AllOf: []api.JSONSchemaProps{leaf}, OneOf: []api.JSONSchemaProps{leaf, {}}, AnyOf: []api.JSONSchemaProps{{Type: "integer"}},
		Not:        &leaf,
		Properties: map[string]api.JSONSchemaProps{"a": leaf, "b": {Properties: map[string]api.JSONSchemaProps{}, Required: []string{}}},
		AdditionalProperties: &api.JSONSchemaPropsOrBool{Schema: &api.JSONSchemaProps{
			AdditionalProperties:   &api.JSONSchemaPropsOrBool{Allows: false},
			AdditionalItems:        &api.JSONSchemaPropsOrBool{Allows: true},
			ExternalDocs:           &api.ExternalDocumentation{},
			Default:                &api.JSON{},
			XPreserveUnknownFields: &no,
		}},
		PatternProperties: map[string]api.JSONSchemaProps{"^x-": leaf},
		Dependencies: map[string]api.JSONSchemaPropsOrStringArray{
			"a": {Property: []string{"b"}}, "b": {Property: []string{}}, "c": {Schema: &leaf}, "d": {},
		},
		AdditionalItems: &api.JSONSchemaPropsOrBool{Allows: true, Schema: &leaf},
		Definitions:     map[string]api.JSONSchemaProps{"x": leaf},
		ExternalDocs:    &api.ExternalDocumentation{Description: "more", URL: "https://example.com"},
		Example:         &api.JSON{Raw: []byte(`{"b":true}`)},
		Nullable:        true, XPreserveUnknownFields: &yes, XEmbeddedResource: true, XIntOrString: true,
		XListMapKeys: []string{"name"}, XListType: str("map"), XMapType: str("granular"),
		XValidations: []api.ValidationRule{
			{Rule: "self.a > 0", Message: "m", MessageExpression: "'m'", Reason: str("FieldValueInvalid"), FieldPath: ".a", OptionalOldSelf: &yes},
			{},
		},
		XPatchStrategy: "merge", XPatchMergeKey: "name",
	}
}

// schemaMap gives what the round trip through encoding/json gives, for a
// schema that sets every field and for the schema of every built-in kind.
func TestSchemaMapIsTheJSONRoundTrip(t *testing.T) {
	s := everyField()
	v := reflect.ValueOf(*s)
	for i := range v.NumField() {
		assert.False(t, v.Field(i).IsZero(), "everyField leaves %s unset: schemaMap must learn the new field", v.Type().Field(i).Name)
	}
	rule := reflect.ValueOf(s.XValidations[0])
	for i := range rule.NumField() {
		assert.False(t, rule.Field(i).IsZero(), "everyField leaves ValidationRule.%s unset", rule.Type().Field(i).Name)
	}
	got, err := schemaMap(s)
	require.NoError(t, err)
	assert.Equal(t, roundTrip(t, s), got)

	for _, r := range kinds.Builtin() {
		got, err := schemaMap(r.Schema)
		require.NoError(t, err)
		assert.Equal(t, roundTrip(t, r.Schema), got, r.Kind)
	}

	got, err = schemaMap(nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}, got)
}

// What encoding/json refuses, schemaMap refuses.
func TestSchemaMapErrors(t *testing.T) {
	nan := 0.0
	nan /= nan
	for name, s := range map[string]*api.JSONSchemaProps{
		"NaN maximum":    {Maximum: &nan},
		"bad default":    {Properties: map[string]api.JSONSchemaProps{"a": {Default: &api.JSON{Raw: []byte(`{`)}}}},
		"bad enum":       {Enum: []api.JSON{{Raw: []byte(`nope`)}}},
		"trailing bytes": {Example: &api.JSON{Raw: []byte(`1 2`)}},
	} {
		_, err := schemaMap(s)
		assert.Error(t, err, name)
		_, err = json.Marshal(s)
		assert.Error(t, err, name)
	}
}
