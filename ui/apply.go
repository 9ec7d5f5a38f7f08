package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// applyResult is how one document of a pasted manifest went.
type applyResult struct {
	// Line is the document's first line in the paste (from 1).
	Line    int    `json:"line"`
	Kind    string `json:"kind,omitempty"`
	Name    string `json:"name,omitempty"`
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	// Causes are the server's field errors, each with the line of the
	// field it names when that field is in the paste.
	Causes []applyCause `json:"causes,omitempty"`
}

type applyCause struct {
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
}

// yamlLineRe reads the line out of a yaml.v3 syntax error.
var yamlLineRe = regexp.MustCompile(`line (\d+)`)

// apply applies a pasted manifest, document by document, with
// server-side apply (the field manager "kubesim-ui"), through the API
// with the session's credentials. The server's Status message is put
// beside the line of the field it names.
func (s *Server) apply(w http.ResponseWriter, r *http.Request, c *call) {
	src, err := io.ReadAll(io.LimitReader(r.Body, 3<<20))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	results := []applyResult{}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			res := applyResult{Line: 1, Message: err.Error()}
			if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil {
				res.Line, _ = strconv.Atoi(m[1])
			}
			res.Causes = []applyCause{{Message: err.Error(), Line: res.Line}}
			results = append(results, res)
			break
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			continue // an empty document
		}
		results = append(results, s.applyDoc(r, c.sess, doc.Content[0]))
	}
	writeJSON(w, map[string]any{"results": results})
}

func (s *Server) applyDoc(r *http.Request, sess *session, root *yaml.Node) applyResult {
	res := applyResult{Line: root.Line}
	var obj map[string]any
	if err := root.Decode(&obj); err != nil {
		res.Message = err.Error()
		return res
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	ns, _ := meta["namespace"].(string)
	res.Kind, res.Name = kind, name
	fail := func(field, msg string) applyResult {
		res.Message = msg
		res.Causes = []applyCause{{Field: field, Message: msg, Line: fieldLine(root, field)}}
		return res
	}
	if apiVersion == "" || kind == "" {
		return fail("kind", "Object 'Kind' is missing in '"+firstLine(root)+"'")
	}
	if name == "" {
		return fail("metadata.name", "resource name may not be empty")
	}
	path, err := s.resourcePath(apiVersion, kind, ns, name)
	if err != nil {
		return fail("apiVersion", err.Error())
	}
	body, err := json.Marshal(obj)
	if err != nil {
		res.Message = err.Error()
		return res
	}
	code, out := s.apiCall(r.Context(), sess, http.MethodPatch, path+"?fieldManager=kubesim-ui&force=true",
		"application/apply-patch+yaml", body)
	if code < 300 {
		res.OK = true
		res.Message = fmt.Sprintf("%s/%s applied", strings.ToLower(kind), name)
		return res
	}
	var st struct {
		Message string `json:"message"`
		Details struct {
			Causes []struct {
				Field, Message, Reason string
			} `json:"causes"`
		} `json:"details"`
	}
	if json.Unmarshal(out, &st) != nil || st.Message == "" {
		st.Message = fmt.Sprintf("the server answered %d", code)
	}
	res.Message = st.Message
	for _, c := range st.Details.Causes {
		res.Causes = append(res.Causes, applyCause{Field: c.Field, Message: c.Message, Line: fieldLine(root, c.Field)})
	}
	if len(res.Causes) == 0 {
		cause := applyCause{Message: st.Message, Line: root.Line}
		if field, line := typeErrorField(root, st.Message); field != "" {
			cause.Field, cause.Line = field, line
		}
		res.Causes = []applyCause{cause}
	}
	return res
}

// typeErrorRe reads the API server's answer to a value of the wrong type
// ("cannot be handled as a Deployment: json: cannot unmarshal string
// into Go struct field DeploymentSpec.spec.replicas of type int32", as
// kube-apiserver words encoding/json's UnmarshalTypeError): the JSON kind
// of the value it found, and the field's path after the Go type's name.
var typeErrorRe = regexp.MustCompile(`cannot unmarshal (\w+) into Go struct field \w+\.([\w.]+) of type`)

// typeErrorField finds, for a type error in msg, the field it names and
// the line of the offending value in the document: a status with no
// causes, which would otherwise be pinned to the document's first line.
// encoding/json's path leaves out list indices
// (spec.template.spec.containers.ports.containerPort) and stops at a
// map or list of plain values (data, for a number among a ConfigMap's
// strings), so the value is looked for: the first one of the JSON kind
// the server found, along the path, in any element of a list on the
// way, or below where the path stops. Failing that, the deepest line
// of the path (fieldLine).
func typeErrorField(root *yaml.Node, msg string) (field string, line int) {
	m := typeErrorRe.FindStringSubmatch(msg)
	if m == nil {
		return "", 0
	}
	field = m[2]
	if line = valueLine(root, strings.Split(field, "."), m[1]); line == 0 {
		line = fieldLine(root, field)
	}
	return field, line
}

// valueLine is the line of the first node of JSON kind kind at path
// below n (0: none).
func valueLine(n *yaml.Node, path []string, kind string) int {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.SequenceNode {
		for _, el := range n.Content {
			if l := valueLine(el, path, kind); l > 0 {
				return l
			}
		}
		return 0
	}
	if len(path) == 0 {
		return nodeOfKind(n, kind)
	}
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == path[0] {
			return valueLine(n.Content[i+1], path[1:], kind)
		}
	}
	return 0
}

