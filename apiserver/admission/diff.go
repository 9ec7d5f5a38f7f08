package admission

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Diff returns the JSON patch (RFC 6902) that turns the JSON document
// before into after, or nil when they are equal: how the trace shows what
// a built-in plugin changed. Lists that differ are replaced whole.
func Diff(before, after []byte) []byte {
	var b, a any
	if json.Unmarshal(before, &b) != nil || json.Unmarshal(after, &a) != nil {
		return nil
	}
	var ops []map[string]any
	diffValue("", b, a, &ops)
	if len(ops) == 0 {
		return nil
	}
	out, _ := json.Marshal(ops)
	return out
}

func diffValue(path string, b, a any, ops *[]map[string]any) {
	bm, bok := b.(map[string]any)
	am, aok := a.(map[string]any)
	if !bok || !aok {
		if !reflect.DeepEqual(b, a) {
			*ops = append(*ops, map[string]any{"op": "replace", "path": path, "value": a})
		}
		return
	}
	for _, k := range slices.Sorted(maps.Keys(bm)) {
		if _, ok := am[k]; !ok {
			*ops = append(*ops, map[string]any{"op": "remove", "path": path + "/" + escape(k)})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(am)) {
		bv, ok := bm[k]
		if !ok {
			*ops = append(*ops, map[string]any{"op": "add", "path": path + "/" + escape(k), "value": am[k]})
			continue
		}
		diffValue(path+"/"+escape(k), bv, am[k], ops)
	}
}

// escape writes a key as a JSON pointer token.
func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
