package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/kubesim/kubesim/api/unstructured"
	"reflect"
	"regexp"
	"slices"
	"sort"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
)

// ValidateStructural makes the checks the CustomResourceDefinition API
// makes on a v1 openAPIV3Schema at fldPath (for example
// spec.versions[0].schema.openAPIV3Schema), in the same three stages:
//
//  1. OpenAPI features CRDs do not support ($ref, uniqueItems,
//     additionalProperties next to properties, items as an array, ...);
//  2. if those pass, the structural-schema rules (every node has a type
//     unless int-or-string or preserve-unknown-fields, object at the root,
//     no types or defaults inside allOf/anyOf/oneOf/not, metadata may only
//     restrict name and generateName, ...), sorted by message as Kubernetes
//     sorts them;
//  3. if those pass too, every default must be free of unknown fields and
//     valid against its own node.
func ValidateStructural(s *api.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	if errs := validateOpenAPISchema(s, fldPath); len(errs) > 0 {
		return errs
	}
	var errs field.ErrorList
	errs = append(errs, structuralInvariants(s, rootLevel, fldPath)...)
	errs = append(errs, structuralCompleteness(s, fldPath)...)
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	if len(errs) > 0 {
		return errs
	}
	return validateDefaults(s, fldPath, false, true)
}

