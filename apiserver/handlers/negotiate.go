package handlers

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"path"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/apiserver/protobuf"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
)

// output is the representation the client asked to receive: what is
// sent (the object, or what the Accept header's as= parameter turns it
// into) and in which encoding.
type output struct {
	as transform
	// protobuf: Kubernetes protobuf rather than JSON.
	protobuf bool
	// metaVersion is the meta.k8s.io version of a PartialObjectMetadata
	// answer ("v1" or "v1beta1").
	metaVersion string
}

// transform is what the answer is made of (the Convert target of
// Kubernetes' negotiated media type).
type transform int

const (
	// asItself: the object or list itself.
	asItself transform = iota
	// toTable: a meta.k8s.io Table, as kubectl get asks.
	toTable
	// toPartialObjectMetadata: the object's metadata alone, as
	// client-go's metadata client and controller-runtime's OnlyMetadata
	// ask for an object and for the objects of watch events.
	toPartialObjectMetadata
	// toPartialObjectMetadataList: a list's items' metadata alone.
	toPartialObjectMetadataList
)

var (
	// asObject is the object (or list) as JSON.
	asObject = output{}
	// asTable is a meta.k8s.io/v1 Table, as JSON.
	asTable = output{as: toTable}
	// asProtobuf is the object (or list) as Kubernetes protobuf, as
	// client-go asks when configured with the protobuf content type.
	asProtobuf = output{protobuf: true}
)

// metadataOnly reports whether the answer is PartialObjectMetadata (or
// its list).
func (o output) metadataOnly() bool {
	return o.as == toPartialObjectMetadata || o.as == toPartialObjectMetadataList
}

// negotiate reads the Accept header: kubectl get asks for a Table
// (application/json;as=Table;v=v1;g=meta.k8s.io) with plain JSON as a
// fallback; client-go's protobuf clients ask for
// "application/vnd.kubernetes.protobuf, */*"; its metadata client for
// "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,
// application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
// (PartialObjectMetadataList for a list). The first alternative the
// server can produce wins (RequestScope.AllowsMediaTypeTransform): Tables
// are served as JSON only, PartialObjectMetadata as JSON or protobuf
// whatever the resource, and custom resources themselves have no protobuf
// form (as in Kubernetes, whose unstructured objects have no protobuf
// encoding).
//
// Kubernetes finds out only when it transforms the answer that a list
// cannot be PartialObjectMetadata and an object cannot be a
// PartialObjectMetadataList (a 406 with its reason); kubesim knows what
// the verb answers, so it says so here, before anything is written. A
// watch's events are single objects: asked for a list form, they are sent
// whole, as Kubernetes sends them when their transform fails.
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
		var out output
		switch mt {
		case "application/json", "application/*", "*/*", "application/yaml":
		case protobuf.ContentType:
			out.protobuf = true
		default:
			continue
		}
		metaGroup := params["g"] == "meta.k8s.io" && (params["v"] == "v1" || params["v"] == "v1beta1")
		switch params["as"] {
		case "":
			if out.protobuf && !pb {
				continue
			}
			return out, nil
		case "Table":
			// A question answered on create (the access and token
			// reviews) has no table form: its REST storage is no
			// TableConvertor in Kubernetes.
			if metaGroup && !out.protobuf && c.res.CreateOnly == nil {
				return asTable, nil
			}
		case "PartialObjectMetadata", "PartialObjectMetadataList":
			if !metaGroup {
				continue
			}
			out.as, out.metaVersion = toPartialObjectMetadata, params["v"]
			if params["as"] == "PartialObjectMetadataList" {
				out.as = toPartialObjectMetadataList
			}
			return out, c.metadataShapeError(out)
		}
	}
	return asObject, api.NewNotAcceptable(c.mediaTypes()...)
}

// answersList reports whether the request's verb answers a list.
func (c *requestContext) answersList() bool {
	return c.info.Verb == "list" || c.info.Verb == "deletecollection"
}

// metadataShapeError is the 406 for metadata of the wrong shape: a
// PartialObjectMetadata of a list, a PartialObjectMetadataList of an
// object (asPartialObjectMetadata and asPartialObjectMetadataList in
// Kubernetes, which name the Go type they were given; kubesim names its
// versioned one).
func (c *requestContext) metadataShapeError(out output) error {
	if c.info.Verb == "watch" {
		return nil
	}
	switch {
	case out.as == toPartialObjectMetadata && c.answersList():
		return notAcceptable(fmt.Sprintf("you requested PartialObjectMetadata, but the requested object is a list (%s)", c.goTypeName(true)))
	case out.as == toPartialObjectMetadataList && !c.answersList():
		return notAcceptable(fmt.Sprintf("you requested PartialObjectMetadataList, but the requested object is not a list (%s)", c.goTypeName(false)))
	}
	return nil
}

// notAcceptable is a 406 with Kubernetes' errNotAcceptable status: the
// message alone, no details.
func notAcceptable(msg string) error {
	return &api.StatusError{ErrStatus: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: http.StatusNotAcceptable,
		Reason: metav1.StatusReasonNotAcceptable, Message: msg,
	}}
}

// goTypeName names the Go type of the resource's objects (or lists) as %T
// prints it: *v1.Pod, *v1.PodList, *unstructured.Unstructured.
func (c *requestContext) goTypeName(list bool) string {
	t := reflect.TypeOf(c.res.New()).Elem()
	name := t.Name()
	if list {
		if name == c.res.Kind {
			name = c.res.ListKind
		} else {
			name += "List"
		}
	}
	return "*" + path.Base(t.PkgPath()) + "." + name
}

// partialObjectMetadata is obj's metadata as a PartialObjectMetadata of
// the negotiated meta.k8s.io version (meta.AsPartialObjectMetadata). It
// shares obj's metadata: it is only encoded.
func partialObjectMetadata(obj api.Object, version string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/" + version},
		ObjectMeta: *api.Meta(obj),
	}
}

// writePartialObjectMetadataList answers a list with its items' metadata.
func (c *requestContext) writePartialObjectMetadataList(out output, meta metav1.ListMeta, items []api.Object) error {
	partial := make([]api.Object, len(items))
	for i, obj := range items {
		partial[i] = partialObjectMetadata(obj, out.metaVersion)
	}
	apiVersion := "meta.k8s.io/" + out.metaVersion
	if out.protobuf {
		data, err := protobuf.EncodeList(apiVersion, "PartialObjectMetadataList", meta, partial)
		if err != nil {
			return api.NewInternalError(err)
		}
		responsewriters.WriteBytes(c.w, http.StatusOK, protobuf.ContentType, data)
		return nil
	}
	responsewriters.WriteJSON(c.w, http.StatusOK, listJSON{Kind: "PartialObjectMetadataList", APIVersion: apiVersion, Metadata: meta, Items: partial})
	return nil
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
	if out.protobuf {
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
