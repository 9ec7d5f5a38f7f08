package crd

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The group, versions and resource of CustomResourceDefinitions.
const (
	Group    = "apiextensions.k8s.io"
	Resource = "customresourcedefinitions"
	Kind     = "CustomResourceDefinition"
)

// DeprecationWarningV1beta1 is the warning every response at
// apiextensions.k8s.io/v1beta1 carried from Kubernetes 1.19 to 1.21.
const DeprecationWarningV1beta1 = "apiextensions.k8s.io/v1beta1 CustomResourceDefinition is deprecated in v1.16+, unavailable in v1.22+; use apiextensions.k8s.io/v1 CustomResourceDefinition"

// SetDefaults fills what a v1 CRD may leave out, as SetDefaults_* of
// apiextensions/v1 do: singular and listKind from kind, conversion None.
func SetDefaults(c *apiextensionsv1.CustomResourceDefinition) {
	defaultNames(&c.Spec.Names)
	if c.Spec.Conversion == nil {
		c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
	}
}

func defaultNames(n *apiextensionsv1.CustomResourceDefinitionNames) {
	if n.Singular == "" {
		n.Singular = strings.ToLower(n.Kind)
	}
	if n.ListKind == "" && n.Kind != "" {
		n.ListKind = n.Kind + "List"
	}
}

// SetDefaultsV1beta1 fills what a v1beta1 CRD may leave out: besides the
// v1 defaults, the scope (Namespaced), versions from spec.version (or
// spec.version from the first version), and preserveUnknownFields true —
// v1beta1 CRDs did not prune unless asked to.
func SetDefaultsV1beta1(c *apiextensionsv1beta1.CustomResourceDefinition) {
	s := &c.Spec
	if s.Names.Singular == "" {
		s.Names.Singular = strings.ToLower(s.Names.Kind)
	}
	if s.Names.ListKind == "" && s.Names.Kind != "" {
		s.Names.ListKind = s.Names.Kind + "List"
	}
	if s.Scope == "" {
		s.Scope = apiextensionsv1beta1.NamespaceScoped
	}
	if len(s.Versions) == 0 && s.Version != "" {
		s.Versions = []apiextensionsv1beta1.CustomResourceDefinitionVersion{{Name: s.Version, Served: true, Storage: true}}
	}
	if s.Version == "" && len(s.Versions) > 0 {
		s.Version = s.Versions[0].Name
	}
	if s.Conversion == nil {
		s.Conversion = &apiextensionsv1beta1.CustomResourceConversion{Strategy: apiextensionsv1beta1.NoneConverter}
	}
	if s.Conversion.Strategy == apiextensionsv1beta1.WebhookConverter && len(s.Conversion.ConversionReviewVersions) == 0 {
		s.Conversion.ConversionReviewVersions = []string{"v1beta1"}
	}
	if s.PreserveUnknownFields == nil {
		t := true
		s.PreserveUnknownFields = &t
	}
}

// ToV1 converts a v1beta1 CRD to v1: the top-level schema, subresources,
// columns and selectable fields are copied into every version that has none of its own, and
// JSONPath becomes jsonPath. The input is not changed.
func ToV1(in *apiextensionsv1beta1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	c := in.DeepCopy()
	out := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: Group + "/v1", Kind: Kind},
		ObjectMeta: c.ObjectMeta,
		Status:     *sameShape[apiextensionsv1.CustomResourceDefinitionStatus](&c.Status),
	}
	s := &c.Spec
	out.Spec.Group = s.Group
	out.Spec.Names = *sameShape[apiextensionsv1.CustomResourceDefinitionNames](&s.Names)
	out.Spec.Scope = apiextensionsv1.ResourceScope(s.Scope)
	versions := s.Versions
	if len(versions) == 0 && s.Version != "" {
		versions = []apiextensionsv1beta1.CustomResourceDefinitionVersion{{Name: s.Version, Served: true, Storage: true}}
	}
	for _, v := range versions {
		nv := apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v.Name, Served: v.Served, Storage: v.Storage, Deprecated: v.Deprecated,
			DeprecationWarning: v.DeprecationWarning, Schema: sameShape[apiextensionsv1.CustomResourceValidation](v.Schema),
			Subresources:             sameShape[apiextensionsv1.CustomResourceSubresources](v.Subresources),
			AdditionalPrinterColumns: columnsToV1(v.AdditionalPrinterColumns),
			SelectableFields:         fieldsToV1(v.SelectableFields),
		}
		if nv.Schema == nil && s.Validation != nil {
			nv.Schema = sameShape[apiextensionsv1.CustomResourceValidation](s.Validation)
		}
		if nv.Subresources == nil && s.Subresources != nil {
			nv.Subresources = sameShape[apiextensionsv1.CustomResourceSubresources](s.Subresources)
		}
		if len(nv.AdditionalPrinterColumns) == 0 && len(s.AdditionalPrinterColumns) > 0 {
			nv.AdditionalPrinterColumns = columnsToV1(s.AdditionalPrinterColumns)
		}
		if len(nv.SelectableFields) == 0 && len(s.SelectableFields) > 0 {
			nv.SelectableFields = fieldsToV1(s.SelectableFields)
		}
		out.Spec.Versions = append(out.Spec.Versions, nv)
	}
	if cv := s.Conversion; cv != nil {
		out.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.ConversionStrategyType(cv.Strategy)}
		if cv.WebhookClientConfig != nil || len(cv.ConversionReviewVersions) > 0 {
			out.Spec.Conversion.Webhook = &apiextensionsv1.WebhookConversion{ClientConfig: sameShape[apiextensionsv1.WebhookClientConfig](cv.WebhookClientConfig),
				ConversionReviewVersions: cv.ConversionReviewVersions}
		}
	}
	out.Spec.PreserveUnknownFields = s.PreserveUnknownFields != nil && *s.PreserveUnknownFields
	return out
}

