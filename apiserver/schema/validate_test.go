package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api/field"
)

// userSchema is the seed's CRD users.auth.ilinux.io.
const userSchema = `
type: object
properties:
  spec:
    type: object
    required: [userID, groups]
    properties:
      userID: {type: integer, minimum: 1, maximum: 65535}
      groups: {type: array, items: {type: string}}
`

func TestValidateSeedExample(t *testing.T) {
	s := mustSchema(t, userSchema)
	errs := Validate(s, mustObj(t, `{"spec":{"userID":999999}}`), nil)
	require.Len(t, errs, 2)
	assert.Equal(t, "spec.userID", errs[0].Field)
	assert.Equal(t, field.ErrorTypeInvalid, errs[0].Type)
	assert.Equal(t, "Invalid value: 999999: spec.userID in body should be less than or equal to 65535", errs[0].ErrorBody())
	assert.Equal(t, "spec.groups", errs[1].Field)
	assert.Equal(t, field.ErrorTypeRequired, errs[1].Type)
	assert.Equal(t, "Required value", errs[1].ErrorBody())
	assert.Equal(t, "[spec.userID: Invalid value: 999999: spec.userID in body should be less than or equal to 65535, spec.groups: Required value]", errs.Error())

	assert.Empty(t, Validate(s, mustObj(t, `{"spec":{"userID":1000,"groups":["admins"]}}`), nil))
}

