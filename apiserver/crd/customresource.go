package crd

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/unstructured"
	kcel "github.com/kubesim/kubesim/apiserver/cel"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// ageColumn is the column of a version without additionalPrinterColumns,
// as the apiextensions-apiserver adds it.
var ageColumn = apiextensionsv1.CustomResourceColumnDefinition{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp",
	Description: registry.AgeColumn.Description}

// NewCustomResource builds the REST resource serving version v of c: its
// objects are unstructured, pruned, defaulted and validated against v's
// schema, with the subresources, columns and names c gives.
func NewCustomResource(c *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion) *registry.Resource {
	c = c.DeepCopy()
	var s *api.JSONSchemaProps
	if v.Schema != nil {
		s = api.SchemaFromCRD(v.Schema.OpenAPIV3Schema)
	}
	names := c.Status.AcceptedNames
	gvk := k8sschema.GroupVersionKind{Group: c.Spec.Group, Version: v.Name, Kind: names.Kind}
	st := &customResourceStrategy{gvk: gvk, schema: s, compiled: schema.Compile(s), preserve: c.Spec.PreserveUnknownFields}
	st.rules, st.rulesErr = kcel.NewValidator(s)
	published := publishedSchema(s, c.Spec.PreserveUnknownFields)
	res := &registry.Resource{
		Group: c.Spec.Group, Version: v.Name, Name: names.Plural, SingularName: names.Singular,
		Kind: names.Kind, ListKind: names.ListKind, ShortNames: names.ShortNames, Categories: names.Categories,
		Namespaced: c.Spec.Scope == apiextensionsv1.NamespaceScoped,
		New:        func() api.Object { return &unstructured.Unstructured{} },
		Strategy:   st,
		Schema:     published,
		// The decoder prunes every body with it (unknown fields): one
		// copy of each property made here, instead of several per field
		// of every create. A CRD without a schema has none.
		CompiledSchema:       compileIfAny(published),
		StorageGroupResource: k8sschema.GroupResource{Group: c.Spec.Group, Resource: names.Plural},
		ValidatesTypeMeta:    true,
		// The apiextensions-apiserver's strategy: created at 1, moved by
		// any change outside metadata.
		Generation: registry.SpecGeneration(),
	}
	if sub := v.Subresources; sub != nil {
		res.StatusSubresource = sub.Status != nil
		if sc := sub.Scale; sc != nil {
			res.Scale = &registry.ScaleSubresource{SpecReplicasPath: sc.SpecReplicasPath, StatusReplicasPath: sc.StatusReplicasPath}
			if sc.LabelSelectorPath != nil {
				res.Scale.LabelSelectorPath = *sc.LabelSelectorPath
			}
			st.scale = res.Scale
		}
	}
	if v.Deprecated {
		res.DeprecationWarning = fmt.Sprintf("%s/%s %s is deprecated", c.Spec.Group, v.Name, names.Kind)
		if v.DeprecationWarning != nil {
			res.DeprecationWarning = *v.DeprecationWarning
		}
	}
	cols := v.AdditionalPrinterColumns
	if len(cols) == 0 {
		cols = []apiextensionsv1.CustomResourceColumnDefinition{ageColumn}
	}
	res.Table = PrinterColumnsTable(cols)
	return res
}

// publishedSchema is the schema the REST layer prunes with and OpenAPI
// publishes. A CRD with preserveUnknownFields (the v1beta1 default) never
// prunes: every object node keeps unknown fields.
func publishedSchema(s *api.JSONSchemaProps, preserve bool) *api.JSONSchemaProps {
	if s == nil {
		return nil
	}
	s = s.DeepCopy()
	if preserve {
		markPreserve(s)
	}
	return s
}

// compileIfAny is schema.Compile(s), or nil without a schema.
func compileIfAny(s *api.JSONSchemaProps) *schema.Compiled {
	if s == nil {
		return nil
	}
	return schema.Compile(s)
}

func markPreserve(s *api.JSONSchemaProps) {
	if s == nil || s.XIntOrString {
		return
	}
	if s.Type == "" && len(s.Properties) > 0 {
		s.Type = "object"
	}
	if s.Type == "" || s.Type == "object" {
		t := true
		s.XPreserveUnknownFields = &t
	}
	for k, p := range s.Properties {
		markPreserve(&p)
		s.Properties[k] = p
	}
	if s.AdditionalProperties != nil {
		markPreserve(s.AdditionalProperties.Schema)
	}
	if s.Items != nil {
		markPreserve(s.Items.Schema)
	}
}

