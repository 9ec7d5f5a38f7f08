package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/patch"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// The PATCH media types.
const (
	jsonPatchType      = "application/json-patch+json"
	mergePatchType     = "application/merge-patch+json"
	strategicPatchType = "application/strategic-merge-patch+json"
	applyPatchType     = "application/apply-patch+yaml"
)

// patchSchema adapts the structural schema to what patching needs.
type patchSchema struct{ n *schema.Node }

// SchemaForPatch returns the patch view of s (nil when s is nil).
func SchemaForPatch(s *api.JSONSchemaProps) patch.Schema { return wrap(schema.NewNode(s)) }

func wrap(n *schema.Node) patch.Schema {
	if n == nil {
		return nil
	}
	return patchSchema{n}
}

func (p patchSchema) Field(name string) patch.Schema             { return wrap(p.n.Field(name)) }
func (p patchSchema) Elem() patch.Schema                         { return wrap(p.n.Elem()) }
func (p patchSchema) PatchStrategy() (string, string)            { return p.n.PatchStrategy() }
func (p patchSchema) ListType() (listType string, keys []string) { return p.n.ListType() }

// patchError turns an error of the patch package into an API error.
func patchError(err error) error {
	var pe *patch.Error
	if errors.As(err, &pe) {
		switch pe.Code {
		case http.StatusUnprocessableEntity:
			return unprocessable(pe.Message)
		case http.StatusRequestEntityTooLarge:
			return api.NewRequestEntityTooLargeError(pe.Message)
		case http.StatusInternalServerError:
			return api.NewInternalError(pe)
		}
		return api.NewBadRequest(pe.Message)
	}
	var ce *patch.ConflictError
	if errors.As(err, &ce) {
		se := applyConflict(ce.Error())
		for _, c := range ce.Conflicts {
			se.ErrStatus.Details.Causes = append(se.ErrStatus.Details.Causes, metav1.StatusCause{
				Type: "FieldManagerConflict", Message: "conflict with " + c.Manager, Field: c.Field})
		}
		return se
	}
	return err
}

func (c *requestContext) patchType() (string, error) {
	ct := c.r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	allowed := []string{jsonPatchType, mergePatchType, applyPatchType}
	if c.res.StrategicMergePatch {
		allowed = append(allowed, strategicPatchType)
	}
	if err == nil {
		for _, a := range allowed {
			if mt == a {
				return mt, nil
			}
		}
	}
	return "", api.NewUnsupportedMediaType(allowed...)
}

func (c *requestContext) patch() error {
	pt, err := c.patchType()
	if err != nil {
		return err
	}
	dry, err := c.dryRun()
	if err != nil {
		return err
	}
	limit := c.h.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	body, err := readBody(c.w, c.r, limit)
	if err != nil {
		return err
	}
	// applyDups are the keys an apply body repeats: kube-apiserver's apply
	// decoder keeps the last of each, then checks the body again strictly
	// (sigs.k8s.io/yaml's UnmarshalStrict) and refuses it under Strict.
	var applyDups []string
	if pt == applyPatchType {
		if body, applyDups, err = yamlToJSON(body); err != nil {
			return err
		}
	}
	if c.info.Subresource == "scale" {
		return c.scaleWrite(body, dry, pt)
	}
	if pt == applyPatchType {
		if err := c.undeclaredApplyFields(body); err != nil {
			return err
		}
	}
	dec, err := c.decoder()
	if err != nil {
		return err
	}
	q := c.r.URL.Query()
	manager := q.Get("fieldManager")
	force := q.Get("force") == "true"
	if pt != applyPatchType && q.Has("force") {
		return api.NewBadRequest("force is only allowed for apply patches")
	}
	ps := SchemaForPatch(c.res.Schema)
	now := c.now().UTC().Format(time.RFC3339)
	var scan *fieldScan
	if dec.validation != "Ignore" && (pt == mergePatchType || pt == strategicPatchType) {
		// A JSON merge or strategic patch with a field twice is reported
		// as Kubernetes reports it (kjson.UnmarshalStrict of the patch).
		scan = scanFields(body, false)
	}
	fn := func(cur api.Object) (api.Object, error) {
		// A conflict runs fn again: keep one round's warnings only.
		dec.warnings = dec.warnings[:0]
		var curMap map[string]any
		if cur != nil {
			m, err := objectMap(cur)
			if err != nil {
				return nil, err
			}
			curMap = m
		}
		result, err := applyPatch(pt, curMap, body, manager, force, ps, now)
		if err != nil {
			return nil, patchError(err)
		}
		if err := dec.reportApplyDuplicates(applyDups); err != nil {
			return nil, err
		}
		obj, err := dec.decodeChecked(result, scan, nil)
		if err != nil {
			return nil, err
		}
		if cur != nil && api.Meta(obj).ResourceVersion == api.Meta(cur).ResourceVersion {
			// The patch did not name a resourceVersion: no precondition,
			// so a concurrent write makes the registry retry the patch.
			api.Meta(obj).ResourceVersion = ""
		}
		return obj, nil
	}
	decoded := c.decodedAnswer()
	out, created, err := c.st.Update(c.ctx(), c.ns, c.name, fn, registry.UpdateOptions{
		DryRun: dry, Admit: true, Subresource: c.info.Subresource,
		CreateIfMissing: pt == applyPatchType, Decoded: decoded,
	})
	if err != nil {
		return err
	}
	addWarnings(c.w, dec.warnings)
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	return c.writeAnswer(code, out, decoded)
}