func TestValidateKeywords(t *testing.T) {
	tests := []struct {
		name   string
		schema string // the schema of spec.<field>
		field  string
		value  string
		want   []string
		types  []field.ErrorType
	}{
		{"minimum", `{type: integer, minimum: 1}`, "userID", `0`,
			[]string{`spec.userID: Invalid value: 0: spec.userID in body should be greater than or equal to 1`},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"maximum", `{type: integer, maximum: 65535}`, "userID", `999999`,
			[]string{`spec.userID: Invalid value: 999999: spec.userID in body should be less than or equal to 65535`},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"exclusiveMaximum", `{type: integer, maximum: 10, exclusiveMaximum: true}`, "size", `10`,
			[]string{`spec.size: Invalid value: 10: spec.size in body should be less than 10`},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"exclusiveMinimum", `{type: number, minimum: 0, exclusiveMinimum: true}`, "ratio", `0`,
			[]string{`spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0`},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"float maximum", `{type: number, maximum: 1.5}`, "ratio", `2.25`,
			[]string{`spec.ratio: Invalid value: 2.25: spec.ratio in body should be less than or equal to 1.5`},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"in range", `{type: integer, minimum: 1, maximum: 10}`, "n", `10`, nil, nil},
		{"type integer", `{type: integer}`, "userID", `"7"`,
			[]string{`spec.userID: Invalid value: "string": spec.userID in body must be of type integer: "string"`},
			[]field.ErrorType{field.ErrorTypeTypeInvalid}},
		{"integral float is an integer", `{type: integer}`, "n", `3.0`, nil, nil},
		{"non-integral float", `{type: integer}`, "n", `3.5`,
			[]string{`spec.n: Invalid value: "number": spec.n in body must be of type integer: "number"`},
			[]field.ErrorType{field.ErrorTypeTypeInvalid}},
		{"integer is a number", `{type: number}`, "n", `3`, nil, nil},
		{"type boolean", `{type: boolean}`, "on", `"yes"`,
			[]string{`spec.on: Invalid value: "string": spec.on in body must be of type boolean: "string"`},
			[]field.ErrorType{field.ErrorTypeTypeInvalid}},
		{"type string", `{type: string}`, "s", `true`,
			[]string{`spec.s: Invalid value: "boolean": spec.s in body must be of type string: "boolean"`},
			[]field.ErrorType{field.ErrorTypeTypeInvalid}},
		{"type array", `{type: array, items: {type: string}}`, "groups", `"admins"`,
			[]string{`spec.groups: Invalid value: "string": spec.groups in body must be of type array: "string"`},
			[]field.ErrorType{field.ErrorTypeTypeInvalid}},
		{"items", `{type: array, items: {type: string}}`, "groups", `[1, "b"]`,
			[]string{`spec.groups[0]: Invalid value: "integer": spec.groups[0] in body must be of type string: "integer"`},
			[]field.ErrorType{field.ErrorTypeTypeInvalid}},
		{"type object", `{type: object}`, "o", `[]`,
			[]string{`spec.o: Invalid value: "array": spec.o in body must be of type object: "array"`},
			[]field.ErrorType{field.ErrorTypeTypeInvalid}},
		{"enum", `{type: string, enum: [red, green, blue]}`, "color", `"purple"`,
			[]string{`spec.color: Unsupported value: "purple": supported values: "red", "green", "blue"`},
			[]field.ErrorType{field.ErrorTypeNotSupported}},
		{"enum of numbers", `{type: integer, enum: [1, 2]}`, "n", `3`,
			[]string{`spec.n: Unsupported value: 3: supported values: "1", "2"`},
			[]field.ErrorType{field.ErrorTypeNotSupported}},
		{"enum matches 1.0 to 1", `{type: number, enum: [1, 2]}`, "n", `1.0`, nil, nil},
		{"minLength", `{type: string, minLength: 3}`, "name", `"ab"`,
			[]string{`spec.name: Invalid value: "ab": spec.name in body should be at least 3 chars long`},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"maxLength", `{type: string, maxLength: 8}`, "name", `"abcdefghij"`,
			[]string{`spec.name: Too long: may not be more than 8 bytes`},
			[]field.ErrorType{field.ErrorTypeTooLong}},
		{"maxLength counts characters", `{type: string, maxLength: 2}`, "name", `"éé"`, nil, nil},
		{"pattern", `{type: string, pattern: '^[a-z]+$'}`, "name", `"Abc1"`,
			[]string{`spec.name: Invalid value: "Abc1": spec.name in body should match '^[a-z]+$'`},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"maxLength hides pattern", `{type: string, maxLength: 2, pattern: '^[a-z]+$'}`, "name", `"ABC"`,
			[]string{`spec.name: Too long: may not be more than 2 bytes`},
			[]field.ErrorType{field.ErrorTypeTooLong}},
		{"minItems", `{type: array, minItems: 1, items: {type: string}}`, "tags", `[]`,
			[]string{`spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items`},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"maxItems", `{type: array, maxItems: 3, items: {type: string}}`, "tags", `["a","b","c","d"]`,
			[]string{`spec.tags: Too many: 4: must have at most 3 items`},
			[]field.ErrorType{field.ErrorTypeTooMany}},
		{"uniqueItems", `{type: array, uniqueItems: true, items: {type: integer}}`, "tags", `[1, 2, 1]`,
			[]string{`spec.tags: Invalid value: "": spec.tags in body shouldn't contain duplicates`},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"multipleOf", `{type: integer, multipleOf: 5}`, "n", `7`,
			[]string{`spec.n: Invalid value: 7: spec.n in body should be a multiple of 5`},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"multipleOf float", `{type: number, multipleOf: 0.1}`, "n", `0.3`, nil, nil},
		{"minProperties", `{type: object, minProperties: 2, additionalProperties: {type: string}}`, "m", `{"a":"x"}`,
			[]string{`spec.m: Invalid value: 1: spec.m in body should have at least 2 properties`},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"maxProperties", `{type: object, maxProperties: 1, additionalProperties: {type: string}}`, "m", `{"a":"x","b":"y"}`,
			[]string{`spec.m: Too many: 2: must have at most 1 items`},
			[]field.ErrorType{field.ErrorTypeTooMany}},
		{"additionalProperties schema", `{type: object, additionalProperties: {type: string}}`, "labels", `{"a":"x","b":2}`,
			[]string{`spec.labels.b: Invalid value: "integer": spec.labels.b in body must be of type string: "integer"`},
			[]field.ErrorType{field.ErrorTypeTypeInvalid}},
		{"additionalProperties false", `{type: object, properties: {a: {type: string}}, additionalProperties: false}`, "o", `{"a":"x","zz":1}`,
			[]string{`spec.o: Invalid value: "zz": spec.o.zz in body is a forbidden property`},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"int-or-string bool", `{x-kubernetes-int-or-string: true}`, "port", `true`,
			[]string{`spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"`},
			[]field.ErrorType{field.ErrorTypeTypeInvalid}},
		{"int-or-string int", `{x-kubernetes-int-or-string: true}`, "port", `80`, nil, nil},
		{"int-or-string string", `{x-kubernetes-int-or-string: true}`, "port", `"http"`, nil, nil},
		{"format email", `{type: string, format: email}`, "owner", `"not-an-email"`,
			[]string{`spec.owner: Invalid value: "not-an-email": spec.owner in body must be of type email: "not-an-email"`},
			[]field.ErrorType{field.ErrorTypeTypeInvalid}},
		{"unknown format ignored", `{type: string, format: fancy}`, "s", `"anything"`, nil, nil},
		{"null not nullable", `{type: string}`, "s", `null`,
			[]string{`spec.s: Invalid value: "null": spec.s in body must be of type string: "null"`},
			[]field.ErrorType{field.ErrorTypeTypeInvalid}},
		{"null nullable", `{type: string, nullable: true}`, "s", `null`, nil, nil},
		{"preserve unknown fields", `{type: object, x-kubernetes-preserve-unknown-fields: true}`, "o", `{"any":{"thing":1}}`, nil, nil},
		{"embedded resource", `{type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}`, "template", `{"metadata":{}}`,
			[]string{`spec.template.apiVersion: Required value: must not be empty`, `spec.template.kind: Required value: must not be empty`},
			[]field.ErrorType{field.ErrorTypeRequired, field.ErrorTypeRequired}},
		{"embedded resource kind", `{type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}`, "template", `{"apiVersion":"v1","kind":"Bad_Kind"}`,
			[]string{`spec.template.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: ` + dns1035LabelErrMsg},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"embedded resource ok", `{type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}`, "template", `{"apiVersion":"apps/v1","kind":"Deployment"}`, nil, nil},
		{"anyOf", `{type: integer, anyOf: [{minimum: 5}, {maximum: 1}]}`, "n", `3`,
			[]string{`<nil>: Invalid value: "": "spec.n" must validate at least one schema (anyOf)`,
				`spec.n: Invalid value: 3: spec.n in body should be greater than or equal to 5`},
			[]field.ErrorType{field.ErrorTypeInvalid, field.ErrorTypeInvalid}},
		{"anyOf passes", `{type: integer, anyOf: [{minimum: 5}, {maximum: 4}]}`, "n", `3`, nil, nil},
		{"oneOf two valid", `{type: integer, oneOf: [{minimum: 1}, {maximum: 5}]}`, "n", `3`,
			[]string{`<nil>: Invalid value: "": "spec.n" must validate one and only one schema (oneOf). Found 2 valid alternatives`},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"oneOf none valid", `{type: integer, oneOf: [{minimum: 5}, {maximum: 1}]}`, "n", `3`,
			[]string{`<nil>: Invalid value: "": "spec.n" must validate one and only one schema (oneOf). Found none valid`,
				`spec.n: Invalid value: 3: spec.n in body should be greater than or equal to 5`},
			[]field.ErrorType{field.ErrorTypeInvalid, field.ErrorTypeInvalid}},
		{"allOf", `{type: integer, allOf: [{minimum: 5}]}`, "n", `3`,
			[]string{`spec.n: Invalid value: 3: spec.n in body should be greater than or equal to 5`,
				`<nil>: Invalid value: "": "spec.n" must validate all the schemas (allOf). None validated`},
			[]field.ErrorType{field.ErrorTypeInvalid, field.ErrorTypeInvalid}},
		{"not", `{type: string, not: {enum: [root]}}`, "user", `"root"`,
			[]string{`<nil>: Invalid value: "": "spec.user" must not validate the schema (not)`},
			[]field.ErrorType{field.ErrorTypeInvalid}},
		{"not passes", `{type: string, not: {enum: [root]}}`, "user", `"bob"`, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustSchema(t, "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      "+tt.field+": "+tt.schema+"\n")
			errs := Validate(s, mustObj(t, `{"spec":{"`+tt.field+`":`+tt.value+`}}`), nil)
			if tt.want == nil {
				assert.Empty(t, messages(errs))
				return
			}
			assert.Equal(t, tt.want, messages(errs))
			assert.Equal(t, tt.types, types(errs))
		})
	}
}

