package schema

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
)

// fuzzSeeds pairs schemas and objects that reach most keywords.
var fuzzSeeds = [][2]string{
	{`{"type":"object","properties":{"spec":{"type":"object","required":["userID","groups"],"properties":{"userID":{"type":"integer","minimum":1,"maximum":65535},"groups":{"type":"array","items":{"type":"string"}}}}}}`,
		`{"spec":{"userID":999999}}`},
	{`{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{"p":{"type":"integer"},"q":{"type":"string","default":"TCP"}}}}}}`,
		`{"a":[{"p":80},null,{"p":"x","z":1}]}`},
	{`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string","default":"d","maxLength":2}},"n":{"type":"number","multipleOf":0.5,"exclusiveMaximum":true,"maximum":3}}}`,
		`{"m":{"a":null,"b":"long"},"n":2.25}`},
	{`{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"e":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"string","pattern":"^a+$","enum":["a","aa"]}}}}}`,
		`{"free":[1,2],"e":{"kind":"X","spec":"b","junk":{}}}`},
	{`{"type":"object","properties":{"i":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},"o":{"oneOf":[{"required":["a"]},{"required":["b"]}],"not":{"minProperties":3},"allOf":[{"maxProperties":5}]}}}`,
		`{"i":true,"o":{"a":1,"b":2}}`},
	{`{"type":"object","properties":{"u":{"type":"array","uniqueItems":true,"minItems":2,"maxItems":3,"items":[{"type":"string"}],"additionalItems":false},"f":{"type":"string","format":"date-time"},"$ref":{"$ref":"#/x"}},"patternProperties":{"^x-":{"type":"boolean"}},"additionalProperties":false,"dependencies":{"u":["f"],"f":{"required":["u"]}}}`,
		`{"u":[1,1,{"a":1},[2]],"f":"now","x-y":"no","zz":null}`},
	{`{"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string","default":1}}},"d":{"type":"integer","default":"bad"},"l":{"type":"array","x-kubernetes-list-type":"map","items":{"type":"object"}}}}`,
		`{"metadata":{"name":"x"},"d":null,"l":[{}]}`},
}

// FuzzSchema feeds random schemas and objects to every entry point: none
// may panic, and the apiserver's order (prune, default, validate) must
// leave an object that prunes to itself.
func FuzzSchema(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, schemaJSON, objJSON []byte) {
		var s api.JSONSchemaProps
		if err := json.Unmarshal(schemaJSON, &s); err != nil {
			return
		}
		obj, err := decodeJSON(objJSON)
		if err != nil {
			return
		}
		_ = ValidateStructural(&s, field.NewPath("schema"))
		_ = Validate(&s, obj, nil)

		Prune(&s, obj, PruneOptions{IsResourceRoot: true})
		Default(&s, obj)
		_ = Validate(&s, obj, field.NewPath("x"))

		// Nothing the schema knows may be pruned again after defaulting
		// only added known fields... unless a default brings unknown ones,
		// which ValidateStructural would have rejected.
		if len(ValidateStructural(&s, nil)) == 0 {
			again := Prune(&s, obj, PruneOptions{IsResourceRoot: true, KeepNulls: true})
			require.Empty(t, again, "defaults of a valid schema added unknown fields")
		}

		walk(NewNode(&s), obj, 0)
	})
}

// walk follows obj through Node as strategic merge patch would.
func walk(n *Node, obj any, depth int) {
	if depth > 50 {
		return
	}
	n.PatchStrategy()
	n.ListType()
	switch x := obj.(type) {
	case map[string]any:
		for k, v := range x {
			walk(n.Field(k), v, depth+1)
		}
	case []any:
		for _, v := range x {
			walk(n.Elem(), v, depth+1)
		}
	}
}

// FuzzJSONSchemaProps checks that a schema survives a JSON round trip and
// a deep copy unchanged, and that the copy shares nothing with it.
func FuzzJSONSchemaProps(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s[0]))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s api.JSONSchemaProps
		if err := json.Unmarshal(data, &s); err != nil {
			return
		}
		b, err := json.Marshal(&s)
		require.NoError(t, err)
		var back api.JSONSchemaProps
		require.NoError(t, json.Unmarshal(b, &back))
		b2, err := json.Marshal(&back)
		require.NoError(t, err)
		require.JSONEq(t, string(b), string(b2))

		c := s.DeepCopy()
		require.True(t, reflect.DeepEqual(&s, c))
		c.Required = append(c.Required, "mutated")
		if c.Properties != nil {
			c.Properties["mutated"] = api.JSONSchemaProps{}
		}
		_, had := s.Properties["mutated"]
		require.False(t, had && !hadKey(data))
	})
}

// hadKey reports whether the input itself had a "mutated" property, in
// which case its presence in the original proves nothing.
func hadKey(data []byte) bool {
	var m struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(data, &m)
	_, ok := m.Properties["mutated"]
	return ok
}
