package cel

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
)

// docsSchema carries the fields the rules of the Kubernetes docs' "Validation
// rules" section read (tasks/extend-kubernetes/custom-resources/
// custom-resource-definitions), each with its declared type.
const docsSchema = `{"type":"object","properties":{"spec":{"type":"object","properties":{
  "minReplicas":{"type":"integer"},"replicas":{"type":"integer"},"maxReplicas":{"type":"integer"},
  "stateCounts":{"type":"object","maxProperties":10,"additionalProperties":{"type":"integer"}},
  "list1":{"type":"array","maxItems":5,"items":{"type":"string","maxLength":10}},
  "list2":{"type":"array","maxItems":5,"items":{"type":"string","maxLength":10}},
  "map1":{"type":"object","maxProperties":5,"additionalProperties":{"type":"string","maxLength":10}},
  "envars":{"type":"array","maxItems":5,"items":{"type":"object","properties":{"name":{"type":"string","maxLength":10},"value":{"type":"string","maxLength":10}}}},
  "created":{"type":"string","format":"date-time"},"ttl":{"type":"string","format":"duration"},"expired":{"type":"string","format":"date-time"},
  "health":{"type":"string","maxLength":10},
  "ratio":{"type":"number"},
  "ios":{"x-kubernetes-int-or-string":true},
  "prefix":{"type":"string","maxLength":10},
  "namespace":{"type":"integer"},"x-prop":{"type":"integer"},"redact__d":{"type":"integer"},
  "extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
  "known":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"a":{"type":"string","maxLength":5}}}
}}}}`

