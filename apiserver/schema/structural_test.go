package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/api/field"
)

func TestValidateStructural(t *testing.T) {
	root := field.NewPath("spec", "validation", "openAPIV3Schema")
	tests := []struct {
		name   string
		schema string
		want   []string
	}{
		{"valid", userSchema, nil},
		{"missing type of a field", `{type: object, properties: {spec: {properties: {a: {type: string}}}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields`}},
		{"missing type at root", `{properties: {spec: {type: object}}}`,
			[]string{`spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root`}},
		{"missing type of items", `{type: object, properties: {l: {type: array, items: {}}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[l].items.type: Required value: must not be empty for specified array items`}},
		{"array without items", `{type: object, properties: {l: {type: array}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[l].items: Required value: must be specified`}},
		{"root not object", `{type: string}`,
			[]string{`spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root`}},
		{"int-or-string and preserve need no type", `{type: object, properties: {p: {x-kubernetes-int-or-string: true}, q: {x-kubernetes-preserve-unknown-fields: true}}}`, nil},
		{"int-or-string anyOf pattern", `{type: object, properties: {p: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}}}`, nil},
		{"$ref", `{type: object, properties: {spec: {$ref: "#/definitions/x"}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[spec].$ref: Forbidden: $ref is not supported`}},
		{"properties and additionalProperties", `{type: object, properties: {spec: {type: object, properties: {a: {type: string}}, additionalProperties: {type: string}}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`}},
		{"items array", `{type: object, properties: {l: {type: array, items: [{type: string}]}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[l].items: Forbidden: items must be a schema object and not an array`}},
		{"uniqueItems", `{type: object, properties: {l: {type: array, uniqueItems: true, items: {type: string}}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`}},
		{"additionalProperties at root", `{type: object, additionalProperties: {type: string}}`,
			[]string{`spec.validation.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root`}},
		{"type inside anyOf", `{type: object, properties: {a: {type: integer, anyOf: [{type: integer, minimum: 1}]}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`}},
		{"junctor property not in structure", `{type: object, properties: {a: {type: object, properties: {x: {type: string}}, oneOf: [{required: [x]}, {properties: {y: {minLength: 1}}}]}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[a].properties[y]: Required value: because it is defined in spec.validation.openAPIV3Schema.properties[a].oneOf[1].properties[y]`}},
		{"metadata may only restrict names", `{type: object, properties: {metadata: {type: object, properties: {labels: {type: object}}}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`}},
		{"metadata name restriction allowed", `{type: object, properties: {metadata: {type: object, properties: {name: {type: string, maxLength: 10}}}}}`, nil},
		{"embedded resource must be object", `{type: object, properties: {t: {type: string, x-kubernetes-embedded-resource: true}}}`,
			[]string{
				`spec.validation.openAPIV3Schema.properties[t].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
				`spec.validation.openAPIV3Schema.properties[t].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
			}},
		{"several errors sorted", `{type: object, properties: {b: {}, a: {}}}`,
			[]string{
				`spec.validation.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields`,
				`spec.validation.openAPIV3Schema.properties[b].type: Required value: must not be empty for specified object fields`,
			}},
		{"invalid default type", `{type: object, properties: {r: {type: integer, default: "one"}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[r].default: Invalid value: "string":  in body must be of type integer: "string"`}},
		{"default breaks a bound", `{type: object, properties: {o: {type: object, default: {n: 50}, properties: {n: {type: integer, maximum: 10}}}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[o].default.n: Invalid value: 50: n in body should be less than or equal to 10`}},
		{"default with unknown fields", `{type: object, properties: {o: {type: object, default: {zz: 1}, properties: {n: {type: integer}}}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[o].default: Invalid value: map[string]interface {}{"zz":1}: must not have unknown fields`}},
		{"default in metadata", `{type: object, properties: {metadata: {type: object, properties: {name: {type: string, default: x}}}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`}},
		{"valid default", `{type: object, properties: {r: {type: integer, default: 3, minimum: 1}}}`, nil},
		{"bad list type", `{type: object, properties: {l: {type: array, items: {type: string}, x-kubernetes-list-type: bag}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[l].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`}},
		{"map list without keys", `{type: object, properties: {l: {type: array, items: {type: object}, x-kubernetes-list-type: map}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[l].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`}},
		{"bad pattern", `{type: object, properties: {s: {type: string, pattern: "(a"}}}`,
			[]string{"spec.validation.openAPIV3Schema.properties[s].pattern: Invalid value: \"(a\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): `(a`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := ValidateStructural(mustSchema(t, tt.schema), root)
			if tt.want == nil {
				assert.Empty(t, messages(errs))
				return
			}
			assert.Equal(t, tt.want, messages(errs))
		})
	}
	assert.Empty(t, ValidateStructural(nil, root))
}
