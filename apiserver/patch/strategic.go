package patch

import (
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
)

// Strategic merge patch directives, as kubectl writes them.
const (
	directiveMarker          = "$patch"
	replaceDirective         = "replace"
	mergeDirective           = "merge"
	deleteDirective          = "delete"
	retainKeysDirective      = "$retainKeys"
	deleteFromPrimitiveList  = "$deleteFromPrimitiveList"
	setElementOrderDirective = "$setElementOrder"
)

// The errors of k8s.io/apimachinery/pkg/util/mergepatch, with the status the
// API server's interpretStrategicMergePatchError gives them.
var (
	errBadJSONDoc                    = &Error{Code: http.StatusBadRequest, Message: "invalid JSON document"}
	errNoListOfLists                 = &Error{Code: http.StatusUnprocessableEntity, Message: "lists of lists are not supported"}
	errBadPatchFormatForPrimitive    = &Error{Code: http.StatusBadRequest, Message: "invalid patch format of primitive list"}
	errBadPatchFormatForRetainKeys   = &Error{Code: http.StatusBadRequest, Message: "invalid patch format of retainKeys"}
	errBadPatchFormatForSetElemOrder = &Error{Code: http.StatusBadRequest, Message: "invalid patch format of setElementOrder list"}
)

// internalError is an error Kubernetes does not classify; the API server
// answers it with a 500 carrying the message.
func internalError(format string, args ...any) *Error {
	return &Error{Code: http.StatusInternalServerError, Message: fmt.Sprintf(format, args...)}
}

func errNoMergeKey(m map[string]any, key string) *Error {
	return internalError("map: %v does not contain declared merge key: %s", m, key)
}

// goTypeName names a value's Go type as reflect does in Kubernetes' messages.
func goTypeName(v any) string {
	if v == nil {
		return "%!s(<nil>)"
	}
	return reflect.TypeOf(v).String()
}

func errBadArgType(expected, actual any) *Error {
	return internalError("expected a %s, but received a %s", goTypeName(expected), goTypeName(actual))
}

// errBadPatchType refuses an unknown $patch directive. It is the client's
// mistake, so 422 Unprocessable Entity rather than the 500 that a plain
// error becomes in kube-apiserver: nothing about the server failed.
func errBadPatchType(t any, m map[string]any) *Error {
	return &Error{Code: http.StatusUnprocessableEntity, Message: fmt.Sprintf("unknown patch type: %s in map: %v", t, m)}
}

// DecodeObject decodes a request body that must be a JSON object, such as a
// strategic merge patch, answering 400 Bad Request otherwise.
func DecodeObject(data []byte) (map[string]any, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return nil, badRequest("%s", err.Error())
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errBadJSONDoc
	}
	return m, nil
}

