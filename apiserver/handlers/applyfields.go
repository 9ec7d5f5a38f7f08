package handlers

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// undeclaredApplyFields refuses a server-side apply body (already JSON)
// that names a field the built-in kind does not declare, as kube-apiserver
// does whatever fieldValidation says: its field manager makes a typed
// object of the applied configuration (structured-merge-diff's
// ObjectToTyped) before anything else, and an undeclared field fails that
// with a plain error, which the API server answers 500 with no reason:
//
//	failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .spec.foo: field not declared in schema
//
// (several undeclared fields: "errors:" and one indented line each,
// sorted here where structured-merge-diff follows Go's map order). Paths
// are structured-merge-diff's: an element of a list keyed by fields is
// written [name="c"], of a set [="x"], of any other list [0]. A body that
// is not a JSON object is left to the apply itself to refuse. For a custom
// resource the same check runs under fieldValidation=Strict, with the
// CRD's structural schema (fields under x-kubernetes-preserve-unknown-fields
// are declared).
func (c *requestContext) undeclaredApplyFields(body []byte) error {
	if c.res.Schema == nil {
		return nil
	}
	if _, custom := c.res.New().(*unstructured.Unstructured); custom && c.r.URL.Query().Get("fieldValidation") != "Strict" {
		// A custom resource's unknown field is refused this way under
		// Strict (the FieldValidation conformance specs for CRs); under
		// the other settings it is pruned, as a create prunes it.
		return nil
	}
	m, err := unstructured.DecodeMap(body)
	if err != nil {
		return nil
	}
	pruned := runtime.DeepCopyJSON(m)
	unknown := schema.Prune(c.res.Schema, pruned, schema.PruneOptions{IsResourceRoot: true, KeepNulls: true})
	if md, ok := pruned["metadata"].(map[string]any); ok {
		for _, u := range c.h.fast.objectMetaSchema().Prune(md, schema.PruneOptions{KeepNulls: true}) {
			unknown = append(unknown, "metadata."+u)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	root := schema.NewNode(c.res.Schema)
	var lines []string
	for _, u := range unknown {
		lines = append(lines, smdPath(root, m, u)+": field not declared in schema")
	}
	sort.Strings(lines)
	msg := lines[0]
	if len(lines) > 1 {
		msg = "errors:\n  " + strings.Join(lines, "\n  ")
	}
	av, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	gv, _ := k8sschema.ParseGroupVersion(av)
	var ns, name string
	if md, ok := m["metadata"].(map[string]any); ok {
		ns, _ = md["namespace"].(string)
		name, _ = md["name"].(string)
	}
	return &api.StatusError{ErrStatus: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: http.StatusInternalServerError,
		Message: fmt.Sprintf("failed to create typed patch object (%s/%s; %s): %s", ns, name, gv.WithKind(kind), msg),
	}}
}

// smdPath rewrites a pruning path ("spec.containers[0].foo") as
// structured-merge-diff writes it (".spec.containers[name=\"c\"].foo"),
// reading the list keys from the schema and their values from obj.
func smdPath(n *schema.Node, obj any, path string) string {
	var b strings.Builder
	for path != "" {
		if path[0] == '[' {
			end := strings.IndexByte(path, ']')
			if end < 0 {
				break
			}
			i, err := strconv.Atoi(path[1:end])
			path = strings.TrimPrefix(path[end+1:], ".")
			list, _ := obj.([]any)
			if err != nil || i >= len(list) {
				b.WriteString("[" + strconv.Itoa(i) + "]")
				obj, n = nil, n.Elem()
				continue
			}
			b.WriteString(listElement(n, list[i], i))
			obj, n = list[i], n.Elem()
			continue
		}
		name := path
		if i := strings.IndexAny(path, ".["); i >= 0 {
			name = path[:i]
		}
		path = strings.TrimPrefix(path[len(name):], ".")
		b.WriteString("." + name)
		if m, ok := obj.(map[string]any); ok {
			obj = m[name]
		} else {
			obj = nil
		}
		n = n.Field(name)
	}
	return b.String()
}

// listElement writes one element of the list n as structured-merge-diff
// names it.
func listElement(n *schema.Node, elem any, i int) string {
	listType, keys := n.ListType()
	if _, key := n.PatchStrategy(); listType == "" && key != "" {
		listType, keys = "map", []string{key}
	}
	switch listType {
	case "map":
		m, _ := elem.(map[string]any)
		var parts []string
		for _, k := range keys {
			if v, ok := m[k]; ok {
				parts = append(parts, k+"="+smdValue(v))
			}
		}
		if len(parts) > 0 {
			return "[" + strings.Join(parts, ",") + "]"
		}
	case "set":
		return "[=" + smdValue(elem) + "]"
	}
	return "[" + strconv.Itoa(i) + "]"
}

// smdValue writes a key's value as structured-merge-diff does: JSON.
func smdValue(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}
