package crd

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/labels"
	kcel "github.com/kubesim/kubesim/apiserver/cel"
	"github.com/kubesim/kubesim/apiserver/kinds"
	"github.com/kubesim/kubesim/apiserver/schema"
)

// ValidationOptions are the rules that depend on the request's version
// and, for updates, on what the old object already had (Kubernetes lets an
// old v1beta1 CRD keep a non-structural schema through v1 updates).
type ValidationOptions struct {
	// RequireStructuralSchema: every schema must be structural (v1).
	RequireStructuralSchema bool
	// RequireSchema: every version must have a schema (v1).
	RequireSchema bool
	// ForbidPreserveUnknownFields: spec.preserveUnknownFields may not be
	// true (v1).
	ForbidPreserveUnknownFields bool
}

// V1Options are the rules for a v1 create.
func V1Options() ValidationOptions {
	return ValidationOptions{RequireStructuralSchema: true, RequireSchema: true, ForbidPreserveUnknownFields: true}
}

// V1UpdateOptions are the rules for a v1 update of old: what old already
// breaks is allowed to stay.
func V1UpdateOptions(old *apiextensionsv1.CustomResourceDefinition) ValidationOptions {
	o := V1Options()
	if old.Spec.PreserveUnknownFields {
		o.ForbidPreserveUnknownFields = false
	}
	for _, v := range old.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			o.RequireSchema = false
		} else if len(schema.ValidateStructural(api.SchemaFromCRD(v.Schema.OpenAPIV3Schema), nil)) > 0 {
			o.RequireStructuralSchema = false
		}
	}
	return o
}

// V1beta1Options are the rules for a v1beta1 write of c: structural
// schemas only when pruning is asked for.
func V1beta1Options(c *apiextensionsv1.CustomResourceDefinition) ValidationOptions {
	return ValidationOptions{RequireStructuralSchema: !c.Spec.PreserveUnknownFields}
}

var (
	printerColumnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	printerColumnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
)

// Validate checks a CRD as ValidateCustomResourceDefinition does, except
// the generic metadata checks the registry makes. Errors are worded and
// placed as Kubernetes words and places them.
func Validate(c *apiextensionsv1.CustomResourceDefinition, opts ValidationOptions) field.ErrorList {
	var errs field.ErrorList
	if want := c.Spec.Names.Plural + "." + c.Spec.Group; c.Name != want {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), c.Name, `must be spec.names.plural+"."+spec.group`))
	}
	errs = append(errs, validateSpec(&c.Spec, opts, field.NewPath("spec"))...)
	// status.acceptedNames is not checked again: kubesim's naming step
	// (computeStatus) takes them from spec.names, already checked, or keeps
	// names accepted before. Kubernetes checks them, but at create they
	// are still empty (its naming controller runs later), so an invalid
	// name is reported once, under spec.names.
	errs = append(errs, validateStoredVersions(c.Status.StoredVersions, c.Spec.Versions, field.NewPath("status", "storedVersions"))...)
	return errs
}

// ValidateUpdate checks an update: Validate, and the fields that cannot
// change (group and plural always; scope and kind once established).
func ValidateUpdate(c, old *apiextensionsv1.CustomResourceDefinition, opts ValidationOptions) field.ErrorList {
	errs := Validate(c, opts)
	p := field.NewPath("spec")
	immutable := func(path *field.Path, now, before string) {
		if now != before {
			errs = append(errs, field.Invalid(path, now, "field is immutable"))
		}
	}
	if api.IsCRDConditionTrue(old, apiextensionsv1.Established) {
		immutable(p.Child("scope"), string(c.Spec.Scope), string(old.Spec.Scope))
		immutable(p.Child("names", "kind"), c.Spec.Names.Kind, old.Spec.Names.Kind)
	}
	immutable(p.Child("group"), c.Spec.Group, old.Spec.Group)
	immutable(p.Child("names", "plural"), c.Spec.Names.Plural, old.Spec.Names.Plural)
	return errs
}

