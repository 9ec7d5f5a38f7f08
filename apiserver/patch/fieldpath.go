package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// fieldPath is the location of one field in an object, as the elements of
// Kubernetes' fieldsV1 format:
//
//	f:<name>        a field of an object or an entry of a map
//	k:<json object> an item of a list of type map, by its key fields
//	v:<json value>  an item of a list of type set
//	i:<index>       an item of another list (not produced here, but read)
type fieldPath []string

// String renders the path the way structured-merge-diff prints it in
// conflict messages: .spec.template.spec.containers[name="nginx"].image
func (p fieldPath) String() string {
	var b strings.Builder
	for _, pe := range p {
		if len(pe) < 2 {
			b.WriteString(pe)
			continue
		}
		body := pe[2:]
		switch pe[:2] {
		case "f:":
			b.WriteString("." + body)
		case "i:":
			b.WriteString("[" + body + "]")
		case "v:":
			b.WriteString("[=" + body + "]")
		case "k:":
			var m map[string]json.RawMessage
			if json.Unmarshal([]byte(body), &m) != nil {
				b.WriteString("[" + body + "]")
				continue
			}
			names := make([]string, 0, len(m))
			for n := range m {
				names = append(names, n)
			}
			sort.Strings(names)
			parts := make([]string, len(names))
			for i, n := range names {
				parts[i] = n + "=" + string(m[n])
			}
			b.WriteString("[" + strings.Join(parts, ",") + "]")
		default:
			b.WriteString(pe)
		}
	}
	return b.String()
}

// fieldSet is a set of field paths (what one manager owns), kept as a trie
// of path elements as structured-merge-diff's fieldpath.Set is: a field
// nested n deep costs one node, not a copy of its n-element path, so the
// work and memory of server-side apply grow with the object, not with the
// square of its depth. Each node is itself a set: the paths below it.
//
// A node exists only while a member is at or below it (compact restores
// that after building), so "someone owns this field or one inside it" is
// "the node exists".
type fieldSet struct {
	// member says the path ending at this node is in the set.
	member   bool
	children map[string]*fieldSet
}

func newFieldSet() *fieldSet { return &fieldSet{} }

// get returns the child at pe, or nil; nil sets are empty sets.
func (s *fieldSet) get(pe string) *fieldSet {
	if s == nil {
		return nil
	}
	return s.children[pe]
}

// child returns the child at pe, creating it (empty) when missing.
func (s *fieldSet) child(pe string) *fieldSet {
	if c := s.children[pe]; c != nil {
		return c
	}
	if s.children == nil {
		s.children = map[string]*fieldSet{}
	}
	c := &fieldSet{}
	s.children[pe] = c
	return c
}

// empty reports whether the set holds no path (true of a nil set).
func (s *fieldSet) empty() bool {
	if s == nil {
		return true
	}
	if s.member {
		return false
	}
	for _, c := range s.children {
		if !c.empty() {
			return false
		}
	}
	return true
}

// compact drops the nodes with no member at or below them, left by building
// a set while walking an object, and reports whether s itself is empty.
func (s *fieldSet) compact() bool {
	for pe, c := range s.children {
		if c.compact() {
			delete(s.children, pe)
		}
	}
	return !s.member && len(s.children) == 0
}

// len is the number of paths in the set.
func (s *fieldSet) len() int {
	if s == nil {
		return 0
	}
	n := 0
	if s.member {
		n = 1
	}
	for _, c := range s.children {
		n += c.len()
	}
	return n
}

// insert adds p.
func (s *fieldSet) insert(p fieldPath) {
	n := s
	for _, pe := range p {
		n = n.child(pe)
	}
	n.member = true
}

// has reports whether p is in the set.
func (s *fieldSet) has(p fieldPath) bool {
	n := s
	for _, pe := range p {
		if n = n.get(pe); n == nil {
			return false
		}
	}
	return n != nil && n.member
}

// sortedChildren returns the path elements below s in order.
func (s *fieldSet) sortedChildren() []string {
	if s == nil || len(s.children) == 0 {
		return nil
	}
	keys := make([]string, 0, len(s.children))
	for pe := range s.children {
		keys = append(keys, pe)
	}
	sort.Strings(keys)
	return keys
}

// difference is the paths of s that are not in o.
func (s *fieldSet) difference(o *fieldSet) *fieldSet {
	out := &fieldSet{member: s.member && (o == nil || !o.member)}
	for pe, c := range s.children {
		if d := c.difference(o.get(pe)); !d.compact() {
			out.child(pe)
			out.children[pe] = d
		}
	}
	return out
}

