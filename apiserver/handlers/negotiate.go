package handlers

import (
	"encoding/json"
	"mime"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/apiserver/protobuf"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
)

// output is the representation the client asked to receive.
type output int

const (
	// asObject is the object (or list) as JSON.
	asObject output = iota
	// asTable is a meta.k8s.io/v1 Table, as kubectl get asks.
	asTable
	// asProtobuf is the object (or list) as Kubernetes protobuf, as
	// client-go asks when configured with the protobuf content type.
	asProtobuf
)

// negotiate reads the Accept header: kubectl get asks for a Table
// (application/json;as=Table;v=v1;g=meta.k8s.io) with plain JSON as a
// fallback; client-go's protobuf clients ask for
// "application/vnd.kubernetes.protobuf, */*". The first alternative the
// server can produce wins. Tables are served as JSON only, and custom
// resources have no protobuf form (as in Kubernetes, whose unstructured
// objects have no protobuf encoding).
func (c *requestContext) negotiate() (output, error) {
	accept := c.r.Header.Get("Accept")
	if accept == "" || accept == "application/json" {
		// What every kubesim client and most others send: no need to
		// parse it (a Lease renewal's answer is negotiated 500 times a
		// second for 5,000 nodes).
		return asObject, nil
	}
	pb := c.protobufServed()
	for _, clause := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(clause))
		if err != nil {
			continue
		}
		switch mt {
		case "application/json", "application/*", "*/*", "application/yaml":
		case protobuf.ContentType:
			if pb && params["as"] == "" {
				return asProtobuf, nil
			}
			continue
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
	return asObject, api.NewNotAcceptable(c.mediaTypes()...)
}

// protobufServed reports whether the resource has a protobuf encoding:
// built-in kinds do, custom resources (unstructured) do not.
func (c *requestContext) protobufServed() bool {
	return protobuf.Supports(c.res.New())
}

// mediaTypes lists what the resource can be read and written as, for
// the 406 and 415 answers.
func (c *requestContext) mediaTypes() []string {
	if c.protobufServed() {
		return []string{jsonMediaType, yamlMediaType, protobuf.ContentType}
	}
	return []string{jsonMediaType, yamlMediaType}
}

// writeEncoded writes v as negotiated: as protobuf when the client asked
// for it and v has a protobuf form, else as JSON (errors and Status stay
// JSON: client-go decodes a response by its Content-Type).
func (c *requestContext) writeEncoded(code int, out output, v any) error {
	audit.LogResponseObject(c.ctx(), v) // as JSON, whatever the wire form
	if out == asProtobuf {
		if obj, ok := v.(api.Object); ok && protobuf.Supports(obj) {
			data, err := protobuf.Encode(obj)
			if err != nil {
				return api.NewInternalError(err)
			}
			responsewriters.WriteBytes(c.w, code, protobuf.ContentType, data)
			return nil
		}
	}
	responsewriters.WriteJSON(c.w, code, v)
	return nil
}

// writeProtobufList writes a list in protobuf. JSON lists are served from
// the stored bytes; a protobuf list is encoded from the decoded objects.
func (c *requestContext) writeProtobufList(meta metav1.ListMeta, items []api.Object) error {
	data, err := protobuf.EncodeList(c.res.GroupVersion().String(), c.res.ListKind, meta, items)
	if err != nil {
		return api.NewInternalError(err)
	}
	responsewriters.WriteBytes(c.w, http.StatusOK, protobuf.ContentType, data)
	return nil
}

// listJSON encodes a list of objects of resource kind listKind without a
// typed list struct: every kind shares one list shape.
type listJSON struct {
	Kind       string          `json:"kind"`
	APIVersion string          `json:"apiVersion"`
	Metadata   metav1.ListMeta `json:"metadata"`
	Items      []api.Object    `json:"items"`
}

// rawListJSON is listJSON with items already encoded (served from stored
// bytes).
type rawListJSON struct {
	Kind       string            `json:"kind"`
	APIVersion string            `json:"apiVersion"`
	Metadata   metav1.ListMeta   `json:"metadata"`
	Items      []json.RawMessage `json:"items"`
}
