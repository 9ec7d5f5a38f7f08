package patch

import (
	"encoding/json"
	"fmt"
	"github.com/kubesim/kubesim/api/unstructured"
	"net/http"
	"sort"
	"strings"
)

// Operations recorded in managedFields.
const (
	// OperationApply marks the fields a manager set with server-side apply.
	OperationApply = "Apply"
	// OperationUpdate marks the fields a manager changed with a create, a
	// PUT or a non-apply PATCH.
	OperationUpdate = "Update"
	// FieldsTypeV1 is the only format of FieldsV1.
	FieldsTypeV1 = "FieldsV1"
)

// ManagedFields mirrors metav1.ManagedFieldsEntry: which manager owns which
// fields of an object, and through which operation. It marshals to the same
// JSON as in metadata.managedFields.
type ManagedFields struct {
	Manager    string          `json:"manager,omitempty"`
	Operation  string          `json:"operation,omitempty"`
	APIVersion string          `json:"apiVersion,omitempty"`
	Time       string          `json:"time,omitempty"`
	FieldsType string          `json:"fieldsType,omitempty"`
	FieldsV1   json.RawMessage `json:"fieldsV1,omitempty"`
}

// Conflict is one field another manager owns with a different value.
type Conflict struct {
	// Manager is printed as Kubernetes prints it in the message and in the
	// Status cause: `"kubectl-client-side-apply" using apps/v1` for an
	// Update manager, `"kubectl"` for an Apply manager.
	Manager string
	// Field is the path, as in `.spec.replicas` or
	// `.spec.template.spec.containers[name="web"].image`.
	Field string
}

// ConflictError is a server-side apply that would change fields other
// managers own. The API server answers it with 409 Conflict, reason
// "Conflict", and one cause per conflict of type "FieldManagerConflict"
// with message "conflict with <Manager>" and field <Field>.
type ConflictError struct {
	Conflicts []Conflict
}

// Error words the conflicts as Kubernetes does:
//
//	Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas
//
// and for several, one "conflicts with <manager>:" line per manager followed
// by "- <field>" lines.
func (e *ConflictError) Error() string {
	if len(e.Conflicts) == 1 {
		c := e.Conflicts[0]
		return fmt.Sprintf("Apply failed with 1 conflict: conflict with %s: %s", c.Manager, c.Field)
	}
	var lines []string
	last := ""
	for _, c := range e.Conflicts {
		if c.Manager != last || len(lines) == 0 {
			lines = append(lines, fmt.Sprintf("conflicts with %s:", c.Manager))
			last = c.Manager
		}
		lines = append(lines, "- "+c.Field)
	}
	return fmt.Sprintf("Apply failed with %d conflicts: %s", len(e.Conflicts), strings.Join(lines, "\n"))
}

// managerEntry is a decoded ManagedFields entry.
type managerEntry struct {
	ManagedFields
	set *fieldSet
}

func (m *managerEntry) printed() string {
	s := fmt.Sprintf("%q", m.Manager)
	if m.Operation == OperationUpdate {
		s += " using " + m.APIVersion
	}
	return s
}

// decodeManagers reads the entries; one that cannot be read is dropped, as
// the API server resets managedFields it cannot decode.
func decodeManagers(managed []ManagedFields) []*managerEntry {
	var out []*managerEntry
	for _, m := range managed {
		set, err := decodeFieldsV1(m.FieldsV1)
		if err != nil {
			continue
		}
		out = append(out, &managerEntry{ManagedFields: m, set: set})
	}
	return out
}

// encodeManagers writes the entries back, dropping empty ones and sorting
// them as Kubernetes does: Apply before Update, then by time, manager and
// apiVersion.
func encodeManagers(entries []*managerEntry) []ManagedFields {
	out := []ManagedFields{}
	for _, e := range entries {
		if e.set.empty() {
			continue
		}
		m := e.ManagedFields
		m.FieldsType = FieldsTypeV1
		m.FieldsV1 = encodeFieldsV1(e.set)
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool {
		p, q := out[i], out[j]
		if p.Operation != q.Operation {
			return p.Operation < q.Operation
		}
		if p.Time != q.Time {
			return p.Time < q.Time
		}
		if p.Manager != q.Manager {
			return p.Manager < q.Manager
		}
		return p.APIVersion < q.APIVersion
	})
	return out
}