func columnsToV1(in []apiextensionsv1beta1.CustomResourceColumnDefinition) []apiextensionsv1.CustomResourceColumnDefinition {
	if in == nil {
		return nil
	}
	out := make([]apiextensionsv1.CustomResourceColumnDefinition, len(in))
	for i, c := range in {
		out[i] = apiextensionsv1.CustomResourceColumnDefinition{Name: c.Name, Type: c.Type, Format: c.Format,
			Description: c.Description, Priority: c.Priority, JSONPath: c.JSONPath}
	}
	return out
}

func fieldsToV1(in []apiextensionsv1beta1.SelectableField) []apiextensionsv1.SelectableField {
	if in == nil {
		return nil
	}
	out := make([]apiextensionsv1.SelectableField, len(in))
	for i, f := range in {
		out[i] = apiextensionsv1.SelectableField{JSONPath: f.JSONPath}
	}
	return out
}

func fieldsToV1beta1(in []apiextensionsv1.SelectableField) []apiextensionsv1beta1.SelectableField {
	if in == nil {
		return nil
	}
	out := make([]apiextensionsv1beta1.SelectableField, len(in))
	for i, f := range in {
		out[i] = apiextensionsv1beta1.SelectableField{JSONPath: f.JSONPath}
	}
	return out
}

func columnsToV1beta1(in []apiextensionsv1.CustomResourceColumnDefinition) []apiextensionsv1beta1.CustomResourceColumnDefinition {
	if in == nil {
		return nil
	}
	out := make([]apiextensionsv1beta1.CustomResourceColumnDefinition, len(in))
	for i, c := range in {
		out[i] = apiextensionsv1beta1.CustomResourceColumnDefinition{Name: c.Name, Type: c.Type, Format: c.Format,
			Description: c.Description, Priority: c.Priority, JSONPath: c.JSONPath}
	}
	return out
}

