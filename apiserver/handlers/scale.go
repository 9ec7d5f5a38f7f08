package handlers

import (
	"encoding/json"
	"net/http"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/labels"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/responsewriters"
)

// scaleDoc is autoscaling/v1 Scale with replicas as plain numbers.
type scaleDoc struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ObjectMeta `json:"metadata"`
	Spec            struct {
		Replicas int64 `json:"replicas"`
	} `json:"spec"`
	Status struct {
		Replicas int64  `json:"replicas"`
		Selector string `json:"selector,omitempty"`
	} `json:"status"`
}

func jsonPath(p string) []string { return strings.Split(strings.TrimPrefix(p, "."), ".") }

// toScale reads the Scale view of obj through the resource's paths.
func (c *requestContext) toScale(obj api.Object) (*scaleDoc, error) {
	m, err := objectMap(obj)
	if err != nil {
		return nil, err
	}
	sc := c.res.Scale
	s := &scaleDoc{TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"}}
	meta := api.Meta(obj)
	s.Metadata = metav1.ObjectMeta{Name: meta.Name, Namespace: meta.Namespace, UID: meta.UID,
		ResourceVersion: meta.ResourceVersion, CreationTimestamp: meta.CreationTimestamp}
	if v, ok := unstructured.NestedField(m, jsonPath(sc.SpecReplicasPath)...); ok {
		s.Spec.Replicas, _ = v.(int64)
	}
	if v, ok := unstructured.NestedField(m, jsonPath(sc.StatusReplicasPath)...); ok {
		s.Status.Replicas, _ = v.(int64)
	}
	if sc.LabelSelectorPath != "" {
		if v, ok := unstructured.NestedField(m, jsonPath(sc.LabelSelectorPath)...); ok {
			s.Status.Selector = selectorString(v)
		}
	}
	return s, nil
}

// selectorString prints a selector found in an object: a string as is, a
// LabelSelector object in the label-selector syntax ("app=web"), and so a
// plain label map (a ReplicationController's spec.selector).
func selectorString(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case map[string]any:
		if set, ok := labelMap(t); ok {
			return labels.Set(set).String()
		}
		raw, _ := json.Marshal(t)
		var ls metav1.LabelSelector
		if json.Unmarshal(raw, &ls) != nil {
			return ""
		}
		sel, err := api.LabelSelectorAsSelector(&ls)
		if err != nil {
			return ""
		}
		return sel.String()
	}
	return ""
}

// labelMap reads m as a plain label map: every value a string (a
// LabelSelector's matchLabels and matchExpressions never are).
func labelMap(m map[string]any) (map[string]string, bool) {
	out := make(map[string]string, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		out[k] = s
	}
	return out, len(out) > 0
}

// scaleWrite handles PUT and PATCH of /scale: the new replica count is
// written into the object's spec through the resource's path.
func (c *requestContext) scaleWrite(body []byte, dry bool, patchType string) error {
	var out *scaleDoc
	obj, _, err := c.st.Update(c.ctx(), c.ns, c.name, func(cur api.Object) (api.Object, error) {
		s, err := c.toScale(cur)
		if err != nil {
			return nil, err
		}
		var want scaleDoc
		if patchType == "" {
			if err := json.Unmarshal(body, &want); err != nil {
				return nil, api.NewBadRequest("Scale in version \"v1\" cannot be handled as a Scale: " + err.Error())
			}
		} else {
			sm, err := objectMapOf(s)
			if err != nil {
				return nil, err
			}
			pt := patchType
			if pt == strategicPatchType {
				// Scale has no merge keys: strategic is a merge patch.
				pt = mergePatchType
			}
			res, err := applyPatch(pt, sm, body, c.r.URL.Query().Get("fieldManager"), false, nil, "")
			if err != nil {
				return nil, patchError(err)
			}
			raw, _ := json.Marshal(res)
			if err := json.Unmarshal(raw, &want); err != nil {
				return nil, api.NewBadRequest("Scale in version \"v1\" cannot be handled as a Scale: " + err.Error())
			}
			if want.Metadata.ResourceVersion == s.Metadata.ResourceVersion {
				want.Metadata.ResourceVersion = ""
			}
		}
		if want.Spec.Replicas < 0 {
			return nil, api.NewInvalid(schema.GroupKind{Group: "autoscaling", Kind: "Scale"}, c.name,
				fieldErrorsReplicas(want.Spec.Replicas))
		}
		m, err := objectMap(cur)
		if err != nil {
			return nil, err
		}
		unstructured.SetNestedField(m, want.Spec.Replicas, jsonPath(c.res.Scale.SpecReplicasPath)...)
		raw, _ := json.Marshal(m)
		next := c.res.New()
		if err := json.Unmarshal(raw, next); err != nil {
			return nil, api.NewInternalError(err)
		}
		api.Meta(next).ResourceVersion = want.Metadata.ResourceVersion
		return next, nil
	}, registry.UpdateOptions{DryRun: dry, Admit: true, AdmissionSubresource: "scale"})
	if err != nil {
		return err
	}
	if out, err = c.toScale(obj); err != nil {
		return err
	}
	return c.writeScale(out)
}

// writeScale writes a Scale as negotiated (protobuf as autoscaling/v1
// Scale, whose replicas are int32).
func (c *requestContext) writeScale(s *scaleDoc) error {
	out, err := c.negotiate()
	if err != nil {
		return err
	}
	if out.metadataOnly() {
		return c.writeEncoded(http.StatusOK, out, &metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/" + out.metaVersion},
			ObjectMeta: s.Metadata,
		})
	}
	if out == asProtobuf {
		return c.writeEncoded(http.StatusOK, out, &autoscalingv1.Scale{
			TypeMeta: s.TypeMeta, ObjectMeta: s.Metadata,
			Spec:   autoscalingv1.ScaleSpec{Replicas: int32(s.Spec.Replicas)},
			Status: autoscalingv1.ScaleStatus{Replicas: int32(s.Status.Replicas), Selector: s.Status.Selector},
		})
	}
	responsewriters.WriteJSON(c.w, http.StatusOK, s)
	return nil
}

func objectMapOf(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, api.NewInternalError(err)
	}
	return unstructured.DecodeMap(raw)
}

func fieldErrorsReplicas(n int64) field.ErrorList {
	return field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), n, "must be greater than or equal to 0")}
}