// Apply is server-side apply (PATCH with Content-Type
// application/apply-patch+yaml): it merges the applied configuration into
// the live object (nil when the apply creates it) and moves field ownership:
//
//   - the fields the configuration sets become the manager's (an Apply
//     entry, replacing its previous one);
//   - a field the manager applied last time but not now is removed from the
//     object, unless another manager owns it (or a field beneath it);
//   - setting a field another manager owns to a different value is a
//     conflict: a *ConflictError, unless force, which takes the field over;
//     setting it to the same value shares it;
//   - lists of type map (or with a patch merge key) merge item by item on
//     their keys, lists of type set merge by value, other lists are atomic
//     and replaced; objects merge field by field.
//
// apiVersion comes from the configuration; now is the time recorded
// (RFC 3339). The result carries no metadata.managedFields: the caller
// stores newManaged there (SetManagedFields).
func Apply(live, applied map[string]any, manager string, managed []ManagedFields, force bool, schema Schema, now string) (result map[string]any, newManaged []ManagedFields, err error) {
	if manager == "" {
		return nil, nil, badRequest("fieldManager: Required value: is required for apply patch")
	}
	if meta, ok := applied["metadata"].(map[string]any); ok && meta["managedFields"] != nil {
		return nil, nil, badRequest("metadata.managedFields must be nil")
	}
	apiVersion, _ := applied["apiVersion"].(string)
	if live == nil {
		live = map[string]any{}
	}
	config := pruneNulls(applied).(map[string]any)
	entries := decodeManagers(managed)
	configSet, configAtoms := fieldSetOf(config, schema)
	configSet = stripIgnored(configSet)

	// Conflicts: fields of others the configuration would change.
	var conflicts []Conflict
	var lost []*fieldSet // the nodes, in other managers' sets, that force takes over
	for _, e := range entries {
		if e.Manager == manager && e.Operation == OperationApply {
			continue
		}
		walkShared(configSet, e.set, configAtoms, live, config, nil, func(p fieldPath, owned *fieldSet, lv any, found bool, cv any) {
			if found && unstructured.Equal(lv, cv) {
				return
			}
			conflicts = append(conflicts, Conflict{Manager: e.printed(), Field: p.String()})
			lost = append(lost, owned)
		})
	}
	if len(conflicts) > 0 && !force {
		sortConflicts(conflicts)
		return nil, nil, &ConflictError{Conflicts: conflicts}
	}
	for _, n := range lost {
		n.member = false
	}
	for _, e := range entries {
		e.set.compact()
	}

	result, _ = mergeApplied(live, config, schema).(map[string]any)
	delete(metadataOf(result), "managedFields")

	// Prune what this manager applied before and dropped now.
	var mine *managerEntry
	for _, e := range entries {
		if e.Manager == manager && e.Operation == OperationApply {
			mine = e
		}
	}
	if mine != nil {
		var others []*fieldSet
		for _, e := range entries {
			if e != mine {
				others = append(others, e.set)
			}
		}
		dropped := mine.set.difference(configSet)
		result, _ = pruneDropped(result, dropped, append(others, configSet)).(map[string]any)
	} else {
		mine = &managerEntry{}
		entries = append(entries, mine)
	}
	mine.ManagedFields = ManagedFields{Manager: manager, Operation: OperationApply, APIVersion: apiVersion, Time: now}
	mine.set = configSet
	return result, encodeManagers(entries), nil
}

// walkShared visits, in path order, the paths that a, b and atoms all hold,
// with the values at that path in l (and whether it is there) and in r,
// following the three sets and the two values down together so that each
// node is reached once (no path is looked up from the root again). owned
// is b's node for the path.
func walkShared(a, b, atoms *fieldSet, l, r any, path fieldPath, fn func(p fieldPath, owned *fieldSet, lv any, found bool, rv any)) {
	walkSharedFound(a, b, atoms, l, true, r, path, fn)
}

func walkSharedFound(a, b, atoms *fieldSet, l any, lFound bool, r any, path fieldPath, fn func(p fieldPath, owned *fieldSet, lv any, found bool, rv any)) {
	for _, pe := range a.sortedChildren() {
		ca, cb, cat := a.children[pe], b.get(pe), atoms.get(pe)
		if cb == nil || cat == nil {
			continue
		}
		var lv any
		found := false
		if lFound {
			lv, found = step(l, pe)
		}
		rv, _ := step(r, pe)
		p := append(path, pe)
		if ca.member && cb.member && cat.member {
			fn(p, cb, lv, found, rv)
		}
		walkSharedFound(ca, cb, cat, lv, found, rv, p, fn)
	}
}

