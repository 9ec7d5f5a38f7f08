package schema

import (
	"github.com/kubesim/kubesim/api"
)

// Default fills in `default:` values of s into obj, in place: a property
// that is missing, or null while the schema is not nullable, gets a copy of
// its default. It recurses through properties, additionalProperties (map
// values) and items (list elements), so `ports: [{port: 80}]` becomes
// `[{port: 80, protocol: TCP}]`. Like structural defaulting in the
// apiextensions-apiserver, it never reports errors: defaults were checked
// when the schema was accepted, and a default that does not decode is
// skipped.
func Default(s *api.JSONSchemaProps, obj any) { defaults(nil, s, obj) }

func defaults(c *Compiled, s *api.JSONSchemaProps, obj any) {
	if s == nil {
		return
	}
	switch x := obj.(type) {
	case map[string]any:
		for _, k := range c.propertyNames(s) {
			if s.Properties[k].Default == nil {
				continue
			}
			prop, _ := c.property(s, k)
			if v, found := x[k]; !found || isNonNullableNull(v, prop) {
				if d, ok := defaultValue(prop); ok {
					x[k] = d
				}
			}
		}
		for k, v := range x {
			if prop, found := c.property(s, k); found {
				defaults(c, prop, v)
				continue
			}
			if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
				as := s.AdditionalProperties.Schema
				if isNonNullableNull(v, as) {
					if d, ok := defaultValue(as); ok {
						x[k] = d
						v = d
					}
				}
				defaults(c, as, v)
			}
		}
	case []any:
		if s.Items == nil || s.Items.Schema == nil {
			return
		}
		is := s.Items.Schema
		for i, v := range x {
			if isNonNullableNull(v, is) {
				if d, ok := defaultValue(is); ok {
					x[i] = d
					v = d
				}
			}
			defaults(c, is, v)
		}
	}
}

func isNonNullableNull(v any, s *api.JSONSchemaProps) bool {
	return v == nil && s != nil && !s.Nullable
}

// defaultValue decodes a fresh copy of the node's default, so that the
// object never shares maps with the schema.
func defaultValue(s *api.JSONSchemaProps) (any, bool) {
	if s.Default == nil || len(s.Default.Raw) == 0 {
		return nil, false
	}
	if v, ok := simpleLiteral(s.Default.Raw); ok {
		return v, true // a scalar: nothing shared with the schema
	}
	v, err := decodeJSON(s.Default.Raw)
	if err != nil {
		return nil, false
	}
	return v, true
}
