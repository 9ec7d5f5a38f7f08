package cel

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
)

func mustSchema(t testing.TB, js string) *api.JSONSchemaProps {
	t.Helper()
	var s api.JSONSchemaProps
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		t.Fatalf("schema: %v", err)
	}
	return &s
}

func mustJSON(t testing.TB, js string) any {
	t.Helper()
	if js == "" {
		return nil
	}
	var v any
	d := json.NewDecoder(strings.NewReader(js))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("object: %v", err)
	}
	return v
}

func errStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

const replicasSchema = `{"type":"object","properties":{"spec":{"type":"object",
  "x-kubernetes-validations":[
    {"rule":"self.minReplicas <= self.maxReplicas","message":"minReplicas cannot be larger than maxReplicas"},
    {"rule":"!has(self.image) || self.image.startsWith('registry.example.com/')"},
    {"rule":"self.maxReplicas >= oldSelf.maxReplicas","message":"maxReplicas may not shrink","reason":"FieldValueForbidden","fieldPath":".maxReplicas"},
    {"rule":"size(self.tags) <= 3","messageExpression":"'too many tags, first: ' + self.tags[0]"}
  ],
  "properties":{
    "minReplicas":{"type":"integer"},"maxReplicas":{"type":"integer"},
    "image":{"type":"string","maxLength":64},
    "name":{"type":"string","maxLength":20,"x-kubernetes-validations":[{"rule":"self.matches('^[a-z]+$')","message":"name must be lower-case letters"}]},
    "tags":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":10},
      "x-kubernetes-validations":[{"rule":"self.all(t, t.endsWith('-x')) && self.exists_one(t, t == 'main-x') && self.map(t, size(t)).filter(n, n > 8).size() == 0"}]}
  }}}}`

