package schema

import (
	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
)

// Compiled is a schema prepared once for the walks every request makes
// (the apiextensions-apiserver likewise converts a CRD version's schema
// to its structural form once and keeps it with the served version).
// JSONSchemaProps keeps properties by value in a map, so a walk that
// descends into a property must copy it to take its address — a copy
// that escapes to the heap, several per field of every custom resource
// create: the schema walks were a third of a create's allocations.
// Compiled keeps one copy of every property, made here, and the walks
// descend through those.
//
// Its Prune, Default and Validate answer exactly what the package's
// functions of the same names answer for its schema (a fuzz test holds
// them to it). The schema must not change after Compile.
type Compiled struct {
	root *api.JSONSchemaProps
	// embeddedRoot is root marked x-kubernetes-embedded-resource, which
	// Prune uses for a whole object (PruneOptions.IsResourceRoot).
	embeddedRoot *api.JSONSchemaProps
	props        map[*api.JSONSchemaProps]map[string]*api.JSONSchemaProps
	// keys are each node's property names, sorted (the walks visit
	// properties in order, so that errors and defaults come out the same
	// every time).
	keys map[*api.JSONSchemaProps][]string
}

// Compile prepares s (nil: no schema).
func Compile(s *api.JSONSchemaProps) *Compiled {
	c := &Compiled{root: s, props: map[*api.JSONSchemaProps]map[string]*api.JSONSchemaProps{},
		keys: map[*api.JSONSchemaProps][]string{}}
	if s == nil {
		return c
	}
	c.index(s)
	c.embeddedRoot = s
	if !s.XEmbeddedResource {
		e := *s
		e.XEmbeddedResource = true
		c.embeddedRoot = &e
		c.props[&e], c.keys[&e] = c.props[s], c.keys[s] // the same properties
	}
	return c
}

// Schema is the schema c was compiled from.
func (c *Compiled) Schema() *api.JSONSchemaProps { return c.root }

func (c *Compiled) index(s *api.JSONSchemaProps) {
	if s == nil {
		return
	}
	if _, done := c.props[s]; done {
		return
	}
	m := make(map[string]*api.JSONSchemaProps, len(s.Properties))
	c.props[s] = m
	c.keys[s] = sortedSchemaKeys(s.Properties)
	for k, v := range s.Properties {
		p := v
		m[k] = &p
		c.index(&p)
	}
	if s.Items != nil {
		c.index(s.Items.Schema)
		for i := range s.Items.JSONSchemas {
			c.index(&s.Items.JSONSchemas[i])
		}
	}
	if s.AdditionalProperties != nil {
		c.index(s.AdditionalProperties.Schema)
	}
	if s.AdditionalItems != nil {
		c.index(s.AdditionalItems.Schema)
	}
	for _, l := range [][]api.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range l {
			c.index(&l[i])
		}
	}
	c.index(s.Not)
}

// property is s.Properties[k], without a copy when c prepared s (a nil c,
// the package's plain functions, copies as before).
func (c *Compiled) property(s *api.JSONSchemaProps, k string) (*api.JSONSchemaProps, bool) {
	if c != nil {
		if m, ok := c.props[s]; ok {
			p, ok := m[k]
			return p, ok
		}
	}
	p, ok := s.Properties[k]
	if !ok {
		return nil, false
	}
	return &p, true
}

// propertyNames is sortedSchemaKeys(s.Properties), made once when c
// prepared s.
func (c *Compiled) propertyNames(s *api.JSONSchemaProps) []string {
	if c != nil {
		if k, ok := c.keys[s]; ok {
			return k
		}
	}
	return sortedSchemaKeys(s.Properties)
}

// Prune is the package's Prune with c's schema.
func (c *Compiled) Prune(obj any, opts PruneOptions) []string {
	s := c.root
	if opts.IsResourceRoot {
		if s == nil {
			return prune(nil, nil, obj, opts)
		}
		s = c.embeddedRoot
		opts.IsResourceRoot = false // s is already the embedded root
	}
	return prune(c, s, obj, opts)
}

// Default is the package's Default with c's schema.
func (c *Compiled) Default(obj any) { defaults(c, c.root, obj) }

// Validate is the package's Validate with c's schema.
func (c *Compiled) Validate(obj any, fldPath *field.Path) field.ErrorList {
	return validate(c, c.root, obj, fldPath)
}