// StrategicMergePatch applies a strategic merge patch (Content-Type
// application/strategic-merge-patch+json) to an object, as
// strategicpatch.StrategicMergeMapPatch does on the server:
//
//   - maps merge recursively; "field": null deletes the field;
//   - a list whose schema has patch strategy "merge" and a merge key merges
//     element by element on that key, new elements in patch order; a list of
//     primitives with strategy "merge" is a union; other lists are replaced;
//   - {"$patch": "replace"} replaces a map (or, as a list element, the whole
//     list); {"$patch": "delete"} empties a map (or, with the merge key,
//     deletes that element); {"$patch": "merge"} on a map is the default;
//   - "$setElementOrder/<list>" orders the merged list as given, slotting in
//     elements only the server has where they were;
//   - "$deleteFromPrimitiveList/<list>" removes values from a primitive list;
//   - "$retainKeys" clears every field of the map the list does not name.
//
// The inputs are not modified. Errors are *Error with the status Kubernetes
// answers.
func StrategicMergePatch(original map[string]any, patch map[string]any, schema Schema) (map[string]any, error) {
	if patch == nil {
		patch = map[string]any{}
	}
	out, err := mergeMap(copyMap(original), copyMap(patch), schema)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// mergeMap merges patch into original, both owned by the caller and changed
// in place, and returns the result.
func mergeMap(original, patch map[string]any, s Schema) (map[string]any, error) {
	if v, ok := patch[directiveMarker]; ok {
		switch v {
		case replaceDirective:
			delete(patch, directiveMarker)
			out, _ := cleanAdded(patch)
			return out.(map[string]any), nil
		case deleteDirective:
			return map[string]any{}, nil
		case mergeDirective:
			// Kubernetes rejects this on a map as an unknown patch type;
			// kubesim accepts it as an explicit spelling of the default.
			delete(patch, directiveMarker)
		default:
			return nil, errBadPatchType(v, patch)
		}
	}
	if original == nil {
		original = map[string]any{}
	}
	if err := applyRetainKeys(original, patch); err != nil {
		return nil, err
	}
	if err := mergeSetElementOrder(original, patch, s); err != nil {
		return nil, err
	}

	// Kubernetes ranges over the map; sorted keys make the result repeatable.
	for _, k := range sortedKeys(patch) {
		patchV := patch[k]
		isDeleteList := false
		if strings.HasPrefix(k, deleteFromPrimitiveList) {
			key, err := extractKey(k, deleteFromPrimitiveList)
			if err != nil {
				return nil, err
			}
			k, isDeleteList = key, true
		}
		if patchV == nil {
			// null deletes; a null for a field the object lacks is dropped.
			delete(original, k)
			continue
		}
		fieldSchema := childSchema(s, k)
		origV, ok := original[k]
		if !ok || reflect.TypeOf(origV) != reflect.TypeOf(patchV) {
			// Nothing to merge with: take the patch value (but never a
			// deletion list as a value).
			if !isDeleteList {
				setAdded(original, k, patchV)
			}
			continue
		}
		strategy, _ := patchMeta(fieldSchema)
		var err error
		switch ov := origV.(type) {
		case map[string]any:
			if strategy == replaceDirective {
				setAdded(original, k, patchV)
			} else {
				original[k], err = mergeMap(ov, patchV.(map[string]any), fieldSchema)
			}
		case []any:
			original[k], err = mergeSliceHandler(ov, patchV, fieldSchema, isDeleteList)
		default:
			original[k] = patchV
		}
		if err != nil {
			return nil, err
		}
	}
	return original, nil
}

// cleanAdded prepares a patch value that lands where there is nothing to
// merge with (a new field, a new list element, a replaced list): nulls are
// dropped and any map carrying "$patch" is removed, as Kubernetes does since
// it stopped storing directives (discardNullValuesFromPatch and
// removeDirectives). It also drops other "$" keys, which Kubernetes leaves
// for the typed decoding to discard. ok is false when the value itself is a
// directive and the field must not be kept.
func cleanAdded(v any) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t[directiveMarker]; ok {
			return nil, false
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			if e == nil || strings.HasPrefix(k, "$") {
				continue
			}
			if c, keep := cleanAdded(e); keep {
				out[k] = c
			}
		}
		return out, true
	case []any:
		out := make([]any, 0, len(t))
		for _, e := range t {
			if c, keep := cleanAdded(e); keep {
				out = append(out, c)
			}
		}
		return out, true
	}
	return v, true
}