// customResourceStrategy is the custom resource strategy of the
// apiextensions-apiserver: prune, default, then validate everything at once.
type customResourceStrategy struct {
	registry.DefaultStrategy
	gvk    k8sschema.GroupVersionKind
	schema *api.JSONSchemaProps
	// compiled is schema prepared once per served version for the walks
	// of every write (prune, default, validate).
	compiled *schema.Compiled
	preserve bool
	scale    *registry.ScaleSubresource
	// rules are the schema's x-kubernetes-validations, compiled once per
	// served version (nil when there are none).
	rules    *kcel.Validator
	rulesErr error
}

// Default prunes unknown fields (unless preserved) and fills defaults.
func (s *customResourceStrategy) Default(obj api.Object) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || s.schema == nil {
		return
	}
	if u.Content == nil {
		u.Content = map[string]any{}
	}
	if !s.preserve {
		s.compiled.Prune(u.Content, schema.PruneOptions{IsResourceRoot: true})
	}
	s.compiled.Default(u.Content)
}

// DefaultOnRead implements registry.ReadDefaulter: a custom resource
// stored before its schema gained a default gets it when read
// (apiextensions-apiserver's defaulting of what it decodes from storage).
// Unknown fields are left as stored.
func (s *customResourceStrategy) DefaultOnRead(obj api.Object) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || s.schema == nil || u.Content == nil {
		return
	}
	s.compiled.Default(u.Content)
}

// Validate checks a new object.
func (s *customResourceStrategy) Validate(obj api.Object) field.ErrorList {
	return s.validate(obj, nil)
}

// ValidateUpdate checks an update the same way (no ratcheting); the old
// object is what transition rules (oldSelf) compare with.
func (s *customResourceStrategy) ValidateUpdate(obj, old api.Object) field.ErrorList {
	return s.validate(obj, old)
}

func (s *customResourceStrategy) validate(obj, old api.Object) field.ErrorList {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("custom resource is a %T", obj))}
	}
	var errs field.ErrorList
	if u.Kind != s.gvk.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), u.Kind, "must be "+s.gvk.Kind))
	}
	if gv := s.gvk.GroupVersion().String(); u.APIVersion != gv {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), u.APIVersion, "must be "+gv))
	}
	if len(errs) > 0 {
		return errs
	}
	if s.schema != nil {
		schemaErrs := s.compiled.Validate(validationView(u), nil)
		errs = append(errs, schemaErrs...)
		errs = append(errs, s.validateRules(u, old, schemaErrs)...)
	}
	if s.scale != nil {
		errs = append(errs, validateReplicas(u, s.scale.SpecReplicasPath, false)...)
		errs = append(errs, validateReplicas(u, s.scale.StatusReplicasPath, true)...)
	}
	return errs
}

// validateRules runs the x-kubernetes-validations rules, unless the object
// already has errors that make them meaningless (a value of the wrong type
// or an unsupported one), as the apiextensions-apiserver does.
func (s *customResourceStrategy) validateRules(u *unstructured.Unstructured, old api.Object, schemaErrs field.ErrorList) field.ErrorList {
	if s.rules == nil && s.rulesErr == nil {
		return nil
	}
	if s.rulesErr != nil {
		return field.ErrorList{field.InternalError(nil, s.rulesErr)}
	}
	// A type error would make every rule fail with a confusing message.
	for _, e := range schemaErrs {
		if e.Type == field.ErrorTypeNotSupported || e.Type == field.ErrorTypeTypeInvalid {
			return field.ErrorList{field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")}
		}
	}
	var oldView any
	if ou, ok := old.(*unstructured.Unstructured); ok {
		oldView = validationView(ou)
	}
	return s.rules.Validate(context.Background(), nil, validationView(u), oldView)
}

// validationView is the object as the schema sees it: its content (shared,
// not copied: validation only reads) plus the type fields and the parts of
// metadata a schema may restrict.
func validationView(u *unstructured.Unstructured) map[string]any {
	m := make(map[string]any, len(u.Content)+3)
	for k, v := range u.Content {
		m[k] = v
	}
	m["apiVersion"], m["kind"] = u.APIVersion, u.Kind
	md := map[string]any{}
	if u.Name != "" {
		md["name"] = u.Name
	}
	if u.GenerateName != "" {
		md["generateName"] = u.GenerateName
	}
	if u.Namespace != "" {
		md["namespace"] = u.Namespace
	}
	m["metadata"] = md
	return m
}

// validateReplicas checks the replica counts the scale subresource maps, as
// ValidateScaleSpec and ValidateScaleStatus do; a missing status count is
// fine.
func validateReplicas(u *unstructured.Unstructured, path string, optional bool) field.ErrorList {
	v, found := unstructured.NestedField(u.Content, strings.Split(strings.TrimPrefix(path, "."), ".")...)
	if !found {
		return nil
	}
	p := field.NewPath(path)
	n, ok := v.(int64)
	switch {
	case !ok:
		return field.ErrorList{field.Invalid(p, 0, fmt.Sprintf("%s accessor error: %v is of the type %s, expected int64", path, v, unstructured.TypeName(v)))}
	case n < 0:
		return field.ErrorList{field.Invalid(p, n, "should be a non-negative integer")}
	case n > math.MaxInt32:
		return field.ErrorList{field.Invalid(p, n, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32))}
	}
	_ = optional
	return nil
}