func validateOpenAPISchema(s *api.JSONSchemaProps, p *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if s.ID != "" {
		errs = append(errs, field.Forbidden(p.Child("id"), "id is not supported"))
	}
	if s.AdditionalItems != nil {
		errs = append(errs, field.Forbidden(p.Child("additionalItems"), "additionalItems is not supported"))
	}
	if len(s.PatternProperties) != 0 {
		errs = append(errs, field.Forbidden(p.Child("patternProperties"), "patternProperties is not supported"))
	}
	if len(s.Definitions) != 0 {
		errs = append(errs, field.Forbidden(p.Child("definitions"), "definitions is not supported"))
	}
	if s.Dependencies != nil {
		errs = append(errs, field.Forbidden(p.Child("dependencies"), "dependencies is not supported"))
	}
	if s.Ref != nil {
		errs = append(errs, field.Forbidden(p.Child("$ref"), "$ref is not supported"))
	}
	if s.Type == "null" {
		errs = append(errs, field.Forbidden(p.Child("type"), "type cannot be set to null"))
	} else if s.Type != "" && !slices.Contains([]string{"object", "array", "string", "integer", "number", "boolean"}, s.Type) {
		errs = append(errs, field.NotSupported(p.Child("type"), s.Type, []string{"array", "boolean", "integer", "number", "object", "string"}))
	}
	if s.Items != nil && len(s.Items.JSONSchemas) != 0 {
		errs = append(errs, field.Forbidden(p.Child("items"), "items must be a schema object and not an array"))
	}
	if s.UniqueItems {
		errs = append(errs, field.Forbidden(p.Child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	if s.XPreserveUnknownFields != nil && !*s.XPreserveUnknownFields {
		errs = append(errs, field.Invalid(p.Child("x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"))
	}
	if s.XListType != nil {
		switch lt := *s.XListType; lt {
		case "atomic", "set":
			if len(s.XListMapKeys) > 0 {
				errs = append(errs, field.Forbidden(p.Child("x-kubernetes-list-map-keys"), "must be empty if x-kubernetes-list-type is not map"))
			}
		case "map":
			if len(s.XListMapKeys) == 0 {
				errs = append(errs, field.Required(p.Child("x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("x-kubernetes-list-type"), lt, []string{"atomic", "set", "map"}))
		}
		if s.Type != "array" {
			errs = append(errs, field.Invalid(p.Child("type"), s.Type, "must be array if x-kubernetes-list-type is specified"))
		}
	} else if len(s.XListMapKeys) > 0 {
		errs = append(errs, field.Required(p.Child("x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"))
	}
	if s.XMapType != nil && *s.XMapType != "atomic" && *s.XMapType != "granular" {
		errs = append(errs, field.NotSupported(p.Child("x-kubernetes-map-type"), *s.XMapType, []string{"granular", "atomic"}))
	}
	if s.AdditionalProperties != nil {
		if len(s.Properties) != 0 && (!s.AdditionalProperties.Allows || s.AdditionalProperties.Schema != nil) {
			errs = append(errs, field.Forbidden(p.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
		}
		errs = append(errs, validateOpenAPISchema(s.AdditionalProperties.Schema, p.Child("additionalProperties"))...)
	}
	for _, k := range sortedSchemaKeys(s.Properties) {
		prop := s.Properties[k]
		errs = append(errs, validateOpenAPISchema(&prop, p.Child("properties").Key(k))...)
	}
	errs = append(errs, validateOpenAPISchema(s.Not, p.Child("not"))...)
	for i := range s.AllOf {
		errs = append(errs, validateOpenAPISchema(&s.AllOf[i], p.Child("allOf").Index(i))...)
	}
	for i := range s.OneOf {
		errs = append(errs, validateOpenAPISchema(&s.OneOf[i], p.Child("oneOf").Index(i))...)
	}
	for i := range s.AnyOf {
		errs = append(errs, validateOpenAPISchema(&s.AnyOf[i], p.Child("anyOf").Index(i))...)
	}
	if s.Items != nil {
		errs = append(errs, validateOpenAPISchema(s.Items.Schema, p.Child("items"))...)
	}
	return errs
}

type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

func itemsSchema(s *api.JSONSchemaProps) *api.JSONSchemaProps {
	if s == nil || s.Items == nil {
		return nil
	}
	return s.Items.Schema
}

func structuralInvariants(s *api.JSONSchemaProps, lvl level, p *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if s.Type == "array" && itemsSchema(s) == nil {
		errs = append(errs, field.Required(p.Child("items"), "must be specified"))
	}
	errs = append(errs, structuralInvariants(itemsSchema(s), itemLevel, p.Child("items"))...)
	for _, k := range sortedSchemaKeys(s.Properties) {
		prop := s.Properties[k]
		errs = append(errs, structuralInvariants(&prop, fieldLevel, p.Child("properties").Key(k))...)
	}
	if s.AdditionalProperties != nil {
		if lvl == rootLevel {
			errs = append(errs, field.Forbidden(p.Child("additionalProperties"), "must not be used at the root"))
		}
		errs = append(errs, structuralInvariants(s.AdditionalProperties.Schema, fieldLevel, p.Child("additionalProperties"))...)
	}
	preserve := preserves(s)
	if s.XIntOrString && preserve {
		errs = append(errs, field.Invalid(p.Child("x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	if s.XIntOrString && s.XEmbeddedResource {
		errs = append(errs, field.Invalid(p.Child("x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"))
	}

	skipAnyOf := isIntOrStringAnyOf(s.AnyOf)
	skipFirstAllOfAnyOf := len(s.AllOf) >= 1 && isIntOrStringAnyOf(s.AllOf[0].AnyOf)
	errs = append(errs, valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, lvl, p)...)

	checkMetadata := lvl == rootLevel || s.XEmbeddedResource
	if s.XEmbeddedResource && s.Type != "object" {
		if s.Type == "" {
			errs = append(errs, field.Required(p.Child("type"), "must be object if x-kubernetes-embedded-resource is true"))
		} else {
			errs = append(errs, field.Invalid(p.Child("type"), s.Type, "must be object if x-kubernetes-embedded-resource is true"))
		}
	} else if s.Type == "" && !s.XIntOrString && !preserve {
		switch lvl {
		case rootLevel:
			errs = append(errs, field.Required(p.Child("type"), "must not be empty at the root"))
		case itemLevel:
			errs = append(errs, field.Required(p.Child("type"), "must not be empty for specified array items"))
		case fieldLevel:
			errs = append(errs, field.Required(p.Child("type"), "must not be empty for specified object fields"))
		}
	}
	if s.XEmbeddedResource && s.AdditionalProperties != nil {
		errs = append(errs, field.Forbidden(p.Child("additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"))
	}
	if lvl == rootLevel && s.Type != "" && s.Type != "object" {
		errs = append(errs, field.Invalid(p.Child("type"), s.Type, "must be object at the root"))
	}
	if kind, ok := s.Properties["kind"]; ok && checkMetadata && kind.Type != "string" {
		errs = append(errs, field.Invalid(p.Child("properties").Key("kind").Child("type"), kind.Type, "must be string"))
	}
	if av, ok := s.Properties["apiVersion"]; ok && checkMetadata && av.Type != "string" {
		errs = append(errs, field.Invalid(p.Child("properties").Key("apiVersion").Child("type"), av.Type, "must be string"))
	}
	if md, ok := s.Properties["metadata"]; ok && checkMetadata && md.Type != "object" {
		errs = append(errs, field.Invalid(p.Child("properties").Key("metadata").Child("type"), md.Type, "must be object"))
	}
	if md, ok := s.Properties["metadata"]; ok && lvl == rootLevel && !metadataOnlyNames(md) {
		errs = append(errs, field.Forbidden(p.Child("properties").Key("metadata"), "must not specify anything other than name and generateName, but metadata is implicitly specified"))
	}
	if s.XEmbeddedResource && !preserve && len(s.Properties) == 0 {
		errs = append(errs, field.Required(p.Child("properties"), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}
	return errs
}

// metadataOnlyNames says the root metadata schema restricts at most name
// and generateName (its type and default are checked elsewhere).
func metadataOnlyNames(md api.JSONSchemaProps) bool {
	_, n := md.Properties["name"]
	_, g := md.Properties["generateName"]
	if (n && g && len(md.Properties) == 2) || ((n || g) && len(md.Properties) == 1) {
		md.Properties = nil
	}
	md.Type = ""
	md.Default = nil
	return reflect.DeepEqual(md, api.JSONSchemaProps{})
}

func isIntOrStringAnyOf(anyOf []api.JSONSchemaProps) bool {
	return len(anyOf) == 2 &&
		reflect.DeepEqual(anyOf[0], api.JSONSchemaProps{Type: "integer"}) &&
		reflect.DeepEqual(anyOf[1], api.JSONSchemaProps{Type: "string"})
}

// valueValidation checks the junctors of a node: allOf, anyOf, oneOf and
// not may only restrict values, never declare types or defaults.
func valueValidation(s *api.JSONSchemaProps, skipAnyOf, skipFirstAllOfAnyOf bool, lvl level, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !skipAnyOf {
		for i := range s.AnyOf {
			errs = append(errs, nestedValueValidation(&s.AnyOf[i], false, lvl, p.Child("anyOf").Index(i))...)
		}
	}
	for i := range s.AllOf {
		errs = append(errs, nestedValueValidation(&s.AllOf[i], skipFirstAllOfAnyOf && i == 0, lvl, p.Child("allOf").Index(i))...)
	}
	for i := range s.OneOf {
		errs = append(errs, nestedValueValidation(&s.OneOf[i], false, lvl, p.Child("oneOf").Index(i))...)
	}
	if s.Not != nil {
		errs = append(errs, nestedValueValidation(s.Not, false, lvl, p.Child("not"))...)
	}
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			errs = append(errs, field.Invalid(p.Child("pattern"), s.Pattern, fmt.Sprintf("must be a valid regular expression, but isn't: %v", err)))
		}
	}
	return errs
}

func nestedValueValidation(v *api.JSONSchemaProps, skipAnyOf bool, lvl level, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, valueValidation(v, skipAnyOf, false, lvl, p)...)
	if it := itemsSchema(v); it != nil {
		errs = append(errs, nestedValueValidation(it, false, lvl, p.Child("items"))...)
	}
	for _, k := range sortedSchemaKeys(v.Properties) {
		prop := v.Properties[k]
		errs = append(errs, nestedValueValidation(&prop, false, fieldLevel, p.Child("properties").Key(k))...)
	}
	forbid := func(name, detail string) { errs = append(errs, field.Forbidden(p.Child(name), detail)) }
	if v.Type != "" {
		forbid("type", "must be empty to be structural")
	}
	if v.AdditionalProperties != nil {
		forbid("additionalProperties", "must be undefined to be structural")
	}
	if v.Default != nil {
		forbid("default", "must be undefined to be structural")
	}
	if v.Title != "" {
		forbid("title", "must be empty to be structural")
	}
	if v.Description != "" {
		forbid("description", "must be empty to be structural")
	}
	if v.Nullable {
		forbid("nullable", "must be false to be structural")
	}
	if preserves(v) {
		forbid("x-kubernetes-preserve-unknown-fields", "must be false to be structural")
	}
	if v.XEmbeddedResource {
		forbid("x-kubernetes-embedded-resource", "must be false to be structural")
	}
	if v.XIntOrString {
		forbid("x-kubernetes-int-or-string", "must be false to be structural")
	}
	if len(v.XListMapKeys) > 0 {
		forbid("x-kubernetes-list-map-keys", "must be empty to be structural")
	}
	if v.XListType != nil {
		forbid("x-kubernetes-list-type", "must be undefined to be structural")
	}
	if _, ok := v.Properties["metadata"]; ok {
		errs = append(errs, field.Forbidden(p.Child("properties").Key("metadata"), "must not be specified in a nested context"))
	}
	return errs
}

// structuralCompleteness requires every property or items declared inside
// a junctor to be declared in the structural part too, so that pruning
// (which ignores junctors) keeps what they talk about.
func structuralCompleteness(s *api.JSONSchemaProps, p *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	check := func(v *api.JSONSchemaProps, vp *field.Path) {
		errs = append(errs, nestedCompleteness(v, s, p, vp)...)
	}
	for i := range s.AllOf {
		check(&s.AllOf[i], p.Child("allOf").Index(i))
	}
	for i := range s.AnyOf {
		check(&s.AnyOf[i], p.Child("anyOf").Index(i))
	}
	for i := range s.OneOf {
		check(&s.OneOf[i], p.Child("oneOf").Index(i))
	}
	if s.Not != nil {
		check(s.Not, p.Child("not"))
	}
	errs = append(errs, structuralCompleteness(itemsSchema(s), p.Child("items"))...)
	for _, k := range sortedSchemaKeys(s.Properties) {
		prop := s.Properties[k]
		errs = append(errs, structuralCompleteness(&prop, p.Child("properties").Key(k))...)
	}
	if s.AdditionalProperties != nil {
		errs = append(errs, structuralCompleteness(s.AdditionalProperties.Schema, p.Child("additionalProperties"))...)
	}
	return errs
}

func nestedCompleteness(v, s *api.JSONSchemaProps, sp, vp *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	if s == nil {
		return field.ErrorList{field.Required(sp, "because it is defined in "+vp.String())}
	}
	var errs field.ErrorList
	if it := itemsSchema(v); it != nil {
		errs = append(errs, nestedCompleteness(it, itemsSchema(s), sp.Child("items"), vp.Child("items"))...)
	}
	for _, k := range sortedSchemaKeys(v.Properties) {
		vf := v.Properties[k]
		if sf, ok := s.Properties[k]; ok {
			errs = append(errs, nestedCompleteness(&vf, &sf, sp.Child("properties").Key(k), vp.Child("properties").Key(k))...)
		} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			errs = append(errs, nestedCompleteness(&vf, s.AdditionalProperties.Schema, sp.Child("additionalProperties"), vp.Child("properties").Key(k))...)
		} else {
			errs = append(errs, field.Required(sp.Child("properties").Key(k), "because it is defined in "+vp.Child("properties").Key(k).String()))
		}
	}
	for i := range v.AllOf {
		errs = append(errs, nestedCompleteness(&v.AllOf[i], s, sp, vp.Child("allOf").Index(i))...)
	}
	for i := range v.AnyOf {
		errs = append(errs, nestedCompleteness(&v.AnyOf[i], s, sp, vp.Child("anyOf").Index(i))...)
	}
	for i := range v.OneOf {
		errs = append(errs, nestedCompleteness(&v.OneOf[i], s, sp, vp.Child("oneOf").Index(i))...)
	}
	errs = append(errs, nestedCompleteness(v.Not, s, sp, vp.Child("not"))...)
	return errs
}

// validateDefaults checks each default: it must be JSON, must not contain
// fields its node would prune, and must validate against its node, which
// is validated as a root of its own (so a top-level message reads
// " in body must be ..." with an empty name, as in Kubernetes). Defaults in
// the top-level metadata are forbidden: the apiserver owns metadata.
func validateDefaults(s *api.JSONSchemaProps, p *field.Path, insideMeta, root bool) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if s.Default != nil && insideMeta {
		errs = append(errs, field.Forbidden(p.Child("default"), "must not be set in top-level metadata"))
	} else if s.Default != nil {
		var raw any
		if err := json.Unmarshal(s.Default.Raw, &raw); err != nil {
			errs = append(errs, field.Invalid(p.Child("default"), string(bytes.TrimSpace(s.Default.Raw)), "must be valid JSON"))
		} else {
			obj, _ := decodeJSON(s.Default.Raw)
			pruned, _ := decodeJSON(s.Default.Raw)
			Prune(s, pruned, PruneOptions{IsResourceRoot: s.XEmbeddedResource, KeepNulls: true})
			if !unstructured.Equal(obj, pruned) {
				errs = append(errs, field.Invalid(p.Child("default"), obj, "must not have unknown fields"))
			} else {
				errs = append(errs, Validate(s, obj, p.Child("default"))...)
			}
		}
	}
	if it := itemsSchema(s); it != nil {
		errs = append(errs, validateDefaults(it, p.Child("items"), false, false)...)
	}
	for _, k := range sortedSchemaKeys(s.Properties) {
		prop := s.Properties[k]
		meta := insideMeta || (k == "metadata" && root)
		errs = append(errs, validateDefaults(&prop, p.Child("properties").Key(k), meta, false)...)
	}
	if s.AdditionalProperties != nil {
		errs = append(errs, validateDefaults(s.AdditionalProperties.Schema, p.Child("additionalProperties"), false, false)...)
	}
	return errs
}