// setAdded stores a cleaned patch value under k, or removes k when the
// value was only a directive.
func setAdded(m map[string]any, k string, v any) {
	if c, keep := cleanAdded(v); keep {
		m[k] = c
	} else {
		delete(m, k)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// extractKey returns "<list>" from "<prefix>/<list>".
func extractKey(s, prefix string) (string, error) {
	parts := strings.SplitN(s, "/", 2)
	if len(parts) <= 1 || parts[0] != prefix {
		if prefix == deleteFromPrimitiveList {
			return "", errBadPatchFormatForPrimitive
		}
		return "", errBadPatchFormatForSetElemOrder
	}
	return parts[1], nil
}

// applyRetainKeys handles "$retainKeys": every field of original not in the
// list is cleared, and the patch may only set fields in the list. kubectl
// sends it for volumes and the deployment strategy, so that switching a
// volume from emptyDir to hostPath drops the emptyDir.
func applyRetainKeys(original, patch map[string]any) error {
	retain, ok := patch[retainKeysDirective]
	if !ok {
		return nil
	}
	delete(patch, retainKeysDirective)
	list, ok := retain.([]any)
	if !ok {
		return errBadPatchFormatForRetainKeys
	}
	retained := func(k string) bool {
		for _, v := range list {
			if s, ok := v.(string); ok && s == k {
				return true
			}
		}
		return false
	}
	for k, v := range patch {
		if v == nil || strings.HasPrefix(k, deleteFromPrimitiveList) || strings.HasPrefix(k, setElementOrderDirective) {
			continue
		}
		if !retained(k) {
			return errBadPatchFormatForRetainKeys
		}
	}
	for k := range original {
		if !retained(k) {
			delete(original, k)
		}
	}
	return nil
}

// mergeSetElementOrder merges each list that has a "$setElementOrder/<list>"
// directive and puts its elements in the directive's order: the order of the
// directive first, then that of the patch, then that of the live list.
// The lists it handles are removed from patch.
func mergeSetElementOrder(original, patch map[string]any, s Schema) error {
	for _, key := range sortedKeys(patch) {
		if !strings.HasPrefix(key, setElementOrderDirective) {
			continue
		}
		orderV := patch[key]
		delete(patch, key)
		order, ok := orderV.([]any)
		if !ok {
			return errBadArgType([]any{}, orderV)
		}
		listKey, err := extractKey(key, setElementOrderDirective)
		if err != nil {
			return err
		}
		var origList, patchList []any
		origV, foundOrig := original[listKey]
		patchV, foundPatch := patch[listKey]
		if foundOrig {
			if origList, ok = origV.([]any); !ok {
				return errBadArgType([]any{}, origV)
			}
		}
		if foundPatch {
			if patchList, ok = patchV.([]any); !ok {
				return errBadArgType([]any{}, patchV)
			}
		}
		fieldSchema := childSchema(s, listKey)
		_, mergeKey := patchMeta(fieldSchema)
		if err := validatePatchWithSetOrderList(patchList, order, mergeKey); err != nil {
			return err
		}
		var merged []any
		switch {
		case foundOrig && !foundPatch:
			merged = origList
		case !foundOrig && foundPatch:
			cleaned, _ := cleanAdded(patchList)
			merged = cleaned.([]any)
		case foundOrig && foundPatch:
			if merged, err = mergeSliceHandler(origList, patchList, fieldSchema, false); err != nil {
				return err
			}
		default:
			continue
		}
		var patchItems, serverOnly []any
		if mergeKey == "" {
			patchItems, serverOnly = partitionPrimitives(merged, order)
		} else if patchItems, serverOnly, err = partitionMaps(merged, order, mergeKey); err != nil {
			return err
		}
		isMap, err := sliceElementKind(origList, patchList)
		if err != nil {
			return err
		}
		both, err := normalizeElementOrder(patchItems, serverOnly, order, origList, mergeKey, isMap)
		if err != nil {
			return err
		}
		original[listKey] = both
		delete(patch, listKey)
	}
	return nil
}

// validatePatchWithSetOrderList checks that the patch list's elements appear
// in the directive, in the same relative order.
func validatePatchWithSetOrderList(patchList, order []any, mergeKey string) error {
	if len(order) == 0 || len(patchList) == 0 {
		return nil
	}
	nonDelete := patchList
	if mergeKey != "" {
		var err error
		if nonDelete, _, err = extractToDeleteItems(patchList); err != nil {
			return err
		}
	}
	pi, oi := 0, 0
	for pi < len(nonDelete) && oi < len(order) {
		if containsDirectiveMarker(nonDelete[pi]) {
			pi++
			continue
		}
		equal, err := mergeKeyValueEqual(nonDelete[pi], order[oi], mergeKey)
		if err != nil {
			return err
		}
		if equal {
			pi++
		}
		oi++
	}
	if pi < len(nonDelete) && oi >= len(order) {
		return internalError("the order in patch list:\n%v\n doesn't match %s list:\n%v", patchList, setElementOrderDirective, order)
	}
	return nil
}

func containsDirectiveMarker(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, found := m[directiveMarker]
	return found
}

func mergeKeyValueEqual(left, right any, mergeKey string) (bool, error) {
	if mergeKey == "" {
		return sameScalar(left, right), nil
	}
	l, ok := left.(map[string]any)
	if !ok {
		return false, errBadArgType(map[string]any{}, left)
	}
	r, ok := right.(map[string]any)
	if !ok {
		return false, errBadArgType(map[string]any{}, right)
	}
	lv, ok := l[mergeKey]
	if !ok {
		return false, errNoMergeKey(l, mergeKey)
	}
	rv, ok := r[mergeKey]
	if !ok {
		return false, errNoMergeKey(r, mergeKey)
	}
	return sameScalar(lv, rv), nil
}

// sameScalar is Go's == on interface values, as Kubernetes compares merge
// key values and primitives, except that it never panics: maps and lists
// (which == cannot compare) are never the same.
func sameScalar(a, b any) bool {
	switch a.(type) {
	case map[string]any, []any:
		return false
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	return a == b
}

// mergeSliceHandler merges a list field according to its patch strategy.
func mergeSliceHandler(original []any, patchV any, s Schema, isDeleteList bool) ([]any, error) {
	patch, ok := patchV.([]any)
	if !ok {
		return nil, errBadArgType([]any{}, patchV)
	}
	strategy, mergeKey := patchMeta(s)
	// A deletion list deletes whatever the field's strategy.
	if strategy == mergeDirective || isDeleteList {
		return mergeSlice(original, patch, elemSchema(s), mergeKey, isDeleteList)
	}
	out, _ := cleanAdded(patch)
	return out.([]any), nil
}

// mergeSlice merges two lists with the "merge" strategy.
func mergeSlice(original, patch []any, elem Schema, mergeKey string, isDeleteList bool) ([]any, error) {
	if len(original) == 0 && len(patch) == 0 {
		return original, nil
	}
	isMap, err := sliceElementKind(original, patch)
	if err != nil {
		return nil, err
	}
	var merged []any
	if !isMap {
		if isDeleteList {
			return deleteFromSlice(original, patch), nil
		}
		both := append(append([]any{}, original...), patch...)
		merged = deduplicateScalars(both)
	} else {
		if mergeKey == "" {
			return nil, internalError("cannot merge lists without merge key for type struct")
		}
		original, patch, err = mergeSliceWithSpecialElements(original, patch, mergeKey)
		if err != nil {
			return nil, err
		}
		merged, err = mergeSliceWithoutSpecialElements(original, patch, mergeKey, elem)
		if err != nil {
			return nil, err
		}
	}
	var patchItems, serverOnly []any
	if mergeKey == "" {
		patchItems, serverOnly = partitionPrimitives(merged, patch)
	} else if patchItems, serverOnly, err = partitionMaps(merged, patch, mergeKey); err != nil {
		return nil, err
	}
	return normalizeElementOrder(patchItems, serverOnly, patch, original, mergeKey, isMap)
}

// mergeSliceWithSpecialElements applies the elements carrying "$patch":
// deletions by merge key, and "replace", which makes the rest of the patch
// the whole list.
func mergeSliceWithSpecialElements(original, patch []any, mergeKey string) ([]any, []any, error) {
	plain := []any{}
	replace := false
	for _, v := range patch {
		m := v.(map[string]any) // sliceElementKind checked
		directive, ok := m[directiveMarker]
		if !ok {
			plain = append(plain, v)
			continue
		}
		switch directive {
		case deleteDirective:
			value, ok := m[mergeKey]
			if !ok {
				return nil, nil, errNoMergeKey(m, mergeKey)
			}
			var err error
			if original, err = deleteMatchingEntries(original, mergeKey, value); err != nil {
				return nil, nil, err
			}
		case replaceDirective:
			replace = true
		case mergeDirective:
			return nil, nil, internalError("merging lists cannot yet be specified in the patch")
		default:
			return nil, nil, errBadPatchType(directive, m)
		}
	}
	if replace {
		out, _ := cleanAdded(plain)
		return out.([]any), nil, nil
	}
	return original, plain, nil
}

func deleteMatchingEntries(original []any, mergeKey string, value any) ([]any, error) {
	for {
		_, i, found, err := findMapInSlice(original, mergeKey, value)
		if err != nil {
			return nil, err
		}
		if !found {
			return original, nil
		}
		original = append(original[:i], original[i+1:]...)
	}
}

// mergeSliceWithoutSpecialElements merges each patch element into the live
// element with the same merge key, or appends it.
func mergeSliceWithoutSpecialElements(original, patch []any, mergeKey string, elem Schema) ([]any, error) {
	for _, v := range patch {
		m := v.(map[string]any)
		value, ok := m[mergeKey]
		if !ok {
			return nil, errNoMergeKey(m, mergeKey)
		}
		orig, i, found, err := findMapInSlice(original, mergeKey, value)
		if err != nil {
			return nil, err
		}
		if found {
			merged, err := mergeMap(orig, m, elem)
			if err != nil {
				return nil, err
			}
			original[i] = merged
		} else if c, keep := cleanAdded(m); keep {
			original = append(original, c)
		}
	}
	return original, nil
}

func findMapInSlice(list []any, key string, value any) (map[string]any, int, bool, error) {
	for i, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, 0, false, internalError("value for key %v is not a map", i)
		}
		if mv, ok := m[key]; ok && sameScalar(mv, value) {
			return m, i, true, nil
		}
	}
	return nil, 0, false, nil
}

func deleteFromSlice(current, toDelete []any) []any {
	out := make([]any, 0, len(current))
	for _, v := range current {
		if !containsScalar(toDelete, v) {
			out = append(out, v)
		}
	}
	return out
}

func containsScalar(list []any, v any) bool {
	for _, e := range list {
		if sameScalar(e, v) {
			return true
		}
	}
	return false
}

// deduplicateScalars removes repeated values the way Kubernetes does (the
// last element moves into the hole), because the order it leaves decides
// ties in the ordering that follows.
func deduplicateScalars(s []any) []any {
	length := len(s) - 1
	for i := 0; i < length; i++ {
		for j := i + 1; j <= length; j++ {
			if sameScalar(s[i], s[j]) {
				s[j] = s[length]
				s = s[:length]
				length--
				j--
			}
		}
	}
	return s
}

// sliceElementKind reports whether the lists hold maps. All elements must
// have the same type, and lists of lists are not supported.
func sliceElementKind(lists ...[]any) (bool, error) {
	var prev reflect.Type
	seen := false
	for _, l := range lists {
		for _, v := range l {
			t := reflect.TypeOf(v)
			if !seen {
				seen, prev = true, t
				if t != nil && t.Kind() == reflect.Slice {
					return false, errNoListOfLists
				}
				continue
			}
			if t != prev {
				return false, internalError("list element types are not identical: %v", fmt.Sprint(lists))
			}
		}
	}
	if !seen {
		return false, internalError("no elements in any of the given slices")
	}
	return prev != nil && prev.Kind() == reflect.Map, nil
}

func partitionPrimitives(list, by []any) (in, out []any) {
	in, out = make([]any, 0, len(list)), make([]any, 0, len(list))
	for _, v := range list {
		if containsScalar(by, v) {
			in = append(in, v)
		} else {
			out = append(out, v)
		}
	}
	return in, out
}

func partitionMaps(list, by []any, mergeKey string) (in, out []any, err error) {
	in, out = make([]any, 0, len(list)), make([]any, 0, len(list))
	for _, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, errBadArgType(map[string]any{}, v)
		}
		value, ok := m[mergeKey]
		if !ok {
			return nil, nil, errNoMergeKey(m, mergeKey)
		}
		_, _, found, err := findMapInSlice(by, mergeKey, value)
		if err != nil {
			return nil, nil, err
		}
		if found {
			in = append(in, v)
		} else {
			out = append(out, v)
		}
	}
	return in, out, nil
}

