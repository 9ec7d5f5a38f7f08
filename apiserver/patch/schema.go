package patch

import (
	"reflect"
	"strings"
)

// Schema is what patching needs to know about one node of an object's schema.
// A nil Schema means "unknown": lists are replaced wholesale and maps merged.
type Schema interface {
	// Field returns the schema of the named property of an object, or nil.
	Field(name string) Schema
	// Elem returns the schema of list items or of map values, or nil.
	Elem() Schema
	// PatchStrategy returns this list's (or map's) strategic merge strategy
	// ("", "merge", "replace", "retainKeys", "merge,retainKeys") and merge key.
	PatchStrategy() (strategy, mergeKey string)
	// ListType returns x-kubernetes-list-type ("atomic", "set", "map" or "") and
	// x-kubernetes-list-map-keys, used by server-side apply.
	ListType() (listType string, mapKeys []string)
}

// childSchema returns the schema of the value under key in the object or map
// described by s: a declared property first, else the map's value schema.
// It is nil-safe because a nil Schema is the common "unknown" case.
func childSchema(s Schema, key string) Schema {
	if s = known(s); s == nil {
		return nil
	}
	if f := known(s.Field(key)); f != nil {
		return f
	}
	return known(s.Elem())
}

// elemSchema is the nil-safe Elem.
func elemSchema(s Schema) Schema {
	if s = known(s); s == nil {
		return nil
	}
	return known(s.Elem())
}

// known turns a Schema holding a nil pointer into a nil Schema, so that an
// implementation returning a typed nil still means "unknown".
func known(s Schema) Schema {
	if s == nil {
		return nil
	}
	if v := reflect.ValueOf(s); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return s
}

// isDeclaredField tells a struct property (Field) from a map entry (Elem).
// Server-side apply tracks map entries as members of their own, as
// structured-merge-diff does, but not struct properties. Unknown schemas
// count as declared so that unschema'd objects record only leaves.
func isDeclaredField(s Schema, key string) bool {
	if s = known(s); s == nil {
		return true
	}
	if known(s.Field(key)) != nil {
		return true
	}
	return known(s.Elem()) == nil
}

// patchMeta returns the strategic merge strategy ("merge", "replace" or "")
// and merge key of s, with "retainKeys" split off: the server acts on the
// $retainKeys directive in the patch, not on the strategy.
func patchMeta(s Schema) (strategy, mergeKey string) {
	if s = known(s); s == nil {
		return "", ""
	}
	raw, key := s.PatchStrategy()
	for _, part := range strings.Split(raw, ",") {
		switch part = strings.TrimSpace(part); part {
		case "merge", "replace":
			strategy = part
		}
	}
	return strategy, key
}
