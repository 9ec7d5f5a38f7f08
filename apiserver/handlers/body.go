package handlers

import (
	"mime"
	"strings"

	"github.com/kubesim/kubesim/api"
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
		}
	}
	return "", api.NewUnsupportedMediaType(c.acceptedBodyTypes()...)
}

// acceptedBodyTypes lists the media types a body of this resource may
// have, for the 415 answer.
func (c *requestContext) acceptedBodyTypes() []string {
	return []string{jsonMediaType, yamlMediaType}
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

// decodeBody decodes a request body of any accepted media type into a new
// object of the decoder's resource: the one path of every create, update
// and subresource body.
func (d *decoder) decodeBody(b *requestBody) (api.Object, error) {
	switch b.mediaType {
	case yamlMediaType:
		return d.decodeYAML(b.data)
	}
	return d.decode(b.data)
}

// json returns a body as JSON (the scale subresource and DeleteOptions
// decode their own small types from it).
func (b *requestBody) json() ([]byte, error) {
	if b.mediaType == yamlMediaType {
		return YAMLToJSON(b.data)
	}
	return b.data, nil
}

// decodeDeleteOptions decodes the body of a DELETE, sent in the client's
// content type like any other body.
func (c *requestContext) decodeDeleteOptions(data []byte, opts *api.DeleteOptions) error {
	mt, err := c.bodyMediaType()
	if err != nil {
		return err
	}
	j, err := (&requestBody{mediaType: mt, data: data}).json()
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
	j, err := b.json()
	if err != nil {
		return err
	}
	return c.scaleWrite(j, dry, "")
}
