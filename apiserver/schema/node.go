package schema

import "github.com/kubesim/kubesim/api"

// Node is a read-only view of one schema node for code that walks an object
// and its schema together, such as strategic merge patch: it answers "what
// is the schema of this field / these elements" and "how are lists merged
// here". Every method is safe on a nil *Node and then returns nil or "",
// so a walk can continue into fields the schema does not know.
//
// Node has the methods of the patch package's Schema interface with *Node
// in place of that interface; a two-line adapter bridges them.
type Node struct {
	Props *api.JSONSchemaProps
}

// NewNode wraps s; a nil s gives a nil *Node.
func NewNode(s *api.JSONSchemaProps) *Node {
	if s == nil {
		return nil
	}
	return &Node{Props: s}
}

// Field is the schema of the named property, or of any map value when the
// node has additionalProperties; nil when the field is unknown.
func (n *Node) Field(name string) *Node {
	if n == nil || n.Props == nil {
		return nil
	}
	if p, ok := n.Props.Properties[name]; ok {
		return &Node{Props: &p}
	}
	if ap := n.Props.AdditionalProperties; ap != nil && ap.Schema != nil {
		return &Node{Props: ap.Schema}
	}
	return nil
}

// Elem is the schema of the elements of a list (items), or of the values
// of a map (additionalProperties); nil otherwise.
func (n *Node) Elem() *Node {
	if n == nil || n.Props == nil {
		return nil
	}
	if it := itemsSchema(n.Props); it != nil {
		return &Node{Props: it}
	}
	if ap := n.Props.AdditionalProperties; ap != nil && ap.Schema != nil {
		return &Node{Props: ap.Schema}
	}
	return nil
}

// PatchStrategy is the strategic-merge-patch strategy ("merge", "replace",
// "retainKeys", or a comma list) and the merge key of a list of objects.
func (n *Node) PatchStrategy() (strategy, mergeKey string) {
	if n == nil || n.Props == nil {
		return "", ""
	}
	return n.Props.XPatchStrategy, n.Props.XPatchMergeKey
}

// ListType is x-kubernetes-list-type ("atomic", "set", "map", or "" when
// unset) and, for "map", the x-kubernetes-list-map-keys.
func (n *Node) ListType() (listType string, mapKeys []string) {
	if n == nil || n.Props == nil || n.Props.XListType == nil {
		return "", nil
	}
	return *n.Props.XListType, n.Props.XListMapKeys
}