// PrinterColumnsTable prints custom resources with the NAME column and
// cols, evaluating each column's simple JSON path as the apiextensions
// table convertor does: dates become ages, a missing value an empty cell.
func PrinterColumnsTable(cols []apiextensionsv1.CustomResourceColumnDefinition) *registry.Table {
	defs := []metav1.TableColumnDefinition{registry.NameColumn}
	paths := make([][]pathStep, len(cols))
	for i, c := range cols {
		defs = append(defs, metav1.TableColumnDefinition{Name: c.Name, Type: c.Type, Format: c.Format,
			Description: c.Description, Priority: c.Priority})
		paths[i] = parseJSONPath(c.JSONPath)
	}
	return &registry.Table{
		Columns: defs,
		Cells: func(obj api.Object, now time.Time) []any {
			cells := []any{api.Meta(obj).Name}
			var whole map[string]any
			for i, c := range cols {
				var root map[string]any
				if u, ok := obj.(*unstructured.Unstructured); ok && len(paths[i]) > 0 && paths[i][0].key != "metadata" &&
					paths[i][0].key != "apiVersion" && paths[i][0].key != "kind" {
					root = u.Content
				} else {
					if whole == nil {
						whole, _ = objectMap(obj)
					}
					root = whole
				}
				v, ok := evalJSONPath(root, paths[i])
				if !ok {
					cells = append(cells, nil)
					continue
				}
				cells = append(cells, cellValue(c.Type, v, now))
			}
			return cells
		},
	}
}

func objectMap(obj api.Object) (map[string]any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.ToMap()
	}
	raw, err := jsonMarshal(obj)
	if err != nil {
		return nil, err
	}
	return unstructured.DecodeMap(raw)
}

// cellValue converts a JSON value to the cell of a column type.
func cellValue(typ string, v any, now time.Time) any {
	switch typ {
	case "integer":
		switch n := v.(type) {
		case int64:
			return n
		case float64:
			return int64(n)
		}
		return nil
	case "number":
		switch n := v.(type) {
		case int64:
			return float64(n)
		case float64:
			return n
		}
		return nil
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
		return nil
	case "date":
		s, ok := v.(string)
		if !ok {
			return nil
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return "<invalid>"
		}
		return registry.HumanDuration(now.Sub(t))
	}
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return nil
	case map[string]any, []any:
		raw, _ := jsonMarshal(x)
		return string(raw)
	}
	return fmt.Sprint(v)
}

// pathStep is one step of a simple JSON path: a key, then optional
// indexes (.status.conditions[0].type).
type pathStep struct {
	key     string
	indexes []int
}

// parseJSONPath parses the simple paths printer columns use; anything
// richer (filters, wildcards) gives nil, which prints as an empty cell.
func parseJSONPath(p string) []pathStep {
	p = strings.TrimSpace(p)
	p = strings.TrimSuffix(strings.TrimPrefix(p, "{"), "}")
	if !strings.HasPrefix(p, ".") || strings.ContainsAny(p, "*?@()") {
		return nil
	}
	var steps []pathStep
	for _, part := range strings.Split(p[1:], ".") {
		key, rest, _ := strings.Cut(part, "[")
		st := pathStep{key: key}
		if rest != "" {
			for _, idx := range strings.Split(strings.TrimSuffix(rest, "]"), "][") {
				n, err := strconv.Atoi(idx)
				if err != nil {
					return nil
				}
				st.indexes = append(st.indexes, n)
			}
		}
		if st.key == "" && len(st.indexes) == 0 {
			return nil
		}
		steps = append(steps, st)
	}
	return steps
}

func evalJSONPath(root map[string]any, steps []pathStep) (any, bool) {
	if len(steps) == 0 {
		return nil, false
	}
	var cur any = root
	for _, st := range steps {
		if st.key != "" {
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[st.key]; !ok {
				return nil, false
			}
		}
		for _, i := range st.indexes {
			l, ok := cur.([]any)
			if !ok || i < 0 || i >= len(l) {
				return nil, false
			}
			cur = l[i]
		}
	}
	return cur, true
}