// pruneDropped removes from v the fields of dropped (fields a manager
// applied before and not now), except those that a set in keep holds, or
// holds a field inside. A removed field's children are not visited.
func pruneDropped(v any, dropped *fieldSet, keep []*fieldSet) any {
	for _, pe := range dropped.sortedChildren() {
		d := dropped.children[pe]
		var below []*fieldSet
		for _, k := range keep {
			if c := k.get(pe); c != nil {
				below = append(below, c)
			}
		}
		remove := d.member && len(below) == 0
		switch t := v.(type) {
		case map[string]any:
			if !strings.HasPrefix(pe, "f:") {
				continue
			}
			name := pe[2:]
			child, ok := t[name]
			if !ok {
				continue
			}
			if remove {
				delete(t, name)
				continue
			}
			t[name] = pruneDropped(child, d, below)
		case []any:
			i := findItem(t, pe)
			if i < 0 {
				continue
			}
			if remove {
				t = append(t[:i:i], t[i+1:]...)
				v = t
				continue
			}
			t[i] = pruneDropped(t[i], d, below)
		}
	}
	return v
}

// sortConflicts orders conflicts by manager, as Kubernetes does, keeping
// the path order within a manager.
func sortConflicts(c []Conflict) {
	sort.SliceStable(c, func(i, j int) bool { return c[i].Manager < c[j].Manager })
}

// UpdateManagedFields records a write that is not an apply (a create, a PUT,
// or a JSON, merge or strategic merge PATCH) by manager: every field the
// write added or changed becomes the manager's, in its Update entry for the
// object's apiVersion, and is taken from every other manager (appliers
// included: this is how `kubectl scale` takes .spec.replicas); fields the
// write removed are dropped from all entries. old is nil for a create.
func UpdateManagedFields(old, new map[string]any, manager string, managed []ManagedFields, schema Schema, now string) []ManagedFields {
	apiVersion, _ := new["apiVersion"].(string)
	oldSet, oldAtoms := allFieldsOf(old, schema)
	newSet, newAtoms := allFieldsOf(new, schema)
	oldSet, newSet = stripIgnored(oldSet), stripIgnored(newSet)
	removed := oldSet.difference(newSet)
	changed := newSet.difference(oldSet)
	// Atoms in both whose value differs changed too.
	both := newAtoms.difference(newAtoms.difference(oldAtoms))
	walkShared(newSet, oldSet, both, new, old, nil, func(p fieldPath, _ *fieldSet, nv any, _ bool, ov any) {
		if !unstructured.Equal(ov, nv) {
			changed.insert(p)
		}
	})

	entries := decodeManagers(managed)
	var mine *managerEntry
	for _, e := range entries {
		if e.Manager == manager && e.Operation == OperationUpdate && e.APIVersion == apiVersion {
			mine = e
			continue
		}
		e.set = e.set.difference(changed).difference(removed)
	}
	if mine == nil {
		if changed.empty() {
			return encodeManagers(entries)
		}
		mine = &managerEntry{ManagedFields: ManagedFields{Manager: manager, Operation: OperationUpdate, APIVersion: apiVersion}, set: newFieldSet()}
		entries = append(entries, mine)
	}
	mine.set = mine.set.union(changed).difference(removed)
	if !changed.empty() {
		mine.Time = now
	}
	return encodeManagers(entries)
}

// listKind says how server-side apply treats a list: "map" with key fields,
// "set", or "atomic". A list without x-kubernetes-list-type but with a patch
// merge key is a map on that key, and a primitive list with strategy merge a
// set, as the built-in types declare. Items that do not fit (a missing key,
// an object in a set) make the list atomic.
func listKind(s Schema, lists ...[]any) (string, []string) {
	var lt string
	var keys []string
	if s = known(s); s != nil {
		lt, keys = s.ListType()
		if lt == "" {
			if strategy, mk := patchMeta(s); strategy == mergeDirective {
				if mk != "" {
					lt, keys = "map", []string{mk}
				} else {
					lt = "set"
				}
			}
		}
	}
	switch lt {
	case "map":
		if len(keys) == 0 {
			return "atomic", nil
		}
		for _, l := range lists {
			for _, item := range l {
				m, ok := item.(map[string]any)
				if !ok {
					return "atomic", nil
				}
				for _, k := range keys {
					if _, ok := m[k]; !ok {
						return "atomic", nil
					}
				}
			}
		}
		return "map", keys
	case "set":
		for _, l := range lists {
			for _, item := range l {
				switch item.(type) {
				case map[string]any, []any:
					return "atomic", nil
				}
			}
		}
		return "set", nil
	}
	return "atomic", nil
}

