package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// DefaultMaxBodyBytes is the largest request body accepted (3 MiB, as
// kube-apiserver's default).
const DefaultMaxBodyBytes = 3 * 1024 * 1024

// readBody reads the request body up to limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, api.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", limit))
	}
	if err != nil {
		return nil, api.NewBadRequest("unable to read the request body: " + err.Error())
	}
	return data, nil
}

// bodyToJSON converts a body of the given media type to JSON.
func bodyToJSON(contentType string, body []byte) ([]byte, error) {
	mt := "application/json"
	if contentType != "" {
		var err error
		if mt, _, err = mime.ParseMediaType(contentType); err != nil {
			return nil, api.NewUnsupportedMediaType("application/json", "application/yaml")
		}
	}
	switch mt {
	case "application/json", "application/merge-patch+json", "application/json-patch+json",
		"application/strategic-merge-patch+json":
		return body, nil
	case "application/yaml", "application/apply-patch+yaml":
		return YAMLToJSON(body)
	}
	return nil, api.NewUnsupportedMediaType("application/json", "application/yaml")
}

// YAMLToJSON converts one YAML document (JSON is YAML too) to JSON.
func YAMLToJSON(body []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(body, &v); err != nil {
		return nil, api.NewBadRequest("error converting YAML to JSON: " + err.Error())
	}
	v, err := jsonable(v)
	if err != nil {
		return nil, api.NewBadRequest("error converting YAML to JSON: " + err.Error())
	}
	return json.Marshal(v)
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

// fieldValidation is the query parameter that says what to do with fields
// the schema does not know.
func fieldValidation(r *http.Request) (string, error) {
	v := r.URL.Query().Get("fieldValidation")
	switch strings.ToLower(v) {
	case "":
		return "Warn", nil
	case "strict":
		return "Strict", nil
	case "warn":
		return "Warn", nil
	case "ignore":
		return "Ignore", nil
	}
	return "", api.NewBadRequest(fmt.Sprintf("fieldValidation must be one of \"Ignore\", \"Warn\", or \"Strict\", got %q", v))
}

// decoder turns JSON into an object of one resource, checking its kind and
// apiVersion and handling unknown fields as fieldValidation says.
type decoder struct {
	res        *registry.Resource
	validation string
	warnings   []string
}

// decode decodes data (JSON) into a new object.
func (d *decoder) decode(data []byte) (api.Object, error) {
	if obj, ok := d.fastDecode(data); ok {
		return obj, nil
	}
	m, err := unstructured.DecodeMap(data)
	if err != nil {
		return nil, api.NewBadRequest(fmt.Sprintf("couldn't get version/kind; json parse error: %v", err))
	}
	return d.decodeMap(m)
}

// fastDecode decodes a body straight into the kind's Go type when it can
// prove that the careful path would give the same object: a typed kind, a
// body that decodes with no unknown field, and the right apiVersion and
// kind. Anything else (an error of any sort, custom resources) takes the
// careful path through a map, which also words the errors. One JSON pass
// instead of three is most of the cost of a write.
func (d *decoder) fastDecode(data []byte) (api.Object, bool) {
	obj := d.res.New()
	if _, unstructured := obj.(*unstructured.Unstructured); unstructured {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(obj); err != nil || dec.More() {
		return nil, false
	}
	tm := obj.GetObjectKind()
	gvk := d.res.GroupVersionKind()
	if (tm.APIVersion != "" && tm.APIVersion != gvk.GroupVersion().String()) || (tm.Kind != "" && tm.Kind != gvk.Kind) {
		return nil, false
	}
	if hasCaseVariantKeys(data) {
		// encoding/json matches field names case-insensitively; the
		// careful path reports "Metadata" as an unknown field.
		return nil, false
	}
	tm.SetGroupVersionKind(gvk)
	return obj, true
}

// hasCaseVariantKeys reports whether the top level of a JSON object has a
// key that is not all-lower-case in its first letter (apiVersion, kind,
// metadata, spec, status, data... all start lower-case). It is a cheap
// guard for the case-insensitive matching of encoding/json.
func hasCaseVariantKeys(data []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return true
	}
	for k := range top {
		if k == "" || (k[0] >= 'A' && k[0] <= 'Z') {
			return true
		}
	}
	return false
}

func (d *decoder) cannotHandle(err error) error {
	return api.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
		d.res.Kind, d.res.Version, d.res.Kind, err))
}

func (d *decoder) decodeMap(m map[string]any) (api.Object, error) {
	res := d.res
	gv := res.GroupVersion().String()
	av, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	if _, ok := m["apiVersion"]; ok && !isString(m["apiVersion"]) {
		return nil, d.cannotHandle(errors.New("apiVersion must be a string"))
	}
	if _, ok := m["kind"]; ok && !isString(m["kind"]) {
		return nil, d.cannotHandle(errors.New("kind must be a string"))
	}
	if av != "" && av != gv {
		return nil, api.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", av, gv))
	}
	if kind != "" && kind != res.Kind && !res.ValidatesTypeMeta {
		return nil, api.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): kind %q does not match", res.Kind, kind))
	}
	if md, ok := m["metadata"]; ok && md != nil {
		if _, ok := md.(map[string]any); !ok {
			return nil, d.cannotHandle(fmt.Errorf("json: cannot unmarshal %s into Go struct field %s.metadata of type v1.ObjectMeta", unstructured.TypeName(md), res.Kind))
		}
	}
	m["apiVersion"] = gv
	// A custom resource keeps the body's kind: its strategy words a
	// wrong one as a field error.
	keepKind := res.ValidatesTypeMeta && kind != ""
	if !keepKind {
		m["kind"] = res.Kind
	}
	if res.Schema != nil {
		unknown := schema.Prune(res.Schema, m, schema.PruneOptions{IsResourceRoot: true, KeepNulls: true})
		if len(unknown) > 0 {
			switch d.validation {
			case "Strict":
				msgs := make([]string, len(unknown))
				for i, u := range unknown {
					msgs[i] = fmt.Sprintf("unknown field %q", u)
				}
				return nil, d.cannotHandle(errors.New("strict decoding error: " + strings.Join(msgs, ", ")))
			case "Warn":
				for _, u := range unknown {
					d.warnings = append(d.warnings, fmt.Sprintf("unknown field %q", u))
				}
			}
		}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, d.cannotHandle(err)
	}
	obj := res.New()
	if err := json.Unmarshal(raw, obj); err != nil {
		return nil, d.cannotHandle(err)
	}
	if !keepKind {
		obj.GetObjectKind().SetGroupVersionKind(res.GroupVersionKind())
	}
	return obj, nil
}

func isString(v any) bool { _, ok := v.(string); return ok }

// addWarnings sets Warning headers as Kubernetes does (code 299), which
// kubectl prints as "Warning: ...".
func addWarnings(w http.ResponseWriter, warnings []string) {
	for _, msg := range warnings {
		w.Header().Add("Warning", fmt.Sprintf("299 - %q", msg))
	}
}

// strictUnmarshal decodes JSON into v, refusing unknown fields.
func strictUnmarshal(data []byte, v any) error {
	d := json.NewDecoder(strings.NewReader(string(data)))
	d.DisallowUnknownFields()
	return d.Decode(v)
}
