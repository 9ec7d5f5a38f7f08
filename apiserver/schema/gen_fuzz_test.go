package schema

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
)

// byteSource turns fuzz bytes into choices; when the bytes run out every
// choice is 0, so any input gives a finite schema.
type byteSource struct {
	b []byte
	i int
}

func (r *byteSource) next() byte {
	if r.i >= len(r.b) {
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

func (r *byteSource) pick(n int) int { return int(r.next()) % n }

var (
	genTypes    = []string{"object", "array", "string", "integer", "number", "boolean", "", "null"}
	genNames    = []string{"a", "b", "c", "metadata", "kind", "apiVersion", "spec", "name"}
	genPatterns = []string{"^a+$", "[0-9]", "(", "^$", "x|y"}
	genFormats  = []string{"", "email", "date-time", "byte", "ipv4", "cidr", "uuid", "int32", "bogus", "hostname"}
)

func ptrF(v float64) *float64 { return &v }
func ptrI(v int64) *int64     { return &v }

// genSchema builds a schema tree from the bytes: types, properties,
// items, bounds, junctors, defaults and extensions, so that the fuzzer
// explores schema shapes instead of JSON syntax.
func genSchema(r *byteSource, depth int) *api.JSONSchemaProps {
	s := &api.JSONSchemaProps{Type: genTypes[r.pick(len(genTypes))]}
	flags := r.next()
	s.Nullable = flags&1 != 0
	if flags&2 != 0 {
		s.XPreserveUnknownFields = ptrTo(flags&64 == 0)
	}
	s.XIntOrString = flags&4 != 0 && flags&8 != 0
	s.XEmbeddedResource = flags&16 != 0 && flags&32 != 0
	if flags&128 != 0 {
		s.Default = &api.JSON{Raw: mustJSON(genValue(r, 2))}
	}
	more := r.next()
	if more&1 != 0 {
		s.Minimum = ptrF(float64(int8(r.next())))
		s.ExclusiveMinimum = more&2 != 0
	}
	if more&4 != 0 {
		s.Maximum = ptrF(float64(int8(r.next())) / 2)
		s.ExclusiveMaximum = more&8 != 0
	}
	if more&16 != 0 {
		s.MultipleOf = ptrF(float64(int8(r.next())) / 4)
	}
	if more&32 != 0 {
		s.MinLength, s.MaxLength = ptrI(int64(r.pick(4))), ptrI(int64(r.pick(6)))
		s.Pattern = genPatterns[r.pick(len(genPatterns))]
	}
	if more&64 != 0 {
		s.MinItems, s.MaxItems = ptrI(int64(r.pick(3))), ptrI(int64(r.pick(4)))
		s.MinProperties, s.MaxProperties = ptrI(int64(r.pick(3))), ptrI(int64(r.pick(4)))
		s.UniqueItems = r.next()&1 != 0
	}
	if more&128 != 0 {
		for n := r.pick(3); n >= 0; n-- {
			s.Enum = append(s.Enum, api.JSON{Raw: mustJSON(genValue(r, 1))})
		}
	}
	s.Format = genFormats[r.pick(len(genFormats))]
	if depth <= 0 {
		return s
	}
	shape := r.next()
	if shape&1 != 0 {
		s.Properties = map[string]api.JSONSchemaProps{}
		for n := r.pick(4); n > 0; n-- {
			name := genNames[r.pick(len(genNames))]
			s.Properties[name] = *genSchema(r, depth-1)
			if r.next()&1 != 0 {
				s.Required = append(s.Required, name)
			}
		}
	}
	if shape&2 != 0 {
		s.AdditionalProperties = &api.JSONSchemaPropsOrBool{Allows: shape&4 != 0}
		if shape&8 != 0 {
			s.AdditionalProperties.Schema = genSchema(r, depth-1)
		}
	}
	if shape&16 != 0 {
		s.Items = &api.JSONSchemaPropsOrArray{Schema: genSchema(r, depth-1)}
	}
	if shape&32 != 0 {
		j := r.next()
		switch j % 4 {
		case 0:
			s.AnyOf = []api.JSONSchemaProps{*genSchema(r, depth-1), *genSchema(r, depth-1)}
		case 1:
			s.AllOf = []api.JSONSchemaProps{*genSchema(r, depth-1)}
		case 2:
			s.OneOf = []api.JSONSchemaProps{*genSchema(r, depth-1), *genSchema(r, depth-1)}
		case 3:
			s.Not = genSchema(r, depth-1)
		}
	}
	if shape&64 != 0 {
		s.XListType = ptrTo([]string{"atomic", "set", "map", "x"}[r.pick(4)])
		if r.next()&1 != 0 {
			s.XListMapKeys = []string{genNames[r.pick(len(genNames))]}
		}
	}
	return s
}

// genValue builds a random unstructured value.
func genValue(r *byteSource, depth int) any {
	switch k := r.pick(9); {
	case k == 0:
		return nil
	case k == 1:
		return r.next()&1 != 0
	case k == 2:
		return int64(int8(r.next()))
	case k == 3:
		return float64(int8(r.next())) / 4
	case k == 4:
		return []string{"", "a", "aa", "root", "10.0.0.1", "x@y.z", "2024-01-01T00:00:00Z", "Bad_Kind", "v1"}[r.pick(9)]
	case k <= 6 && depth > 0:
		m := map[string]any{}
		for n := r.pick(4); n > 0; n-- {
			m[genNames[r.pick(len(genNames))]] = genValue(r, depth-1)
		}
		return m
	case depth > 0:
		var l []any
		for n := r.pick(4); n > 0; n-- {
			l = append(l, genValue(r, depth-1))
		}
		if l == nil {
			l = []any{}
		}
		return l
	}
	return "s"
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// FuzzGeneratedSchema runs every entry point on schemas and objects
// generated from the fuzz bytes: none may panic, Validate must be
// deterministic, and after pruning and defaulting with a schema the CRD API
// accepts, pruning again finds nothing unknown.
func FuzzGeneratedSchema(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 3, 0, 1, 3, 2, 1})
	f.Add([]byte{0, 128, 0, 0, 17, 1, 0, 4, 0, 0, 0, 0, 6, 5, 1, 2, 3})
	f.Add([]byte{1, 255, 255, 7, 200, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte{0, 2, 97, 0, 3, 1, 0, 1, 0, 0, 0, 0, 33, 0, 2, 0, 0, 0, 0, 0, 0, 9, 9, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &byteSource{b: data}
		s := genSchema(r, 3)
		obj := genValue(r, 4)

		structErrs := ValidateStructural(s, field.NewPath("schema"))
		first := Validate(s, obj, nil)
		require.Equal(t, messages(first), messages(Validate(s, obj, nil)), "Validate is not deterministic")

		Prune(s, obj, PruneOptions{IsResourceRoot: true})
		Default(s, obj)
		_ = Validate(s, obj, field.NewPath("x"))
		if len(structErrs) == 0 {
			again := Prune(s, obj, PruneOptions{IsResourceRoot: true, KeepNulls: true})
			require.Empty(t, again, "defaults of an accepted schema brought unknown fields")
		}
		walk(NewNode(s), obj, 0)

		// The schema survives JSON and DeepCopy.
		b, err := json.Marshal(s)
		require.NoError(t, err)
		var back api.JSONSchemaProps
		require.NoError(t, json.Unmarshal(b, &back))
		require.JSONEq(t, string(b), string(mustJSON(s.DeepCopy())))
	})
}

// A Compiled schema answers what the package's functions answer: the same
// unknown fields pruned, the same object after pruning and defaulting,
// the same errors.
func FuzzCompiledAgreesWithThePlainWalks(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 3, 0, 1, 3, 2, 1})
	f.Add([]byte{0, 128, 0, 0, 17, 1, 0, 4, 0, 0, 0, 0, 6, 5, 1, 2, 3})
	f.Add([]byte{1, 255, 255, 7, 200, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte{0, 2, 97, 0, 3, 1, 0, 1, 0, 0, 0, 0, 33, 0, 2, 0, 0, 0, 0, 0, 0, 9, 9, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &byteSource{b: data}
		s := genSchema(r, 3)
		obj := genValue(r, 4)
		c := Compile(s.DeepCopy())
		for _, opts := range []PruneOptions{{IsResourceRoot: true}, {}, {KeepNulls: true}} {
			plain, compiled := mustObjCopy(t, obj), mustObjCopy(t, obj)
			require.Equal(t, Prune(s, plain, opts), c.Prune(compiled, opts), "%+v", opts)
			require.Equal(t, string(mustJSON(plain)), string(mustJSON(compiled)), "pruned %+v", opts)
			Default(s, plain)
			c.Default(compiled)
			require.Equal(t, string(mustJSON(plain)), string(mustJSON(compiled)), "defaulted %+v", opts)
			require.Equal(t, messages(Validate(s, plain, field.NewPath("x"))), messages(c.Validate(compiled, field.NewPath("x"))))
		}
	})
}

func mustObjCopy(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	out, err := decodeJSON(b)
	require.NoError(t, err)
	return out
}

func TestCompiledAgreesOnAWidget(t *testing.T) {
	s := mustSchema(t, `
type: object
properties:
  spec:
    type: object
    required: [color]
    properties:
      color: {type: string, enum: [red, green, blue]}
      size: {type: integer, maximum: 10, exclusiveMaximum: true}
      replicas: {type: integer, default: 1}
      ports:
        type: array
        items:
          type: object
          properties:
            port: {type: integer}
            protocol: {type: string, default: TCP}
      note: {type: string, nullable: true}
      labels: {type: object, additionalProperties: {type: string, default: x}}
  status: {type: object, properties: {replicas: {type: integer}}}
`)
	c := Compile(s.DeepCopy())
	for _, o := range []string{
		`{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"green","size":3,"ports":[{"port":80},{"port":443,"extra":1}]}}`,
		`{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"pink","size":10,"replicas":null,"note":null,"labels":{"a":null}},"bogus":true}`,
		`{"spec":{"ports":[null,{"protocol":null}],"size":"big"},"status":{"replicas":"x","other":1}}`,
	} {
		for _, opts := range []PruneOptions{{IsResourceRoot: true}, {}, {KeepNulls: true}} {
			plain, compiled := mustObj(t, o), mustObj(t, o)
			assert.Equal(t, Prune(s, plain, opts), c.Prune(compiled, opts), o)
			Default(s, plain)
			c.Default(compiled)
			assert.Equal(t, toJSON(t, plain), toJSON(t, compiled), o)
			assert.Equal(t, messages(Validate(s, plain, nil)), messages(c.Validate(compiled, nil)), o)
		}
	}
}
