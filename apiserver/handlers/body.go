package handlers

import (
	"encoding/hex"
	"fmt"
	"mime"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/jsoncodec"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/apiserver/protobuf"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// The media types a request body may have.
const (
	jsonMediaType = "application/json"
	yamlMediaType = "application/yaml"
)

// requestBody is a request body and the media type it was sent in.
type requestBody struct {
	mediaType string
	data      []byte
}

// bodyMediaType reads a Content-Type: JSON (the default), YAML, or an
// unsupported type (415 listing the accepted ones).
func (c *requestContext) bodyMediaType() (string, error) {
	ct := c.r.Header.Get("Content-Type")
	if ct == "" {
		return jsonMediaType, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil {
		switch mt {
		case jsonMediaType, "application/merge-patch+json", "application/json-patch+json",
			"application/strategic-merge-patch+json":
			// Older kubesim clients sent the patch types on writes; they
			// are JSON.
			return jsonMediaType, nil
		case yamlMediaType, "application/apply-patch+yaml":
			return yamlMediaType, nil
		case protobuf.ContentType:
			if c.protobufServed() {
				return mt, nil
			}
		}
	}
	return "", api.NewUnsupportedMediaType(c.mediaTypes()...)
}

// readRequestBody reads a non-empty body and its media type.
func (c *requestContext) readRequestBody() (*requestBody, error) {
	limit := c.h.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	data, err := readBody(c.w, c.r, limit)
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, api.NewBadRequest("the request body is empty")
	}
	mt, err := c.bodyMediaType()
	if err != nil {
		return nil, err
	}
	return &requestBody{mediaType: mt, data: data}, nil
}

// decodeBody decodes a request body, and tells the audit log the object
// it holds (which a protobuf body does not show in the raw).
func (c *requestContext) decodeBody(dec *decoder, b *requestBody) (api.Object, error) {
	obj, err := dec.decodeBody(b)
	if err == nil {
		audit.LogRequestObject(c.ctx(), obj)
	}
	return obj, err
}

// decodeBody decodes a request body of any accepted media type into a new
// object of the decoder's resource: the one path of every create, update
// and subresource body.
func (d *decoder) decodeBody(b *requestBody) (api.Object, error) {
	switch b.mediaType {
	case yamlMediaType:
		return d.decodeYAML(b.data)
	case protobuf.ContentType:
		return d.decodeProtobuf(b.data)
	}
	return d.decode(b.data)
}

// decodeProtobuf decodes a protobuf body: the magic prefix, the
// runtime.Unknown envelope naming apiVersion and kind, and the object.
// Protobuf has no field names, so there is nothing to match by case or
// to report as duplicate; the envelope must name the URL's kind.
func (d *decoder) decodeProtobuf(data []byte) (api.Object, error) {
	obj := d.res.New()
	if _, custom := obj.(*unstructured.Unstructured); custom || !protobuf.Supports(obj) {
		return nil, api.NewUnsupportedMediaType(jsonMediaType, yamlMediaType)
	}
	av, kind, err := protobuf.Decode(data, obj)
	gv := d.res.GroupVersion().String()
	if av != "" && av != gv {
		return nil, api.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", av, gv))
	}
	if kind != "" && kind != d.res.Kind {
		return nil, api.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): kind %q does not match", d.res.Kind, kind))
	}
	if err != nil {
		if kind == "" {
			// Kubernetes' transformDecodeError: no kind known, so the
			// body is summarized.
			return nil, api.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)",
				d.res.Kind, err, summarizeData(data, 30)))
		}
		return nil, api.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
			kind, versionOf(av), d.res.Kind, err))
	}
	obj.GetObjectKind().SetGroupVersionKind(d.res.GroupVersionKind())
	return obj, nil
}

// versionOf is the version part of an apiVersion ("apps/v1" → "v1").
func versionOf(apiVersion string) string {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[i+1:]
	}
	return apiVersion
}

// summarizeData shows the start of a body in an error, as Kubernetes
// does: JSON as text, anything else in hex.
func summarizeData(data []byte, max int) string {
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		if len(data) > max {
			return string(data[:max]) + " ..."
		}
		return string(data)
	}
	if len(data) > max {
		return hex.EncodeToString(data[:max]) + " ..."
	}
	return hex.EncodeToString(data)
}

// json returns a body as JSON (the scale subresource and DeleteOptions
// decode their own small types from it). A protobuf body is decoded as
// kind (of group/version gv) and re-encoded.
func (b *requestBody) json(gv, kind string, into api.Object) ([]byte, error) {
	switch b.mediaType {
	case yamlMediaType:
		return YAMLToJSON(b.data)
	case protobuf.ContentType:
		d := &decoder{res: &registry.Resource{Group: groupOf(gv), Version: versionOf(gv), Kind: kind,
			New: func() api.Object { return into }}}
		obj, err := d.decodeProtobuf(b.data)
		if err != nil {
			return nil, err
		}
		return jsoncodec.Marshal(obj)
	}
	return b.data, nil
}

// groupOf is the group part of an apiVersion ("apps/v1" → "apps").
func groupOf(apiVersion string) string {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// decodeDeleteOptions decodes the body of a DELETE, sent in the client's
// content type like any other body.
func (c *requestContext) decodeDeleteOptions(data []byte, opts *metav1.DeleteOptions) error {
	mt, err := c.bodyMediaType()
	if err != nil {
		return err
	}
	if mt == protobuf.ContentType {
		// client-go sends DeleteOptions in the client's content type,
		// enveloped with the apiVersion of the client's group.
		if err := unmarshalEnveloped(data, "DeleteOptions", opts); err != nil {
			return api.NewBadRequest("DeleteOptions in version \"v1\" cannot be handled as a DeleteOptions: " + err.Error())
		}
		return nil
	}
	j, err := (&requestBody{mediaType: mt, data: data}).json("", "", nil)
	if err != nil {
		return err
	}
	if err := strictUnmarshal(j, opts); err != nil {
		return api.NewBadRequest("DeleteOptions in version \"v1\" cannot be handled as a DeleteOptions: " + err.Error())
	}
	return nil
}

// scaleUpdate is PUT of /scale: the body is an autoscaling/v1 Scale.
func (c *requestContext) scaleUpdate(b *requestBody, dry bool) error {
	j, err := b.json("autoscaling/v1", "Scale", &autoscalingv1.Scale{})
	if err != nil {
		return err
	}
	return c.scaleWrite(j, dry, "")
}

// protobufEnvelope is runtime.Unknown, the envelope of every protobuf
// body after the magic prefix. Its TypeMeta is runtime.TypeMeta, whose
// field numbers differ from metav1.TypeMeta's.
type protobufEnvelope = runtime.Unknown

// unmarshalEnveloped decodes an enveloped protobuf message of a kind that
// is not an object (DeleteOptions) into v; the envelope must name kind.
func unmarshalEnveloped(data []byte, kind string, v any) error {
	if !protobuf.HasMagic(data) {
		return fmt.Errorf("provided data does not appear to be a protobuf message, expected prefix %v", []byte("k8s\x00"))
	}
	var env protobufEnvelope
	if err := protobuf.Unmarshal(data[4:], &env); err != nil {
		return err
	}
	if env.TypeMeta.Kind != "" && env.TypeMeta.Kind != kind {
		return fmt.Errorf("kind %q does not match %q", env.TypeMeta.Kind, kind)
	}
	return protobuf.Unmarshal(env.Raw, v)
}