// ToV1beta1 converts a v1 CRD to v1beta1: spec.version is the first
// version, and a schema, subresources, columns or selectable fields that
// every version shares move to the top level, as the real conversion does.
// The input is not changed.
func ToV1beta1(in *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1beta1.CustomResourceDefinition {
	c := in.DeepCopy()
	out := &apiextensionsv1beta1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: Group + "/v1beta1", Kind: Kind},
		ObjectMeta: c.ObjectMeta,
		Status:     *sameShape[apiextensionsv1beta1.CustomResourceDefinitionStatus](&c.Status),
	}
	s := &c.Spec
	out.Spec.Group = s.Group
	out.Spec.Names = *sameShape[apiextensionsv1beta1.CustomResourceDefinitionNames](&s.Names)
	out.Spec.Scope = apiextensionsv1beta1.ResourceScope(s.Scope)
	if len(s.Versions) > 0 {
		out.Spec.Version = s.Versions[0].Name
	}
	sameSchema, sameSub, sameCols, sameFields := identicalPerVersion(s.Versions)
	for _, v := range s.Versions {
		nv := apiextensionsv1beta1.CustomResourceDefinitionVersion{
			Name: v.Name, Served: v.Served, Storage: v.Storage, Deprecated: v.Deprecated,
			DeprecationWarning: v.DeprecationWarning, Schema: sameShape[apiextensionsv1beta1.CustomResourceValidation](v.Schema),
			Subresources:             sameShape[apiextensionsv1beta1.CustomResourceSubresources](v.Subresources),
			AdditionalPrinterColumns: columnsToV1beta1(v.AdditionalPrinterColumns),
			SelectableFields:         fieldsToV1beta1(v.SelectableFields),
		}
		if sameSchema {
			nv.Schema = nil
		}
		if sameSub {
			nv.Subresources = nil
		}
		if sameCols {
			nv.AdditionalPrinterColumns = nil
		}
		if sameFields {
			nv.SelectableFields = nil
		}
		out.Spec.Versions = append(out.Spec.Versions, nv)
	}
	if sameSchema {
		out.Spec.Validation = sameShape[apiextensionsv1beta1.CustomResourceValidation](s.Versions[0].Schema)
	}
	if sameSub {
		out.Spec.Subresources = sameShape[apiextensionsv1beta1.CustomResourceSubresources](s.Versions[0].Subresources)
	}
	if sameCols {
		out.Spec.AdditionalPrinterColumns = columnsToV1beta1(s.Versions[0].AdditionalPrinterColumns)
	}
	if sameFields {
		out.Spec.SelectableFields = fieldsToV1beta1(s.Versions[0].SelectableFields)
	}
	if cv := s.Conversion; cv != nil {
		out.Spec.Conversion = &apiextensionsv1beta1.CustomResourceConversion{Strategy: apiextensionsv1beta1.ConversionStrategyType(cv.Strategy)}
		if cv.Webhook != nil {
			out.Spec.Conversion.WebhookClientConfig = sameShape[apiextensionsv1beta1.WebhookClientConfig](cv.Webhook.ClientConfig)
			out.Spec.Conversion.ConversionReviewVersions = cv.Webhook.ConversionReviewVersions
		}
	}
	p := s.PreserveUnknownFields
	out.Spec.PreserveUnknownFields = &p
	return out
}

// identicalPerVersion reports which per-version fields are set, and equal,
// in every version (and so belong at the v1beta1 top level).
func identicalPerVersion(vs []apiextensionsv1.CustomResourceDefinitionVersion) (schema, subresources, columns, fields bool) {
	if len(vs) == 0 {
		return false, false, false, false
	}
	schema, subresources, columns, fields = true, true, true, true
	for _, v := range vs {
		schema = schema && v.Schema != nil && reflect.DeepEqual(v.Schema, vs[0].Schema)
		subresources = subresources && v.Subresources != nil && reflect.DeepEqual(v.Subresources, vs[0].Subresources)
		columns = columns && len(v.AdditionalPrinterColumns) > 0 && reflect.DeepEqual(v.AdditionalPrinterColumns, vs[0].AdditionalPrinterColumns)
		fields = fields && len(v.SelectableFields) > 0 && reflect.DeepEqual(v.SelectableFields, vs[0].SelectableFields)
	}
	return schema, subresources, columns, fields
}

// StorageVersion is the name of the version marked storage ("" if none).
func StorageVersion(c *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range c.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// RemoveCondition drops condition t.
func RemoveCondition(c *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) {
	out := c.Status.Conditions[:0]
	for _, cond := range c.Status.Conditions {
		if cond.Type != t {
			out = append(out, cond)
		}
	}
	c.Status.Conditions = out
}

// sameShape copies in (a pointer) into a new value of type T through JSON:
// the parts v1beta1 and v1 CRDs share (names, status, schemas,
// subresources, a webhook's clientConfig) have the same JSON in two Go
// packages, as Kubernetes' generated conversions between them assume. A
// nil in gives nil.
func sameShape[T any](in any) *T {
	if v := reflect.ValueOf(in); !v.IsValid() || v.IsNil() {
		return nil
	}
	data, err := json.Marshal(in)
	if err != nil {
		panic(fmt.Sprintf("crd: %T has no JSON form: %v", in, err))
	}
	out := new(T)
	if err := json.Unmarshal(data, out); err != nil {
		panic(fmt.Sprintf("crd: %T's JSON is not %T's: %v", in, out, err))
	}
	return out
}