// nodeOfKind is the line of n, if it is of JSON kind kind, else of the
// first value below it that is (0: none).
func nodeOfKind(n *yaml.Node, kind string) int {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if jsonKind(n) == kind {
		return n.Line
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			continue // a key
		}
		if l := nodeOfKind(c, kind); l > 0 {
			return l
		}
	}
	return 0
}

// jsonKind is the kind of JSON value a YAML node becomes, in
// encoding/json's words (the page sends the document as JSON).
func jsonKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "object"
	case yaml.SequenceNode:
		return "array"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!int", "!!float":
			return "number"
		case "!!bool":
			return "bool"
		case "!!null":
			return "null"
		}
		return "string"
	}
	return ""
}

// resourcePath finds the object's path through what the server serves,
// as kubectl does through discovery.
func (s *Server) resourcePath(apiVersion, kind, ns, name string) (string, error) {
	for _, res := range s.cfg.Cluster.Server().Resources() {
		gv := res.Version
		if res.Group != "" {
			gv = res.Group + "/" + res.Version
		}
		if gv != apiVersion || res.Kind != kind || strings.Contains(res.Name, "/") {
			continue
		}
		prefix := "/apis/" + gv
		if res.Group == "" {
			prefix = "/api/" + gv
		}
		if res.Namespaced {
			if ns == "" {
				ns = "default"
			}
			prefix += "/namespaces/" + url.PathEscape(ns)
		}
		return prefix + "/" + res.Name + "/" + url.PathEscape(name), nil
	}
	// Worded as apimachinery's NoKindMatchError, which kubectl prints.
	return "", fmt.Errorf("no matches for kind %q in version %q", kind, apiVersion)
}

// fieldLine finds the line of a field path such as
// spec.template.spec.containers[0].image in a document (0: not found;
// the deepest part found wins).
func fieldLine(root *yaml.Node, field string) int {
	if field == "" {
		return root.Line
	}
	n, line := root, root.Line
	for _, part := range strings.Split(field, ".") {
		key, idx := part, -1
		if i := strings.IndexByte(part, '['); i >= 0 && strings.HasSuffix(part, "]") {
			key = part[:i]
			idx, _ = strconv.Atoi(part[i+1 : len(part)-1])
		}
		if key != "" {
			found := false
			for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == key {
					line, n, found = n.Content[i].Line, n.Content[i+1], true
					break
				}
			}
			if !found {
				return line
			}
		}
		if idx >= 0 {
			if n.Kind != yaml.SequenceNode || idx >= len(n.Content) {
				return line
			}
			n = n.Content[idx]
			line = n.Line
		}
	}
	return line
}

func firstLine(root *yaml.Node) string {
	b, _ := yaml.Marshal(root)
	line, _, _ := strings.Cut(string(b), "\n")
	return line
}
