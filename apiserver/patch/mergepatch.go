package patch

import (
	"encoding/json"
	"net/http"
)

// The messages of evanphx/json-patch's ErrBadJSONDoc and ErrBadJSONPatch,
// which the API server passes on.
const (
	msgBadJSONDoc   = "Invalid JSON Document"
	msgBadJSONPatch = "Invalid JSON Patch"
)

// MergePatch applies an RFC 7386 JSON merge patch (Content-Type
// application/merge-patch+json) to a JSON document: objects merge key by key,
// a null deletes the key, anything else replaces. It follows
// evanphx/json-patch v4 as the API server uses it: a patch that is not JSON,
// null or a scalar is a 400 "Invalid JSON Patch"; an array patch replaces
// the whole document; nulls nested in values that are added are dropped.
func MergePatch(original, patch []byte) ([]byte, error) {
	doc, docErr := decodeJSON(original)
	p, patchErr := decodeJSON(patch)
	if docErr != nil || doc == nil {
		// Kubernetes returns this one unclassified: a 500.
		return nil, &Error{Code: http.StatusInternalServerError, Message: msgBadJSONDoc}
	}
	if patchErr != nil || p == nil {
		return nil, badRequest(msgBadJSONPatch)
	}
	var out any
	docMap, docIsMap := doc.(map[string]any)
	switch pt := p.(type) {
	case map[string]any:
		if docIsMap {
			out = MergePatchMap(docMap, pt)
		} else {
			out = pruneNulls(pt)
		}
	case []any:
		out = pruneNulls(pt)
	default:
		return nil, badRequest(msgBadJSONPatch)
	}
	return json.Marshal(out)
}

// MergePatchMap is MergePatch on decoded objects. Neither argument is
// modified; the result shares nothing with them.
func MergePatchMap(original, patch map[string]any) map[string]any {
	out := copyMap(original)
	if out == nil {
		out = map[string]any{}
	}
	mergeDocs(out, patch)
	return out
}

// mergeDocs merges patch into doc in place.
func mergeDocs(doc, patch map[string]any) {
	for k, pv := range patch {
		if pv == nil {
			delete(doc, k)
			continue
		}
		cur, ok := doc[k]
		curMap, curIsMap := cur.(map[string]any)
		pMap, pIsMap := pv.(map[string]any)
		switch {
		case !ok || cur == nil || !curIsMap:
			doc[k] = pruneNulls(deepCopyJSON(pv))
		case !pIsMap:
			// evanphx takes a non-object patch value over an object as is.
			doc[k] = deepCopyJSON(pv)
		default:
			mergeDocs(curMap, pMap)
		}
	}
}

// pruneNulls drops null members of objects, recursively, but keeps null
// array elements, as evanphx/json-patch does for values a merge patch adds.
func pruneNulls(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if e != nil {
				out[k] = pruneNulls(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = pruneNulls(e)
		}
		return out
	default:
		return v
	}
}