// TestTypedRules runs the docs' rules against a schema-typed self: fields
// are read with their declared types (numbers as doubles, date-time and
// duration strings as timestamps and durations, escaped names).
func TestTypedRules(t *testing.T) {
	tests := []struct {
		rule, obj string
		want      bool
	}{
		{"self.spec.minReplicas <= self.spec.replicas && self.spec.replicas <= self.spec.maxReplicas", `{"spec":{"minReplicas":1,"replicas":2,"maxReplicas":3}}`, true},
		{"self.spec.minReplicas <= self.spec.replicas && self.spec.replicas <= self.spec.maxReplicas", `{"spec":{"minReplicas":1,"replicas":5,"maxReplicas":3}}`, false},
		{"'Available' in self.spec.stateCounts", `{"spec":{"stateCounts":{"Available":1}}}`, true},
		{"(size(self.spec.list1) == 0) != (size(self.spec.list2) == 0)", `{"spec":{"list1":[],"list2":["a"]}}`, true},
		{"!('MY_FIELD' in self.spec.map1) || self.spec.map1['MY_FIELD'].matches('^[a-zA-Z]*$')", `{"spec":{"map1":{"MY_FIELD":"a1"}}}`, false},
		{"self.spec.envars.all(e, e.name != 'MY_ENV' || e.value.matches('^[a-zA-Z]*$'))", `{"spec":{"envars":[{"name":"MY_ENV","value":"abc"}]}}`, true},
		{"has(self.spec.expired) && self.spec.created + self.spec.ttl < self.spec.expired", `{"spec":{"created":"2026-01-01T00:00:00Z","ttl":"1h","expired":"2026-01-01T02:00:00Z"}}`, true},
		{"has(self.spec.expired) && self.spec.created + self.spec.ttl < self.spec.expired", `{"spec":{"created":"2026-01-01T00:00:00Z","ttl":"3h","expired":"2026-01-01T02:00:00Z"}}`, false},
		{"self.spec.health.startsWith('ok')", `{"spec":{"health":"ok-go"}}`, true},
		{"self.spec.ratio > 0.5", `{"spec":{"ratio":1}}`, true},
		{"type(self.spec.ios) == string ? self.spec.ios == '100%' : self.spec.ios == 1000", `{"spec":{"ios":"100%"}}`, true},
		{"type(self.spec.ios) == string ? self.spec.ios == '100%' : self.spec.ios == 1000", `{"spec":{"ios":7}}`, false},
		{"self.metadata.name.startsWith(self.spec.prefix)", `{"metadata":{"name":"web-1"},"spec":{"prefix":"web"}}`, true},
		{"self.apiVersion == 'stable.example.com/v1' && self.kind == 'CronTab'", `{"apiVersion":"stable.example.com/v1","kind":"CronTab"}`, true},
		{"self.spec.__namespace__ > 0 && self.spec.x__dash__prop > 0 && self.spec.redact__underscores__d > 0", `{"spec":{"namespace":1,"x-prop":2,"redact__d":3}}`, true},
		{"self.spec.known.a == 'x'", `{"spec":{"known":{"a":"x","b":1}}}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			s := mustSchema(t, docsSchema)
			s.XValidations = append(s.XValidations, ruleOf(tc.rule))
			require.Empty(t, errStrings(ValidateSchema(s, field.NewPath("schema"))), "the CRD check")
			v, err := NewValidator(s)
			require.NoError(t, err)
			errs := errStrings(v.Validate(context.Background(), nil, mustJSON(t, tc.obj), nil))
			if tc.want {
				assert.Empty(t, errs)
			} else {
				assert.Equal(t, []string{"<nil>: Invalid value: failed rule: " + tc.rule}, errs)
			}
		})
	}
}

// TestTypedRulesRefused: with self typed by the schema, the checker finds a
// misspelt field or a wrong type when the CRD is written, with the message
// kube-apiserver gives.
func TestTypedRulesRefused(t *testing.T) {
	tests := []struct {
		name, rule, want string
	}{
		{"misspelt field", "self.spec.replicsa > 0", "compilation failed: ERROR: <input>:1:10: undefined field 'replicsa'\n | self.spec.replicsa > 0\n | .........^"},
		{"metadata beyond name", "self.metadata.labels.size() > 0", "compilation failed: ERROR: <input>:1:14: undefined field 'labels'"},
		{"unknown fields are not visible", "self.spec.extra.foo == 1", "compilation failed: ERROR: <input>:1:16: undefined field 'foo'"},
		{"undeclared field of a preserving object", "self.spec.known.b == 1", "compilation failed: ERROR: <input>:1:16: undefined field 'b'"},
		{"a string is not an int", "self.spec.health > 1", "compilation failed: ERROR: <input>:1:18: found no matching overload for '_>_' applied to '(string, int)'"},
		{"the unescaped name", "self.spec.namespace > 0", "compilation failed: ERROR: <input>:1:10: undefined field 'namespace'"},
		{"not a bool", "self.spec.replicas", "cel expression must evaluate to a bool"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSchema(t, docsSchema)
			s.XValidations = append(s.XValidations, ruleOf(tc.rule))
			errs := ValidateSchema(s, field.NewPath("spec", "validation", "openAPIV3Schema"))
			require.Len(t, errs, 1, errStrings(errs))
			assert.Equal(t, "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule", errs[0].Field)
			assert.True(t, strings.HasPrefix(errs[0].Detail, tc.want), "got %q", errs[0].Detail)
		})
	}
}

// TestRuleOnUntypedNode: a rule on a node CEL cannot see is refused.
func TestRuleOnUntypedNode(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{"any":{"x-kubernetes-preserve-unknown-fields":true,
	  "x-kubernetes-validations":[{"rule":"true"}]}}}`)
	errs := ValidateSchema(s, field.NewPath("schema"))
	require.Len(t, errs, 1)
	assert.Equal(t, "schema.properties[any].x-kubernetes-validations: Internal error: rule declared on schema that does not support validation rules type: '' x-kubernetes-preserve-unknown-fields: 'true'", errs[0].Error())
}

// TestDeclaredSizes: the cost estimator's sizes follow Kubernetes' — a
// character of maxLength is up to 4 bytes, an enum is as long as its
// longest value, unbounded lists and maps hold what fits in a request.
func TestDeclaredSizes(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{
	  "s":{"type":"string","maxLength":10},
	  "e":{"type":"string","enum":["a","abcd"]},
	  "l":{"type":"array","items":{"type":"integer"}},
	  "m":{"type":"object","additionalProperties":{"type":"boolean"}},
	  "d":{"type":"string","format":"date-time"}}}`)
	d := schemaDeclType(s, true, selfTypeName)
	sizes := map[string]int64{}
	for k, f := range d.fields {
		sizes[k] = f.typ.maxElements
	}
	assert.Equal(t, int64(40), sizes["s"])
	assert.Equal(t, int64(4), sizes["e"])
	assert.Equal(t, int64((MaxRequestSizeBytes-2)/2), sizes["l"])
	assert.Equal(t, int64((MaxRequestSizeBytes-2)/10), sizes["m"])
	assert.Equal(t, int64(maxDatetimeSizeJSON), sizes["d"])
	assert.Contains(t, d.fields, "apiVersion", "the resource root has apiVersion")
}

func ruleOf(rule string) api.ValidationRule { return api.ValidationRule{Rule: rule} }