// itemElement is the path element of a list item: k:{...} or v:....
func itemElement(item any, kind string, keys []string) string {
	if kind == "set" {
		b, _ := json.Marshal(item)
		return "v:" + string(b)
	}
	m := item.(map[string]any)
	k := make(map[string]any, len(keys))
	for _, name := range keys {
		k[name] = m[name]
	}
	b, _ := json.Marshal(k)
	return "k:" + string(b)
}

// fieldSetOf is the set of fields an applied configuration sets, as
// structured-merge-diff's ToFieldSet: every leaf (scalars, atomic lists,
// empty objects, nulls), every list item, and every map entry, but not the
// objects that merely hold fields.
//
// atoms are the fields whose value is compared as a whole: scalars, nulls
// and atomic lists.
func fieldSetOf(obj map[string]any, s Schema) (set, atoms *fieldSet) {
	set, atoms = newFieldSet(), newFieldSet()
	walkFields(obj, s, set, atoms, true, false)
	set.compact()
	atoms.compact()
	return set, atoms
}

// allFieldsOf is the set of every node of an object, containers included,
// which is what a comparison of two objects reports as added or removed.
func allFieldsOf(obj map[string]any, s Schema) (set, atoms *fieldSet) {
	set, atoms = newFieldSet(), newFieldSet()
	if obj != nil {
		walkFields(obj, s, set, atoms, true, true)
	}
	set.compact()
	atoms.compact()
	return set, atoms
}

// walkFields adds the fields of v to set and atoms, whose nodes stand for
// v's own path: the walk goes down the object and the two tries together,
// so no path is ever copied.
func walkFields(v any, s Schema, set, atoms *fieldSet, root, all bool) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			pe := "f:" + k
			cs := set.child(pe)
			walkFields(e, childSchema(s, k), cs, atoms.child(pe), false, all)
			em, isMap := e.(map[string]any)
			if all || e == nil || (isMap && len(em) == 0) || !isDeclaredField(s, k) {
				cs.member = true
			}
		}
	case []any:
		kind, keys := listKind(s, t)
		if kind == "atomic" {
			if !root {
				set.member, atoms.member = true, true
			}
			return
		}
		if all && !root {
			set.member = true
		}
		for _, item := range t {
			pe := itemElement(item, kind, keys)
			cs := set.child(pe)
			walkFields(item, elemSchema(s), cs, atoms.child(pe), false, all)
			cs.member = true
		}
	default:
		if !root {
			set.member = true
			atoms.member = true
		}
	}
}

// mergeApplied merges an applied configuration into a live value.
func mergeApplied(live, config any, s Schema) any {
	switch c := config.(type) {
	case map[string]any:
		l, _ := live.(map[string]any)
		out := map[string]any{}
		for k, v := range l {
			if _, merged := c[k]; !merged { // copied once, not again at every level below
				out[k] = deepCopyJSON(v)
			}
		}
		for k, v := range c {
			out[k] = mergeApplied(l[k], v, childSchema(s, k))
		}
		return out
	case []any:
		l, _ := live.([]any)
		kind, keys := listKind(s, c, l)
		if kind == "atomic" {
			return deepCopyJSON(c)
		}
		return mergeKeyedList(l, c, func(item any) string { return itemElement(item, kind, keys) }, elemSchema(s))
	default:
		return config
	}
}