func validateSpec(s *apiextensionsv1.CustomResourceDefinitionSpec, opts ValidationOptions, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Group == "" {
		errs = append(errs, field.Required(p.Child("group"), ""))
	} else if msgs := labels.IsDNS1123Subdomain(s.Group); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("group"), s.Group, strings.Join(msgs, ",")))
	} else if !strings.Contains(s.Group, ".") {
		errs = append(errs, field.Invalid(p.Child("group"), s.Group, "should be a domain with at least one dot"))
	}
	switch s.Scope {
	case "":
		errs = append(errs, field.Required(p.Child("scope"), ""))
	case apiextensionsv1.ClusterScoped, apiextensionsv1.NamespaceScoped:
	default:
		errs = append(errs, field.NotSupported(p.Child("scope"), string(s.Scope), []string{"Cluster", "Namespaced"}))
	}
	storage := 0
	seen := map[string]bool{}
	unique := true
	for i := range s.Versions {
		v := &s.Versions[i]
		vp := p.Child("versions").Index(i)
		if v.Storage {
			storage++
		}
		if seen[v.Name] {
			unique = false
		}
		seen[v.Name] = true
		if msgs := kinds.IsDNS1035Label(v.Name); len(msgs) > 0 {
			errs = append(errs, field.Invalid(vp.Child("name"), v.Name, strings.Join(msgs, ",")))
		}
		errs = append(errs, validateVersion(v, opts, vp)...)
	}
	if !unique {
		errs = append(errs, field.Invalid(p.Child("versions"), versionNames(s.Versions), "must contain unique version names"))
	}
	errs = append(errs, validateRules(s, p)...)
	if storage != 1 {
		errs = append(errs, field.Invalid(p.Child("versions"), versionNames(s.Versions), "must have exactly one version marked as storage version"))
	}
	np := p.Child("names")
	for _, req := range []struct{ name, value string }{
		{"plural", s.Names.Plural}, {"singular", s.Names.Singular}, {"kind", s.Names.Kind}, {"listKind", s.Names.ListKind},
	} {
		if req.value == "" {
			errs = append(errs, field.Required(np.Child(req.name), ""))
		}
	}
	errs = append(errs, validateNames(&s.Names, np)...)
	if opts.ForbidPreserveUnknownFields && s.PreserveUnknownFields {
		errs = append(errs, field.Invalid(p.Child("preserveUnknownFields"), true,
			"cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
	}
	if cv := s.Conversion; cv != nil {
		cp := p.Child("conversion")
		switch cv.Strategy {
		case "":
			errs = append(errs, field.Required(cp.Child("strategy"), ""))
		case apiextensionsv1.NoneConverter:
			if cv.Webhook != nil {
				errs = append(errs, field.Forbidden(cp.Child("webhook"), "should not be set when strategy is not set to Webhook"))
			}
		case apiextensionsv1.WebhookConverter:
			if cv.Webhook == nil || cv.Webhook.ClientConfig == nil {
				errs = append(errs, field.Required(cp.Child("webhook"), "required when strategy is set to Webhook"))
			} else if (cv.Webhook.ClientConfig.URL == nil) == (cv.Webhook.ClientConfig.Service == nil) {
				errs = append(errs, field.Required(cp.Child("webhook", "clientConfig"), "exactly one of url or service is required"))
			}
		default:
			errs = append(errs, field.NotSupported(cp.Child("strategy"), string(cv.Strategy), []string{"None", "Webhook"}))
		}
	}
	return errs
}

// validateRules checks the x-kubernetes-validations CEL rules of the
// structural schemas. When every version has the same schema, Kubernetes
// holds it once, at spec.validation, and reports its rules there (the path
// of the messages users quote); otherwise under each version.
func validateRules(s *apiextensionsv1.CustomResourceDefinitionSpec, p *field.Path) field.ErrorList {
	var schemas []*api.JSONSchemaProps
	same := len(s.Versions) > 0
	for _, v := range s.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			same = false
			schemas = append(schemas, nil)
			continue
		}
		schemas = append(schemas, api.SchemaFromCRD(v.Schema.OpenAPIV3Schema))
		same = same && reflect.DeepEqual(schemas[len(schemas)-1], schemas[0])
	}
	structural := func(js *api.JSONSchemaProps) bool {
		return js != nil && len(schema.ValidateStructural(js, nil)) == 0
	}
	if same {
		if !structural(schemas[0]) {
			return nil
		}
		return kcel.ValidateSchema(schemas[0], p.Child("validation", "openAPIV3Schema"))
	}
	var errs field.ErrorList
	for i, js := range schemas {
		if structural(js) {
			errs = append(errs, kcel.ValidateSchema(js, p.Child("versions").Index(i).Child("schema", "openAPIV3Schema"))...)
		}
	}
	return errs
}

// versionNames stands for spec.versions in messages; Kubernetes prints the
// whole Go value, which no reader can use.
func versionNames(vs []apiextensionsv1.CustomResourceDefinitionVersion) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	return "[" + strings.Join(names, " ") + "]"
}

