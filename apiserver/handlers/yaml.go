package handlers

import (
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/kubesim/kubesim/api"
)

// YAMLToJSON converts one YAML document (JSON is YAML too) to JSON. Of
// keys repeated in one mapping the last wins, as with sigs.k8s.io/yaml.
func YAMLToJSON(body []byte) ([]byte, error) {
	j, _, err := yamlToJSON(body)
	return j, err
}

// yamlToJSON converts one YAML document to JSON and also returns the
// repeated keys, worded as sigs.k8s.io/yaml's strict conversion words them
// (`line 5: key "name" already set in map`), in document order. yaml.v3
// itself refuses repeated keys; Kubernetes keeps the last one unless the
// request is strict.
func yamlToJSON(body []byte) ([]byte, []string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(body, &doc); err != nil {
		return nil, nil, api.NewBadRequest("error converting YAML to JSON: " + err.Error())
	}
	var dups []string
	dropRepeatedKeys(&doc, &dups)
	var v any
	if err := doc.Decode(&v); err != nil {
		return nil, nil, api.NewBadRequest("error converting YAML to JSON: " + err.Error())
	}
	v, err := jsonable(v)
	if err != nil {
		return nil, nil, api.NewBadRequest("error converting YAML to JSON: " + err.Error())
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, nil, api.NewBadRequest("error converting YAML to JSON: " + err.Error())
	}
	return j, dups, nil
}

// dropRepeatedKeys removes, in every mapping below n, all but the last of
// keys that repeat, recording each repetition.
func dropRepeatedKeys(n *yaml.Node, dups *[]string) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			dropRepeatedKeys(c, dups)
		}
	case yaml.MappingNode:
		type key struct{ tag, value string }
		last := map[key]int{}
		repeated := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode && k.Value != "<<" {
				id := key{k.ShortTag(), k.Value}
				if _, ok := last[id]; ok {
					*dups = append(*dups, fmt.Sprintf("line %d: key %q already set in map", k.Line, k.Value))
					repeated = true
				}
				last[id] = i
			}
			dropRepeatedKeys(n.Content[i+1], dups)
		}
		if !repeated {
			return
		}
		kept := n.Content[:0:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode && k.Value != "<<" && last[key{k.ShortTag(), k.Value}] != i {
				continue
			}
			kept = append(kept, n.Content[i], n.Content[i+1])
		}
		n.Content = kept
	}
}

// jsonable turns yaml.v3's values into ones encoding/json accepts.
func jsonable(v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			t[k] = c
		}
		return t, nil
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("map key %v is not a string", k)
			}
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			m[ks] = c
		}
		return m, nil
	case []any:
		for i, e := range t {
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			t[i] = c
		}
		return t, nil
	}
	return v, nil
}