// reportApplyDuplicates refuses (Strict) or warns of (Warn) the keys an
// apply body repeats, worded as kube-apiserver's applyPatcher words them:
// after the apply itself, one 400 naming every repeated key with its line,
// or one warning per key. Apply bodies are YAML (JSON is YAML), so these
// are YAML's words whatever the body's syntax.
func (d *decoder) reportApplyDuplicates(dups []string) error {
	if len(dups) == 0 {
		return nil
	}
	switch d.validation {
	case "Strict":
		return api.NewBadRequest("error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  " +
			strings.Join(dups, "\n  "))
	case "Warn":
		d.warnings = append(d.warnings, dups...)
	}
	return nil
}

// applyPatch applies a patch of type pt to cur (nil only for apply).
func applyPatch(pt string, cur map[string]any, body []byte, manager string, force bool, ps patch.Schema, now string) (map[string]any, error) {
	switch pt {
	case applyPatchType:
		applied, err := unstructured.DecodeMap(body)
		if err != nil {
			return nil, api.NewBadRequest("error decoding YAML: " + err.Error())
		}
		var managed []patch.ManagedFields
		if cur != nil {
			if managed, err = patch.GetManagedFields(cur); err != nil {
				return nil, api.NewInternalError(err)
			}
			if md, ok := cur["metadata"].(map[string]any); ok {
				delete(md, "managedFields")
			}
		}
		result, newManaged, err := patch.Apply(cur, applied, manager, managed, force, ps, now)
		if err != nil {
			return nil, err
		}
		if err := patch.SetManagedFields(result, newManaged); err != nil {
			return nil, api.NewInternalError(err)
		}
		return result, nil
	case strategicPatchType:
		p, err := patch.DecodeObject(body)
		if err != nil {
			return nil, err
		}
		return patch.StrategicMergePatch(cur, p, ps)
	case mergePatchType, jsonPatchType:
		curJSON, err := json.Marshal(cur)
		if err != nil {
			return nil, api.NewInternalError(err)
		}
		var out []byte
		if pt == mergePatchType {
			out, err = patch.MergePatch(curJSON, body)
		} else {
			out, err = patch.JSONPatch(curJSON, body)
		}
		if err != nil {
			return nil, err
		}
		m, err := unstructured.DecodeMap(out)
		if err != nil {
			return nil, api.NewBadRequest(fmt.Sprintf("the patched object is not a JSON object: %v", err))
		}
		return m, nil
	}
	return nil, api.NewUnsupportedMediaType(jsonPatchType, mergePatchType, strategicPatchType, applyPatchType)
}

// objectMap converts an object to its JSON map form.
func objectMap(obj api.Object) (map[string]any, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	m, err := unstructured.DecodeMap(raw)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	return m, nil
}