// normalizeElementOrder sorts the patch's elements by patchOrder and the
// server-only ones by serverOrder, then interleaves them: a server-only
// element goes before a patch element only if it came before it on the server.
func normalizeElementOrder(patch, serverOnly, patchOrder, serverOrder []any, mergeKey string, isMap bool) ([]any, error) {
	patch, err := normalizeSliceOrder(patch, patchOrder, mergeKey, isMap)
	if err != nil {
		return nil, err
	}
	serverOnly, err = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, isMap)
	if err != nil {
		return nil, err
	}
	return mergeSortedSlice(serverOnly, patch, serverOrder, mergeKey, isMap), nil
}

func mergeSortedSlice(left, right, serverOrder []any, mergeKey string, isMap bool) []any {
	less := func(a, b any) (bool, bool) {
		li := indexOf(serverOrder, a, mergeKey, isMap)
		ri := indexOf(serverOrder, b, mergeKey, isMap)
		if li >= 0 && ri >= 0 {
			return li < ri, true
		}
		return false, false
	}
	out := make([]any, 0, len(left)+len(right))
	i, j := 0, 0
	for i < len(left) || j < len(right) {
		switch {
		case i >= len(left):
			out = append(out, right[j])
			j++
		case j >= len(right):
			out = append(out, left[i])
			i++
		default:
			if l, both := less(left[i], right[j]); both && l {
				out = append(out, left[i])
				i++
			} else {
				out = append(out, right[j])
				j++
			}
		}
	}
	return out
}

