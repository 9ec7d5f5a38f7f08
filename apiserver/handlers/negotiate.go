package handlers

import (
	"encoding/json"
	"mime"
	"net/http"
	"strings"

	"github.com/kubesim/kubesim/api"
)

// output is what the client asked to receive.
type output int

const (
	asObject output = iota
	asTable
)

// negotiate reads the Accept header: kubectl get asks for a Table
// (application/json;as=Table;v=v1;g=meta.k8s.io) with plain JSON as a
// fallback. The first alternative the server can produce wins.
func negotiate(r *http.Request) (output, error) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return asObject, nil
	}
	for _, clause := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(clause))
		if err != nil {
			continue
		}
		switch mt {
		case "application/json", "application/*", "*/*", "application/yaml":
		default:
			continue
		}
		switch params["as"] {
		case "":
			return asObject, nil
		case "Table":
			if params["g"] == "meta.k8s.io" && (params["v"] == "v1" || params["v"] == "v1beta1") {
				return asTable, nil
			}
		}
	}
	return asObject, api.NewNotAcceptable("application/json", "application/yaml", "application/json;as=Table;v=v1;g=meta.k8s.io")
}

// listJSON encodes a list of objects of resource kind listKind without a
// typed list struct: every kind shares one list shape.
type listJSON struct {
	Kind       string       `json:"kind"`
	APIVersion string       `json:"apiVersion"`
	Metadata   api.ListMeta `json:"metadata"`
	Items      []api.Object `json:"items"`
}

// rawListJSON is listJSON with items already encoded (served from stored
// bytes).
type rawListJSON struct {
	Kind       string            `json:"kind"`
	APIVersion string            `json:"apiVersion"`
	Metadata   api.ListMeta      `json:"metadata"`
	Items      []json.RawMessage `json:"items"`
}