// union is the paths of s or of o.
func (s *fieldSet) union(o *fieldSet) *fieldSet {
	out := &fieldSet{member: s.member || (o != nil && o.member)}
	for pe, c := range s.children {
		out.child(pe)
		out.children[pe] = c.union(o.get(pe))
	}
	if o != nil {
		for pe, c := range o.children {
			if _, done := out.children[pe]; !done {
				out.child(pe)
				out.children[pe] = c.union(nil)
			}
		}
	}
	return out
}

// walk visits every node below s in path order (a field before the fields
// inside it, siblings sorted), passing the path to it; path is reused
// between calls (clone it to keep it). fn returns false to skip the node's
// children.
func (s *fieldSet) walk(fn func(p fieldPath, n *fieldSet) bool) {
	var path fieldPath
	var rec func(n *fieldSet)
	rec = func(n *fieldSet) {
		for _, pe := range n.sortedChildren() {
			c := n.children[pe]
			path = append(path, pe)
			if fn(path, c) {
				rec(c)
			}
			path = path[:len(path)-1]
		}
	}
	rec(s)
}

// sorted returns the paths in path order (for tests and small sets: it
// copies every path).
func (s *fieldSet) sorted() []fieldPath {
	var out []fieldPath
	s.walk(func(p fieldPath, n *fieldSet) bool {
		if n.member {
			out = append(out, slices.Clone(p))
		}
		return true
	})
	return out
}

// ignoredFields are the fields the API server keeps out of managedFields
// (its stripMeta field manager): they identify the object or are the
// server's own. metadata itself is dropped too, but not what is inside it.
var ignoredFields = []fieldPath{
	{"f:apiVersion"}, {"f:kind"},
	{"f:metadata", "f:name"}, {"f:metadata", "f:namespace"}, {"f:metadata", "f:uid"},
	{"f:metadata", "f:resourceVersion"}, {"f:metadata", "f:generation"},
	{"f:metadata", "f:creationTimestamp"}, {"f:metadata", "f:selfLink"},
	{"f:metadata", "f:managedFields"}, {"f:metadata", "f:deletionTimestamp"},
	{"f:metadata", "f:deletionGracePeriodSeconds"},
}

// stripIgnored removes the ignored fields from s, in place, and returns it.
func stripIgnored(s *fieldSet) *fieldSet {
	for _, p := range ignoredFields {
		parent := s
		for _, pe := range p[:len(p)-1] {
			parent = parent.get(pe)
		}
		if parent != nil {
			delete(parent.children, p[len(p)-1])
		}
	}
	if md := s.get("f:metadata"); md != nil {
		md.member = false
	}
	s.compact()
	return s
}

// encodeFieldsV1 writes a set in the fieldsV1 format: nested objects keyed
// by path elements, {} for a leaf, and "." for a field owned as a whole that
// also has owned fields inside. Keys are sorted, as encoding/json writes a
// map's.
func encodeFieldsV1(s *fieldSet) json.RawMessage {
	var b bytes.Buffer
	var render func(n *fieldSet)
	render = func(n *fieldSet) {
		b.WriteByte('{')
		first := true
		if n.member && len(n.children) > 0 {
			b.WriteString(`".":{}`)
			first = false
		}
		for _, pe := range n.sortedChildren() {
			if !first {
				b.WriteByte(',')
			}
			first = false
			k, _ := json.Marshal(pe)
			b.Write(k)
			b.WriteByte(':')
			render(n.children[pe])
		}
		b.WriteByte('}')
	}
	render(s)
	return b.Bytes()
}

// decodeFieldsV1 reads the fieldsV1 format back into a set.
func decodeFieldsV1(raw json.RawMessage) (*fieldSet, error) {
	s := newFieldSet()
	if len(raw) == 0 {
		return s, nil
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("fieldsV1 is not an object")
	}
	var walk func(m map[string]any, n *fieldSet, root bool) error
	walk = func(m map[string]any, n *fieldSet, root bool) error {
		for pe, cv := range m {
			if pe == "." {
				if !root {
					n.member = true
				}
				continue
			}
			if len(pe) < 2 || !strings.Contains("fkvi", pe[:1]) || pe[1] != ':' {
				return fmt.Errorf("invalid path element %q", pe)
			}
			if pe[0] == 'i' {
				if _, err := strconv.Atoi(pe[2:]); err != nil {
					return fmt.Errorf("invalid path element %q", pe)
				}
			}
			child, ok := cv.(map[string]any)
			if !ok {
				return fmt.Errorf("invalid value under %q", pe)
			}
			c := n.child(pe)
			if len(child) == 0 {
				c.member = true
				continue
			}
			if err := walk(child, c, false); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(m, s, true); err != nil {
		return nil, err
	}
	s.compact()
	return s, nil
}