func TestValidateTypeOfSpec(t *testing.T) {
	s := mustSchema(t, userSchema)
	errs := Validate(s, mustObj(t, `{"spec":"big"}`), nil)
	assert.Equal(t, []string{`spec: Invalid value: "string": spec in body must be of type object: "string"`}, messages(errs))
}

func TestValidateReportsEveryError(t *testing.T) {
	s := mustSchema(t, `
type: object
properties:
  spec:
    type: object
    required: [a]
    properties:
      b: {type: string, minLength: 2}
      c: {type: array, maxItems: 1, items: {type: integer, maximum: 5}}
`)
	errs := Validate(s, mustObj(t, `{"spec":{"b":"x","c":[7,8]}}`), nil)
	assert.Equal(t, []string{
		`spec.b: Invalid value: "x": spec.b in body should be at least 2 chars long`,
		`spec.c: Too many: 2: must have at most 1 items`,
		`spec.c[0]: Invalid value: 7: spec.c[0] in body should be less than or equal to 5`,
		`spec.c[1]: Invalid value: 8: spec.c[1] in body should be less than or equal to 5`,
		`spec.a: Required value`,
	}, messages(errs))
}

func TestValidatePathPrefix(t *testing.T) {
	s := mustSchema(t, userSchema)
	errs := Validate(s, mustObj(t, `{"spec":{"userID":0,"groups":[]}}`), field.NewPath("items").Index(2))
	assert.Equal(t, []string{`items[2].spec.userID: Invalid value: 0: spec.userID in body should be greater than or equal to 1`}, messages(errs))
}

