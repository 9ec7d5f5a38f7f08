package schema

import (
	"sort"
	"strconv"

	"github.com/kubesim/kubesim/api"
)

// PruneOptions tunes Prune.
type PruneOptions struct {
	// IsResourceRoot says obj is a whole object: apiVersion, kind and
	// metadata at its top are then kept even if the schema does not list
	// them, as for x-kubernetes-embedded-resource.
	IsResourceRoot bool
	// KeepNulls turns off dropping nulls of non-nullable fields without a
	// default (on by default, as the apiserver does on create and update).
	KeepNulls bool
}

// metaFields are the fields every Kubernetes object has; the schema of a
// resource root or embedded resource need not mention them.
var metaFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// Prune removes, in place, every field of obj that s does not specify,
// unless x-kubernetes-preserve-unknown-fields applies at that level, and
// returns the paths of what it removed ("spec.foo", "spec.ports[0].bar"),
// sorted. The apiserver drops these silently by default and rejects them
// with `unknown field "spec.foo"` under fieldValidation=Strict.
//
// Unless opts.KeepNulls, it then drops nulls of fields that are neither
// nullable nor defaulted, so that such an object is accepted rather than
// failing "must be of type ...: \"null\"".
func Prune(s *api.JSONSchemaProps, obj any, opts PruneOptions) []string {
	return prune(nil, s, obj, opts)
}

func prune(c *Compiled, s *api.JSONSchemaProps, obj any, opts PruneOptions) []string {
	if opts.IsResourceRoot {
		if s == nil {
			s = &api.JSONSchemaProps{}
		}
		if !s.XEmbeddedResource {
			c := *s
			c.XEmbeddedResource = true
			s = &c
		}
	}
	p := &pruner{c: c}
	p.prune(obj, s, "", true)
	if !opts.KeepNulls {
		pruneNulls(c, s, obj)
	}
	sort.Strings(p.unknown)
	return p.unknown
}

// pruner walks maps in whatever order they range in: what it removes does
// not depend on the order, and the unknown paths are sorted at the end.
type pruner struct {
	c       *Compiled
	unknown []string
}

func preserves(s *api.JSONSchemaProps) bool {
	return s != nil && s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
}

func joinKey(parent, k string) string {
	if parent == "" {
		return k
	}
	return parent + "." + k
}

func (p *pruner) prune(x any, s *api.JSONSchemaProps, path string, root bool) {
	if preserves(s) {
		p.skipPrune(x, s, path)
		return
	}
	switch x := x.(type) {
	case map[string]any:
		if s == nil {
			for k := range x {
				p.unknown = append(p.unknown, joinKey(path, k))
				delete(x, k)
			}
			return
		}
		for k, v := range x {
			if s.XEmbeddedResource {
				switch k {
				case "apiVersion", "kind":
					if _, ok := v.(string); ok {
						continue
					}
				case "metadata":
					if _, ok := v.(map[string]any); ok {
						continue
					}
				}
			}
			if prop, ok := p.c.property(s, k); ok {
				p.prune(v, prop, joinKey(path, k), false)
			} else if s.AdditionalProperties != nil {
				p.prune(v, s.AdditionalProperties.Schema, joinKey(path, k), false)
			} else {
				// Kubernetes leaves a malformed top-level apiVersion, kind
				// or metadata to other checks and does not call it unknown.
				if !metaFields[k] || !root {
					p.unknown = append(p.unknown, joinKey(path, k))
				}
				delete(x, k)
			}
		}
	case []any:
		var items *api.JSONSchemaProps
		if s != nil && s.Items != nil {
			items = s.Items.Schema
		}
		for i, v := range x {
			p.prune(v, items, path+"["+strconv.Itoa(i)+"]", false)
		}
	}
}

// skipPrune walks a preserving node: unknown fields stay, but known
// properties below are pruned by their own schemas.
func (p *pruner) skipPrune(x any, s *api.JSONSchemaProps, path string) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			if s.XEmbeddedResource && metaFields[k] {
				continue
			}
			if prop, ok := p.c.property(s, k); ok {
				p.prune(v, prop, joinKey(path, k), false)
			} else if s.AdditionalProperties != nil {
				p.prune(v, s.AdditionalProperties.Schema, joinKey(path, k), false)
			}
		}
	case []any:
		if s.Items == nil {
			return
		}
		for i, v := range x {
			p.skipPrune(v, s.Items.Schema, path+"["+strconv.Itoa(i)+"]")
		}
	}
}

// PruneNonNullableNullsWithoutDefaults deletes, in place, object fields
// whose value is null while their schema is neither nullable nor has a
// default (a defaulted null is replaced by Default instead).
func PruneNonNullableNullsWithoutDefaults(s *api.JSONSchemaProps, obj any) {
	pruneNulls(nil, s, obj)
}

func pruneNulls(c *Compiled, s *api.JSONSchemaProps, obj any) {
	if s == nil {
		return
	}
	switch x := obj.(type) {
	case map[string]any:
		for k, v := range x {
			var sub *api.JSONSchemaProps
			if prop, ok := c.property(s, k); ok {
				sub = prop
			} else if s.AdditionalProperties != nil {
				sub = s.AdditionalProperties.Schema
			}
			if sub == nil {
				continue
			}
			if v == nil && !sub.Nullable && sub.Default == nil {
				delete(x, k)
				continue
			}
			pruneNulls(c, sub, v)
		}
	case []any:
		if s.Items == nil {
			return
		}
		for _, v := range x {
			pruneNulls(c, s.Items.Schema, v)
		}
	}
}
