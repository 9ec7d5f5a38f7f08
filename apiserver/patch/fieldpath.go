package patch

import (
	"encoding/json"
	"fmt"
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

func (p fieldPath) key() string {
	b, _ := json.Marshal([]string(p))
	return string(b)
}

func (p fieldPath) child(pe string) fieldPath {
	out := make(fieldPath, len(p), len(p)+1)
	copy(out, p)
	return append(out, pe)
}

func (p fieldPath) hasPrefix(q fieldPath) bool {
	if len(q) > len(p) {
		return false
	}
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

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

// fieldSet is a set of field paths: what one manager owns.
type fieldSet map[string]fieldPath

func (s fieldSet) insert(p fieldPath) { s[p.key()] = p }

func (s fieldSet) has(p fieldPath) bool {
	_, ok := s[p.key()]
	return ok
}

// ownsAtOrBelow reports whether s holds p or a field inside it.
func (s fieldSet) ownsAtOrBelow(p fieldPath) bool {
	for _, q := range s {
		if q.hasPrefix(p) {
			return true
		}
	}
	return false
}

func (s fieldSet) difference(o fieldSet) fieldSet {
	out := fieldSet{}
	for k, p := range s {
		if _, ok := o[k]; !ok {
			out[k] = p
		}
	}
	return out
}

func (s fieldSet) union(o fieldSet) fieldSet {
	out := fieldSet{}
	for k, p := range s {
		out[k] = p
	}
	for k, p := range o {
		out[k] = p
	}
	return out
}

// sorted returns the paths in a stable order, element by element.
func (s fieldSet) sorted() []fieldPath {
	out := make([]fieldPath, 0, len(s))
	for _, p := range s {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
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

func stripIgnored(s fieldSet) fieldSet {
	out := fieldSet{}
	for k, p := range s {
		ignored := len(p) == 1 && p[0] == "f:metadata"
		for _, ig := range ignoredFields {
			if p.hasPrefix(ig) {
				ignored = true
				break
			}
		}
		if !ignored {
			out[k] = p
		}
	}
	return out
}

// encodeFieldsV1 writes a set in the fieldsV1 format: nested objects keyed
// by path elements, {} for a leaf, and "." for a field owned as a whole that
// also has owned fields inside.
func encodeFieldsV1(s fieldSet) json.RawMessage {
	type node struct {
		member   bool
		children map[string]*node
	}
	root := &node{children: map[string]*node{}}
	for _, p := range s {
		n := root
		for _, pe := range p {
			c := n.children[pe]
			if c == nil {
				c = &node{children: map[string]*node{}}
				n.children[pe] = c
			}
			n = c
		}
		n.member = true
	}
	var render func(n *node) map[string]any
	render = func(n *node) map[string]any {
		out := map[string]any{}
		if n.member && len(n.children) > 0 {
			out["."] = map[string]any{}
		}
		for pe, c := range n.children {
			out[pe] = render(c)
		}
		return out
	}
	b, _ := json.Marshal(render(root))
	return b
}

// decodeFieldsV1 reads the fieldsV1 format back into a set.
func decodeFieldsV1(raw json.RawMessage) (fieldSet, error) {
	s := fieldSet{}
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
	var walk func(m map[string]any, prefix fieldPath) error
	walk = func(m map[string]any, prefix fieldPath) error {
		for pe, cv := range m {
			if pe == "." {
				if len(prefix) > 0 {
					s.insert(prefix)
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
			p := prefix.child(pe)
			if len(child) == 0 {
				s.insert(p)
				continue
			}
			if err := walk(child, p); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(m, nil); err != nil {
		return nil, err
	}
	return s, nil
}