func validateVersion(v *apiextensionsv1.CustomResourceDefinitionVersion, opts ValidationOptions, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	statusEnabled := v.Subresources != nil && v.Subresources.Status != nil
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		if opts.RequireSchema {
			errs = append(errs, field.Required(p.Child("schema", "openAPIV3Schema"), "schemas are required"))
		}
	} else {
		s := api.SchemaFromCRD(v.Schema.OpenAPIV3Schema)
		sp := p.Child("schema", "openAPIV3Schema")
		if statusEnabled && s.Type != "" && s.Type != "object" {
			errs = append(errs, field.Invalid(sp.Child("type"), s.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`))
		}
		if opts.RequireStructuralSchema {
			errs = append(errs, schema.ValidateStructural(s, sp)...)
		} else {
			errs = append(errs, unsupportedFeatures(s, sp)...)
		}
	}
	if sub := v.Subresources; sub != nil && sub.Scale != nil {
		sc := sub.Scale
		sp := p.Child("subresources", "scale")
		errs = append(errs, validateReplicasPath(sc.SpecReplicasPath, ".spec.", "should be a json path under .spec", sp.Child("specReplicasPath"))...)
		errs = append(errs, validateReplicasPath(sc.StatusReplicasPath, ".status.", "should be a json path under .status", sp.Child("statusReplicasPath"))...)
		if sc.LabelSelectorPath != nil && *sc.LabelSelectorPath != "" {
			lp := sp.Child("labelSelectorPath")
			if e := simpleJSONPath(*sc.LabelSelectorPath, lp); len(e) > 0 {
				errs = append(errs, e...)
			} else if !strings.HasPrefix(*sc.LabelSelectorPath, ".spec.") && !strings.HasPrefix(*sc.LabelSelectorPath, ".status.") {
				errs = append(errs, field.Invalid(lp, *sc.LabelSelectorPath, "should be a json path under either .spec or .status"))
			}
		}
	}
	for i := range v.AdditionalPrinterColumns {
		errs = append(errs, validateColumn(&v.AdditionalPrinterColumns[i], p.Child("additionalPrinterColumns").Index(i))...)
	}
	return errs
}

func validateReplicasPath(path, prefix, msg string, p *field.Path) field.ErrorList {
	if path == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if errs := simpleJSONPath(path, p); len(errs) > 0 {
		return errs
	}
	if !strings.HasPrefix(path, prefix) {
		return field.ErrorList{field.Invalid(p, path, msg)}
	}
	return nil
}

func simpleJSONPath(s string, p *field.Path) field.ErrorList {
	switch {
	case s == "":
		return field.ErrorList{field.Invalid(p, s, "must not be empty")}
	case s[0] != '.':
		return field.ErrorList{field.Invalid(p, s, "must be a simple json path starting with .")}
	}
	return nil
}

func validateColumn(c *apiextensionsv1.CustomResourceColumnDefinition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	typesMsg := "must be one of " + strings.Join(printerColumnTypes, ",")
	if c.Type == "" {
		errs = append(errs, field.Required(p.Child("type"), typesMsg))
	} else if !slices.Contains(printerColumnTypes, c.Type) {
		errs = append(errs, field.Invalid(p.Child("type"), c.Type, typesMsg))
	}
	if c.Format != "" && !slices.Contains(printerColumnFormats, c.Format) {
		errs = append(errs, field.Invalid(p.Child("format"), c.Format, "must be one of "+strings.Join(printerColumnFormats, ",")))
	}
	if c.JSONPath == "" {
		errs = append(errs, field.Required(p.Child("jsonPath"), ""))
	} else {
		errs = append(errs, simpleJSONPath(c.JSONPath, p.Child("jsonPath"))...)
	}
	return errs
}

func validateNames(n *apiextensionsv1.CustomResourceDefinitionNames, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	label := func(name, value string, mixed bool) {
		if value == "" {
			return
		}
		check := value
		if mixed {
			check = strings.ToLower(value)
		}
		if msgs := kinds.IsDNS1035Label(check); len(msgs) > 0 {
			msg := strings.Join(msgs, ",")
			if mixed {
				msg = "may have mixed case, but should otherwise match: " + msg
			}
			errs = append(errs, field.Invalid(p.Child(name), value, msg))
		}
	}
	label("plural", n.Plural, false)
	label("singular", n.Singular, false)
	label("kind", n.Kind, true)
	label("listKind", n.ListKind, true)
	for i, s := range n.ShortNames {
		if msgs := kinds.IsDNS1035Label(s); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("shortNames").Index(i), s, strings.Join(msgs, ",")))
		}
	}
	if n.Kind != "" && n.Kind == n.ListKind {
		errs = append(errs, field.Invalid(p.Child("listKind"), n.ListKind, "kind and listKind may not be the same"))
	}
	for i, c := range n.Categories {
		if msgs := kinds.IsDNS1035Label(c); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("categories").Index(i), c, strings.Join(msgs, ",")))
		}
	}
	return errs
}

func validateStoredVersions(stored []string, versions []apiextensionsv1.CustomResourceDefinitionVersion, p *field.Path) field.ErrorList {
	if len(stored) == 0 {
		return field.ErrorList{field.Invalid(p, "[]", "must have at least one stored version")}
	}
	var errs field.ErrorList
	left := map[string]int{}
	for i, v := range stored {
		left[v] = i
	}
	for _, v := range versions {
		_, ok := left[v.Name]
		if v.Storage && !ok {
			errs = append(errs, field.Invalid(p, v.Name, "must have the storage version "+v.Name))
		}
		delete(left, v.Name)
	}
	rest := make([]string, 0, len(left))
	for v := range left {
		rest = append(rest, v)
	}
	sort.Slice(rest, func(i, j int) bool { return left[rest[i]] < left[rest[j]] })
	for _, v := range rest {
		errs = append(errs, field.Invalid(p.Index(left[v]), v, "must appear in spec.versions"))
	}
	return errs
}

// unsupportedFeatures are the OpenAPI features no CRD schema may use, even
// a non-structural v1beta1 one.
func unsupportedFeatures(s *api.JSONSchemaProps, p *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	forbid := func(cond bool, name, detail string) {
		if cond {
			errs = append(errs, field.Forbidden(p.Child(name), detail))
		}
	}
	forbid(s.ID != "", "id", "id is not supported")
	forbid(s.AdditionalItems != nil, "additionalItems", "additionalItems is not supported")
	forbid(len(s.PatternProperties) > 0, "patternProperties", "patternProperties is not supported")
	forbid(len(s.Definitions) > 0, "definitions", "definitions is not supported")
	forbid(s.Dependencies != nil, "dependencies", "dependencies is not supported")
	forbid(s.Ref != nil, "$ref", "$ref is not supported")
	forbid(s.Type == "null", "type", "type cannot be set to null")
	forbid(s.Items != nil && len(s.Items.JSONSchemas) > 0, "items", "items must be a schema object and not an array")
	forbid(s.UniqueItems, "uniqueItems", "uniqueItems cannot be set to true since the runtime complexity becomes quadratic")
	if s.AdditionalProperties != nil {
		forbid(len(s.Properties) > 0 && (!s.AdditionalProperties.Allows || s.AdditionalProperties.Schema != nil),
			"additionalProperties", "additionalProperties and properties are mutual exclusive")
		errs = append(errs, unsupportedFeatures(s.AdditionalProperties.Schema, p.Child("additionalProperties"))...)
	}
	keys := slices.Sorted(maps.Keys(s.Properties))
	for _, k := range keys {
		prop := s.Properties[k]
		errs = append(errs, unsupportedFeatures(&prop, p.Child("properties").Key(k))...)
	}
	errs = append(errs, unsupportedFeatures(s.Not, p.Child("not"))...)
	for _, j := range []struct {
		name string
		list []api.JSONSchemaProps
	}{{"allOf", s.AllOf}, {"oneOf", s.OneOf}, {"anyOf", s.AnyOf}} {
		for i := range j.list {
			errs = append(errs, unsupportedFeatures(&j.list[i], p.Child(j.name).Index(i))...)
		}
	}
	if s.Items != nil {
		errs = append(errs, unsupportedFeatures(s.Items.Schema, p.Child("items"))...)
	}
	return errs
}

// structuralProblems explains why a schema is not structural, for the
// NonStructuralSchema condition of v1beta1 CRDs ("" when it is).
func structuralProblems(c *apiextensionsv1.CustomResourceDefinition) string {
	var errs field.ErrorList
	for i, v := range c.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		errs = append(errs, schema.ValidateStructural(api.SchemaFromCRD(v.Schema.OpenAPIV3Schema),
			field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema"))...)
	}
	if len(errs) == 0 {
		return ""
	}
	return fmt.Sprint(errs.Error())
}