func TestValidateRootType(t *testing.T) {
	s := mustSchema(t, `{type: object}`)
	errs := Validate(s, "x", nil)
	assert.Equal(t, []string{`<nil>: Invalid value: "string":  in body must be of type object: "string"`}, messages(errs))
	assert.Empty(t, Validate(nil, "x", nil))
}

func TestValidateAcceptsGoNumbers(t *testing.T) {
	s := mustSchema(t, userSchema)
	obj := map[string]any{"spec": map[string]any{"userID": 70000, "groups": []any{}}}
	assert.Equal(t, []string{`spec.userID: Invalid value: 70000: spec.userID in body should be less than or equal to 65535`}, messages(Validate(s, obj, nil)))
}

func TestFormats(t *testing.T) {
	tests := []struct {
		format string
		good   []string
		bad    []string
	}{
		{"byte", []string{"aGVsbG8="}, []string{"not base64!"}},
		{"date", []string{"2024-02-29"}, []string{"2023-02-29", "yesterday"}},
		{"date-time", []string{"2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123+02:00"}, []string{"2024-01-02", "noon"}},
		{"password", []string{"", "anything"}, nil},
		{"email", []string{"a@example.com"}, []string{"not-an-email"}},
		{"hostname", []string{"example.com", "a-b.c"}, []string{"-bad.com", "under_score.com", ""}},
		{"ipv4", []string{"10.0.0.1"}, []string{"10.0.0.256", "::1"}},
		{"ipv6", []string{"::1", "fe80::1"}, []string{"10.0.0.1", "zz::"}},
		{"cidr", []string{"10.0.0.0/8", "fd00::/64"}, []string{"10.0.0.0", "10.0.0.0/33"}},
		{"mac", []string{"01:23:45:67:89:ab"}, []string{"01:23:45"}},
		{"uri", []string{"https://example.com/x"}, []string{"not a uri"}},
		{"uuid", []string{"123e4567-e89b-12d3-a456-426614174000"}, []string{"123e4567"}},
		{"int32", []string{"whatever"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			s := mustSchema(t, "{type: string, format: "+tt.format+"}")
			for _, g := range tt.good {
				assert.Empty(t, Validate(s, g, nil), g)
			}
			for _, b := range tt.bad {
				errs := Validate(s, b, nil)
				if assert.Len(t, errs, 1, b) {
					assert.Equal(t, field.ErrorTypeTypeInvalid, errs[0].Type)
				}
			}
		})
	}
}