// mergeKeyedList merges two keyed lists keeping the relative order of both:
// items only the live list has stay where they were, the configuration's
// items come in its order, as structured-merge-diff does.
func mergeKeyedList(lhs, rhs []any, key func(any) string, elem Schema) []any {
	lKeys, rKeys := make([]string, len(lhs)), make([]string, len(rhs))
	lIndex, rIndex := map[string]int{}, map[string]int{}
	for i, v := range lhs {
		lKeys[i] = key(v)
		if _, dup := lIndex[lKeys[i]]; !dup {
			lIndex[lKeys[i]] = i
		}
	}
	for i, v := range rhs {
		rKeys[i] = key(v)
		rIndex[rKeys[i]] = i
	}
	var shared []string // items in both, in the configuration's order
	for _, k := range rKeys {
		if _, ok := lIndex[k]; ok {
			shared = append(shared, k)
		}
	}
	nextShared := func() string {
		if len(shared) == 0 {
			return ""
		}
		return shared[0]
	}
	advance := func(k string) {
		if len(shared) > 0 && shared[0] == k {
			shared = shared[1:]
		}
	}
	merged := map[string]bool{}
	out := []any{}
	take := func(k string, r any) {
		var l any
		if i, ok := lIndex[k]; ok {
			l = lhs[i]
		}
		out = append(out, mergeApplied(l, r, elem))
		merged[k] = true
		advance(k)
	}
	for li, ri := 0, 0; li < len(lhs) || ri < len(rhs); {
		if li < len(lhs) && ri < len(rhs) {
			if lKeys[li] == rKeys[ri] {
				take(rKeys[ri], rhs[ri])
				li++
				ri++
				continue
			}
			if _, inR := rIndex[lKeys[li]]; inR && nextShared() != "" && nextShared() != lKeys[li] {
				li++ // a shared item, but not the next one the configuration wants
				continue
			}
		}
		if li < len(lhs) {
			if _, inR := rIndex[lKeys[li]]; !inR {
				out = append(out, deepCopyJSON(lhs[li]))
				li++
				continue
			} else if merged[lKeys[li]] {
				li++
				continue
			}
		}
		if ri < len(rhs) {
			take(rKeys[ri], rhs[ri])
			ri++
		}
	}
	return out
}

// step returns the value one path element below v, and whether it is
// there.
func step(v any, pe string) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		if !strings.HasPrefix(pe, "f:") {
			return nil, false
		}
		c, ok := t[pe[2:]]
		return c, ok
	case []any:
		i := findItem(t, pe)
		if i < 0 {
			return nil, false
		}
		return t[i], true
	}
	return nil, false
}

// findItem finds the list item a k:, v: or i: path element names, or -1.
func findItem(list []any, pe string) int {
	if len(pe) < 2 {
		return -1
	}
	body := pe[2:]
	switch pe[:2] {
	case "i:":
		var i int
		if _, err := fmt.Sscanf(body, "%d", &i); err != nil || i < 0 || i >= len(list) {
			return -1
		}
		return i
	case "v:":
		want, err := decodeJSON([]byte(body))
		if err != nil {
			return -1
		}
		for i, item := range list {
			if unstructured.Equal(item, want) {
				return i
			}
		}
	case "k:":
		want, err := decodeJSON([]byte(body))
		keys, ok := want.(map[string]any)
		if err != nil || !ok {
			return -1
		}
		for i, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			match := true
			for k, kv := range keys {
				if iv, ok := m[k]; !ok || !unstructured.Equal(iv, kv) {
					match = false
					break
				}
			}
			if match {
				return i
			}
		}
	}
	return -1
}

func metadataOf(obj map[string]any) map[string]any {
	m, _ := obj["metadata"].(map[string]any)
	if m == nil {
		return map[string]any{}
	}
	return m
}

// GetManagedFields reads metadata.managedFields of an unstructured object.
func GetManagedFields(obj map[string]any) ([]ManagedFields, error) {
	raw, ok := metadataOf(obj)["managedFields"]
	if !ok || raw == nil {
		return nil, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var out []ManagedFields
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("metadata.managedFields: %w", err)
	}
	return out, nil
}

// SetManagedFields stores managed as metadata.managedFields of an
// unstructured object (removing it when empty), in the JSON shape of
// metav1.ManagedFieldsEntry.
func SetManagedFields(obj map[string]any, managed []ManagedFields) error {
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	if len(managed) == 0 {
		delete(meta, "managedFields")
		return nil
	}
	b, err := json.Marshal(managed)
	if err != nil {
		return err
	}
	v, err := decodeJSON(b)
	if err != nil {
		return err
	}
	meta["managedFields"] = v
	return nil
}

// ConflictStatusCode is the HTTP status of a *ConflictError.
const ConflictStatusCode = http.StatusConflict