func TestRules(t *testing.T) {
	s := mustSchema(t, replicasSchema)
	v, err := NewValidator(s)
	if err != nil || v == nil {
		t.Fatalf("NewValidator: %v, %v", v, err)
	}
	tests := []struct {
		name     string
		obj, old string
		want     []string
	}{
		{name: "valid create", obj: `{"spec":{"minReplicas":1,"maxReplicas":3,"tags":["main-x"]}}`},
		{name: "min over max", obj: `{"spec":{"minReplicas":5,"maxReplicas":3,"tags":["main-x"]}}`,
			want: []string{"spec: Invalid value: minReplicas cannot be larger than maxReplicas"}},
		{name: "no message: failed rule", obj: `{"spec":{"minReplicas":1,"maxReplicas":3,"image":"docker.io/x","tags":["main-x"]}}`,
			want: []string{"spec: Invalid value: failed rule: !has(self.image) || self.image.startsWith('registry.example.com/')"}},
		{name: "scalar node shows the value", obj: `{"spec":{"minReplicas":1,"maxReplicas":3,"name":"Bad1","tags":["main-x"]}}`,
			want: []string{`spec.name: Invalid value: "Bad1": name must be lower-case letters`}},
		{name: "macros on a list", obj: `{"spec":{"minReplicas":1,"maxReplicas":3,"tags":["main-x","main-x"]}}`,
			want: []string{`spec.tags: Invalid value: failed rule: self.all(t, t.endsWith('-x')) && self.exists_one(t, t == 'main-x') && self.map(t, size(t)).filter(n, n > 8).size() == 0`}},
		{name: "messageExpression", obj: `{"spec":{"minReplicas":1,"maxReplicas":3,"tags":["main-x","a-x","b-x","c-x"]}}`,
			want: []string{"spec: Invalid value: too many tags, first: main-x"}},
		{name: "transition rule skipped on create", obj: `{"spec":{"minReplicas":1,"maxReplicas":1,"tags":["main-x"]}}`},
		{name: "transition rule on update, fieldPath and reason",
			obj: `{"spec":{"minReplicas":1,"maxReplicas":2,"tags":["main-x"]}}`, old: `{"spec":{"minReplicas":1,"maxReplicas":5,"tags":["main-x"]}}`,
			want: []string{"spec.maxReplicas: Forbidden: maxReplicas may not shrink"}},
		{name: "transition rule passes", obj: `{"spec":{"minReplicas":1,"maxReplicas":6,"tags":["main-x"]}}`, old: `{"spec":{"minReplicas":1,"maxReplicas":5,"tags":["main-x"]}}`},
		{name: "missing field is a runtime error", obj: `{"spec":{"maxReplicas":3,"tags":["main-x"]}}`,
			want: []string{"spec: Invalid value: \"object\": no such key: minReplicas evaluating rule: minReplicas cannot be larger than maxReplicas"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := errStrings(v.Validate(context.Background(), nil, mustJSON(t, tc.obj), mustJSON(t, tc.old)))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestOptionalOldSelf(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{"x":{"type":"integer",
	  "x-kubernetes-validations":[{"rule":"oldSelf.hasValue() || self < 10","optionalOldSelf":true,"message":"new x must be below 10"}]}}}`)
	v, err := NewValidator(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := errStrings(v.Validate(context.Background(), nil, mustJSON(t, `{"x":12}`), nil)); len(got) != 1 || got[0] != "x: Invalid value: 12: new x must be below 10" {
		t.Errorf("create: %q", got)
	}
	if got := v.Validate(context.Background(), nil, mustJSON(t, `{"x":12}`), mustJSON(t, `{"x":11}`)); len(got) != 0 {
		t.Errorf("update: %v", got)
	}
}

func TestMapListCorrelation(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{"ports":{"type":"array","maxItems":4,
	  "x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
	  "items":{"type":"object","properties":{"name":{"type":"string","maxLength":8},"port":{"type":"integer"}},
	    "x-kubernetes-validations":[{"rule":"self.port == oldSelf.port","message":"port is immutable"}]}}}}`)
	v, err := NewValidator(s)
	if err != nil {
		t.Fatal(err)
	}
	got := errStrings(v.Validate(context.Background(), nil,
		mustJSON(t, `{"ports":[{"name":"a","port":1},{"name":"b","port":3}]}`),
		mustJSON(t, `{"ports":[{"name":"b","port":2},{"name":"a","port":1}]}`)))
	if strings.Join(got, ";") != "ports[1]: Invalid value: port is immutable" {
		t.Errorf("got %q", got)
	}
}

func TestIsSortedAndStrings(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{"l":{"type":"array","maxItems":5,"items":{"type":"integer"},
	  "x-kubernetes-validations":[{"rule":"self.isSorted()","message":"must be sorted"}]},
	  "s":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self.lowerAscii() == self && self.split('-').size() == 2"}]}}}`)
	v, err := NewValidator(s)
	if err != nil {
		t.Fatal(err)
	}
	got := errStrings(v.Validate(context.Background(), nil, mustJSON(t, `{"l":[1,3,2],"s":"Ab-c"}`), nil))
	want := []string{"l: Invalid value: must be sorted", `s: Invalid value: "Ab-c": failed rule: self.lowerAscii() == self && self.split('-').size() == 2`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q", got)
	}
	if got := v.Validate(context.Background(), nil, mustJSON(t, `{"l":[1,2,2],"s":"ab-c"}`), nil); len(got) != 0 {
		t.Errorf("valid: %v", got)
	}
}

func TestRuntimeCostLimit(t *testing.T) {
	// An unbounded list: the per-call limit stops the quadratic rule at run
	// time (the CRD check would refuse it; NewValidator compiles it anyway,
	// as for a CRD stored before the check).
	s := mustSchema(t, `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"},
	  "x-kubernetes-validations":[{"rule":"self.all(a, self.all(b, !a.contains(b + 'x')))"}]}}}`)
	v, err := NewValidator(s)
	if err != nil {
		t.Fatal(err)
	}
	list := make([]any, 100)
	for i := range list {
		list[i] = strings.Repeat("a", 2000)
	}
	got := errStrings(v.Validate(context.Background(), nil, map[string]any{"l": list}, nil))
	if len(got) != 1 || !strings.Contains(got[0], "no further validation rules will be run due to call cost exceeds limit for rule") {
		t.Errorf("got %q", got)
	}
}

func TestValidateSchema(t *testing.T) {
	root := field.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")
	tests := []struct {
		name, schema string
		want         []string
	}{
		{name: "good rules", schema: replicasSchema},
		{name: "syntax error", schema: `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.x >"}]}}}`,
			want: []string{"spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: " +
				`apiextensions.ValidationRule{Rule:"self.x >", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting`}},
		{name: "unknown function", schema: `{"type":"object","x-kubernetes-validations":[{"rule":"self.frobnicate()"}]}`,
			want: []string{"spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: " +
				`apiextensions.ValidationRule{Rule:"self.frobnicate()", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:16: undeclared reference to 'frobnicate'`}},
		{name: "not a bool", schema: `{"type":"object","x-kubernetes-validations":[{"rule":"1 + 2"}]}`,
			want: []string{"spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: " +
				`apiextensions.ValidationRule{Rule:"1 + 2", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: cel expression must evaluate to a bool`}},
		{name: "empty rule and bad reason", schema: `{"type":"object","x-kubernetes-validations":[{"rule":""},{"rule":"true","reason":"Nope"}]}`,
			want: []string{
				"spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Required value: rule is not specified",
				`spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[1].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`}},
		{name: "cost over budget", schema: `{"type":"object","properties":{"foo":{"type":"array","items":{"type":"string"},
		  "x-kubernetes-validations":[{"rule":"self.all(x, x.contains('a string'))"}]}}}`,
			want: []string{
				"spec.versions[0].schema.openAPIV3Schema.properties[foo].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
				"spec.versions[0].schema.openAPIV3Schema.properties[foo].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
				"spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"}},
		{name: "bounded: within budget", schema: `{"type":"object","properties":{"foo":{"type":"array","maxItems":25,"items":{"type":"string","maxLength":10},
		  "x-kubernetes-validations":[{"rule":"self.all(x, x.contains('a string'))"}]}}}`},
		{name: "oldSelf in an atomic list", schema: `{"type":"object","properties":{"l":{"type":"array","maxItems":3,"items":{"type":"integer",
		  "x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}}}`,
			want: []string{"spec.versions[0].schema.openAPIV3Schema.properties[l].items.x-kubernetes-validations[0].rule: Invalid value: \"self == oldSelf\": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.versions[0].schema.openAPIV3Schema.properties[l]"}},
		{name: "optionalOldSelf without oldSelf", schema: `{"type":"object","x-kubernetes-validations":[{"rule":"true","optionalOldSelf":true}]}`,
			want: []string{"spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if rule does not use oldSelf"}},
		{name: "bad fieldPath", schema: `{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-validations":[{"rule":"true","fieldPath":".b"}]}`,
			want: []string{`spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].fieldPath: Invalid value: ".b": fieldPath must be a valid path: does not refer to a valid field`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := errStrings(ValidateSchema(mustSchema(t, tc.schema), root))
			if len(got) != len(tc.want) {
				t.Fatalf("got %d errors, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("error %d:\n got %s\nwant %s", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// BenchmarkValidate is the CEL part of a write alone: the four rules of
// replicasSchema on spec plus the rule on tags, against one object.
func BenchmarkValidate(b *testing.B) {
	v, err := NewValidator(mustSchema(b, replicasSchema))
	if err != nil {
		b.Fatal(err)
	}
	obj := mustJSON(b, `{"spec":{"minReplicas":1,"maxReplicas":3,"image":"registry.example.com/x","name":"web","tags":["main-x"]}}`)
	old := mustJSON(b, `{"spec":{"minReplicas":1,"maxReplicas":3,"image":"registry.example.com/x","name":"web","tags":["main-x"]}}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if errs := v.Validate(context.Background(), nil, obj, old); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

func TestQuantityLibrary(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{"memory":{"type":"string","maxLength":16,
	  "x-kubernetes-validations":[
	    {"rule":"isQuantity(self)","message":"must be a quantity"},
	    {"rule":"!isQuantity(self) || quantity(self).isLessThan(quantity('1Gi'))","message":"must be below 1Gi"},
	    {"rule":"!isQuantity(self) || quantity(self).add(quantity('512Mi')).compareTo(quantity('1536Mi')) <= 0 && quantity(self).sign() >= 0"}]}}}`)
	v, err := NewValidator(s)
	require.NoError(t, err)
	for obj, want := range map[string]string{
		`{"memory":"512Mi"}`: "",
		`{"memory":"2Gi"}`:   `memory: Invalid value: "2Gi": must be below 1Gi` + "\n" + `memory: Invalid value: "2Gi": failed rule: !isQuantity(self) || quantity(self).add(quantity('512Mi')).compareTo(quantity('1536Mi')) <= 0 && quantity(self).sign() >= 0`,
		`{"memory":"lots"}`:  `memory: Invalid value: "lots": must be a quantity`,
	} {
		got := strings.Join(errStrings(v.Validate(context.Background(), nil, mustJSON(t, obj), nil)), "\n")
		if got != want {
			t.Errorf("%s: got\n%s\nwant\n%s", obj, got, want)
		}
	}
	assert.Empty(t, ValidateSchema(s, field.NewPath("schema")), "within the cost budget")
}