// indexOf finds v in l, by merge key value for maps, or -1.
func indexOf(l []any, v any, mergeKey string, isMap bool) int {
	val := func(x any) any {
		if !isMap {
			return x
		}
		m, _ := x.(map[string]any)
		return m[mergeKey]
	}
	want := val(v)
	for i, e := range l {
		if sameScalar(val(e), want) {
			return i
		}
	}
	return -1
}

func extractToDeleteItems(l []any) (nonDelete, toDelete []any, err error) {
	for _, v := range l {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil, errBadArgType(map[string]any{}, v)
		}
		if d, found := m[directiveMarker]; found && d == deleteDirective {
			toDelete = append(toDelete, v)
		} else {
			nonDelete = append(nonDelete, v)
		}
	}
	return nonDelete, toDelete, nil
}

// normalizeSliceOrder sorts toSort by the position of its elements in
// order, with Kubernetes' comparison (elements missing from order compare
// as "less"), so that ties fall out the same way.
func normalizeSliceOrder(toSort, order []any, mergeKey string, isMap bool) ([]any, error) {
	var toDelete []any
	if isMap {
		for _, l := range [][]any{toSort, order} {
			for _, item := range l {
				m, ok := item.(map[string]any)
				if !ok {
					return nil, errBadArgType(map[string]any{}, item)
				}
				if _, ok := m[mergeKey]; !ok {
					return nil, errNoMergeKey(m, mergeKey)
				}
			}
		}
		var err error
		if toSort, toDelete, err = extractToDeleteItems(toSort); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(toSort, func(i, j int) bool {
		if ii := indexOf(order, toSort[i], mergeKey, isMap); ii >= 0 {
			if ij := indexOf(order, toSort[j], mergeKey, isMap); ij >= 0 {
				return ii < ij
			}
		}
		return true
	})
	return append(toSort, toDelete...), nil
}
